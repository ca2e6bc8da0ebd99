import { COUNTED_KEYS, raiseFunction } from "./plumbing.js";

/**
 * SQLite DDL → PostgreSQL DDL for the plain parts of a migration (tables, indexes), so a new
 * SQLite migration usually ports as `fromSqlite(migration.sql)`. What has no direct equivalent
 * (triggers, FTS5 tables) must be named in `handPorted` and written by hand; anything else of
 * that kind is refused, so nothing is dropped silently.
 *
 * - INTEGER → bigint, REAL → double precision, BLOB → bytea, TEXT → text COLLATE "C" (SQLite
 *   compares text by bytes; "C" gives that order on every server, whatever its locale).
 * - `x TEXT ... UNIQUE COLLATE NOCASE` → a unique index on lower(x) (callers compare by lower()).
 * - `x INTEGER PRIMARY KEY [AUTOINCREMENT]` keeps its column; a trigger fills it from a
 *   transactional counter: no gaps after a rollback, never reused, like AUTOINCREMENT.
 * - `REFERENCES t(c)` may be checked at the commit (DEFERRABLE INITIALLY IMMEDIATE): an import
 *   defers it, as it does on SQLite (see pg-deferrable-references.ts).
 * - A table without such a key gets a hidden `_rowid` filled the same way: insertion order,
 *   which is what SQLite's implicit rowid gives export and ordering. Columns starting with `_`
 *   belong to the PostgreSQL store and never travel in an export.
 */
export function fromSqlite(sql: string, options: { handPorted?: readonly string[] } = {}): string {
  const handPorted = new Set(options.handPorted ?? []);
  const out: string[] = [];
  for (const statement of statements(sql)) {
    const special = /^CREATE\s+(?:TRIGGER|VIRTUAL\s+TABLE)\s+(\w+)/i.exec(statement)?.[1];
    if (special) {
      if (!handPorted.has(special))
        throw new Error(`fromSqlite: port ${special} by hand and list it in handPorted`);
      handPorted.delete(special);
      continue;
    }
    out.push(translateStatement(statement));
  }
  if (handPorted.size > 0)
    throw new Error(`fromSqlite: not in the SQLite migration: ${[...handPorted].join(", ")}`);
  return `${out.join(";\n")};\n`;
}

/** Statements split at `;`, keeping a trigger's BEGIN … END body whole. */
function statements(sql: string): string[] {
  const parts = sql.replace(/--[^\n]*/g, "").split(";");
  const found: string[] = [];
  let pending = "";
  for (const part of parts) {
    pending = pending ? `${pending};${part}` : part;
    const text = pending.trim();
    if (/^CREATE\s+TRIGGER/i.test(text) && !/\bEND$/i.test(text)) continue;
    if (text !== "") found.push(text);
    pending = "";
  }
  return found;
}

function translateStatement(statement: string): string {
  const table = /^CREATE\s+TABLE\s+(\w+)\s*\(/i.exec(statement)?.[1];
  const nocase: string[] = [];
  let out = statement
    .replace(/(\w+)(\s+TEXT\b[^,]*?)\s+UNIQUE\s+COLLATE\s+NOCASE/gi, (_, column: string, rest: string) => {
      nocase.push(column);
      return `${column}${rest}`;
    })
    .replace(/\bINTEGER\s+PRIMARY\s+KEY(\s+AUTOINCREMENT)?/gi, "bigint PRIMARY KEY")
    .replace(/\bINTEGER\b/g, "bigint")
    .replace(/\bREAL\b/g, "double precision")
    .replace(/\bBLOB\b/g, "bytea")
    .replace(/\bTEXT\b/g, 'text COLLATE "C"')
    .replace(/\bREFERENCES\s+\w+\s*\(\s*\w+\s*\)/gi, "$& DEFERRABLE INITIALLY IMMEDIATE");
  if (/COLLATE\s+NOCASE/i.test(out))
    throw new Error(`fromSqlite: port this NOCASE column by hand: ${statement}`);
  if (!table) return out;
  const key = /(\w+)\s+bigint PRIMARY KEY/.exec(out)?.[1];
  if (!key) out = out.replace(/\)\s*$/, ",\n  _rowid bigint NOT NULL\n)");
  const extras = [
    counterTrigger(table, key ?? "_rowid"),
    ...nocase.map((column) => `CREATE UNIQUE INDEX ${table}_${column}_nocase ON ${table} (lower(${column}))`),
  ];
  return [out, ...extras].join(";\n");
}

/**
 * The two triggers that fill a table's key from its counter (see counterFunctions in
 * ./plumbing.ts): per row for rows without one, per statement for rows given theirs. The
 * statement half's function is written here too: a schema made before it existed, migrating past
 * a table made after, has not got it yet (pg_0103 then replaces the per-row half).
 */
export function counterTrigger(table: string, column: string): string {
  const name = (COUNTED_KEYS as Record<string, string>)[column];
  if (!name) throw new Error(`fromSqlite: no counter trigger for key column ${table}.${column}`);
  return [
    `CREATE TRIGGER ${table}_counter BEFORE INSERT ON ${table} FOR EACH ROW EXECUTE FUNCTION cairn_fill_${name}()`,
    raiseFunction(column, name).replace(/;$/, ""),
    `CREATE TRIGGER ${table}_counter_raise AFTER INSERT ON ${table} REFERENCING NEW TABLE AS cairn_inserted FOR EACH STATEMENT EXECUTE FUNCTION cairn_raise_${name}()`,
  ].join(";\n");
}
