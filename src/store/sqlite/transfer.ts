import { statSync } from "node:fs";
import type Database from "better-sqlite3";
import { usageError } from "../../kernel/outcome.js";
import { quoteValue } from "../../kernel/text.js";
import type { CountsRepo, DumpRecord, TransferRepo } from "../store.js";
import { CONTENT_TABLES } from "./migrations/index.js";
import { countedTables, raiseCounter } from "./short-ids.js";
import { builtStatement } from "./statement-cache.js";

const quote = (identifier: string) => `"${identifier.replaceAll('"', '""')}"`;

/** A table's columns by name, with the type each is declared with. */
function columnsOf(db: Database.Database, table: string): Map<string, string> {
  return new Map(
    db
      .prepare<[], { name: string; type: string }>(`PRAGMA table_info(${quote(table)})`)
      .all()
      .map((column) => [column.name, column.type]),
  );
}

/**
 * Why a value cannot go in a column of this type, or undefined when it can. SQLite keeps text in
 * a column declared INTEGER or REAL, and a fraction in one declared INTEGER, where PostgreSQL
 * refuses them: an edited export restored here a task ranked "high" that no ready list showed,
 * and the same file failed on a shared store.
 */
function misfit(type: string, value: string | number | null): string | undefined {
  if (value === null) return undefined;
  if (/INT/i.test(type) && !Number.isSafeInteger(value)) return "holds integers";
  if (/REAL/i.test(type) && typeof value !== "number") return "holds numbers";
  return undefined;
}

/** Rows restored between two looks at whether the import was stopped. */
const PAUSE_EVERY = 2_000;

const COUNTED = CONTENT_TABLES.filter((table) => table !== "meta");

/**
 * Rows per content table; workspace metadata is not content. One statement counts them all
 * (a column per table): preparing a statement per table was ~1 ms of every `cairn status`. A
 * server keeps it prepared for the next status.
 */
function rowCounts(db: Database.Database): Record<string, number> {
  const columns = COUNTED.map((table, index) => `(SELECT COUNT(*) FROM ${quote(table)}) AS c${index}`);
  const row = builtStatement(db, `SELECT ${columns.join(", ")}`).get() as Record<string, number>;
  const counts: Record<string, number> = {};
  COUNTED.forEach((table, index) => {
    counts[table] = row[`c${index}`] as number;
  });
  return counts;
}

/** Content tables whose ids a counter guards (see countedTables): never handed out twice. */
const counterTables = (db: Database.Database) =>
  countedTables(
    db,
    CONTENT_TABLES.filter((table) => table !== "meta"),
  );

/** Export and import walk the content tables generically, so a new domain's rows travel too. */
export function sqliteTransfer(db: Database.Database): TransferRepo {
  return {
    async counters() {
      const tables = counterTables(db);
      const counters: Record<string, number> = {};
      if (tables.size === 0) return counters;
      for (const { name, seq } of db
        .prepare<[], { name: string; seq: number }>("SELECT name, seq FROM sqlite_sequence ORDER BY name")
        .all()) {
        if (!tables.has(name)) continue;
        // Only a counter ahead of the rows says something the rows do not (ids since forgotten).
        const top = db
          .prepare<[], { top: number | null }>(`SELECT max(rowid) AS top FROM ${quote(name)}`)
          .get();
        if (seq > (top?.top ?? 0)) counters[name] = seq;
      }
      return counters;
    },
    async raiseCounters(counters) {
      const tables = counterTables(db);
      const content = new Set(CONTENT_TABLES);
      for (const [name, last] of Object.entries(counters)) {
        if (!content.has(name)) throw usageError(`import: a counter for unknown table ${quoteValue(name)}`);
        // A table without an integer key has no counter here: its rows' order is their own.
        if (tables.has(name)) raiseCounter(db, name, last);
      }
    },
    async dump() {
      const records: DumpRecord[] = [];
      for (const table of CONTENT_TABLES) {
        const rows = db.prepare(`SELECT * FROM ${quote(table)} ORDER BY rowid`).all() as Record<
          string,
          unknown
        >[];
        for (const row of rows) records.push({ table, row });
      }
      return records;
    },
    async contentCount() {
      return Object.values(rowCounts(db)).reduce((total, n) => total + n, 0);
    },
    async restore(records, pause) {
      const known = new Map(CONTENT_TABLES.map((table) => [table, columnsOf(db, table)]));
      // Metadata is replaced wholesale: the imported workspace keeps its own identity.
      db.prepare("DELETE FROM meta").run();
      // Rows come in the order they were made, and a task moved under a later one names its
      // parent before the parent's row: references are checked at the commit instead (until the
      // transaction ends). The import has checked them against the whole file already.
      db.pragma("defer_foreign_keys = ON");
      let count = 0;
      for (const { table, row } of records) {
        count++;
        if (pause && count % PAUSE_EVERY === 0) await pause();
        const columns = known.get(table);
        if (!columns) throw usageError(`import: unknown table ${quoteValue(table)}`);
        const names = Object.keys(row);
        const stray = names.find((name) => !columns.has(name));
        if (stray) throw usageError(`import: table ${table} has no column ${quoteValue(stray)}`);
        for (const name of names) {
          const why = misfit(columns.get(name) as string, row[name] as string | number | null);
          if (why)
            throw usageError(
              // The header is line 1: the count-th record is on the line after.
              `import: line ${count + 1} (${table}.${name}) ${why}; it gives ${quoteValue(String(row[name]))}`,
            );
        }
        const sql = `INSERT INTO ${quote(table)} (${names.map(quote).join(", ")}) VALUES (${names.map(() => "?").join(", ")})`;
        db.prepare(sql).run(...names.map((name) => row[name] as string | number | null));
      }
    },
  };
}

const sizeOf = (path: string) => {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
};

export function sqliteCounts(db: Database.Database): CountsRepo {
  return {
    async all() {
      return rowCounts(db);
    },
    async bytes() {
      return db.memory ? 0 : sizeOf(db.name) + sizeOf(`${db.name}-wal`);
    },
  };
}
