import { usageError } from "../../kernel/outcome.js";
import { inCodeUnitOrder, quoteValue } from "../../kernel/text.js";
import { CONTENT_TABLES } from "../sqlite/migrations/index.js";
import type { CountsRepo, DumpRecord, TransferRepo } from "../store.js";
import { ident, type PgDb } from "./db.js";
import { InsertWindow, insertGroups, insertSql, nextRowids, ROWS_PER_INSERT } from "./insert-window.js";

export interface TableShape {
  /** Exported columns in SQLite's order; `_`-columns are this store's own and stay home. */
  columns: string[];
  /** Insertion order, as SQLite's rowid gives it. */
  order: string;
}

/** Column lists of the content tables, read once per store from the catalog. */
export async function tableShapes(db: PgDb): Promise<Map<string, TableShape>> {
  const rows = await db.query<{ table_name: string; column_name: string }>(
    `SELECT table_name, column_name FROM information_schema.columns
     WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position`,
  );
  const all = new Map<string, string[]>();
  for (const row of rows.rows) all.set(row.table_name, [...(all.get(row.table_name) ?? []), row.column_name]);
  const shapes = new Map<string, TableShape>();
  for (const table of CONTENT_TABLES) {
    const columns = all.get(table) ?? [];
    const order = ["_rowid", "seq", "id"].find((column) => columns.includes(column)) ?? "1";
    shapes.set(table, { columns: columns.filter((column) => !column.startsWith("_")), order });
  }
  return shapes;
}

export function pgTransfer(db: PgDb): TransferRepo {
  let shapes: Promise<Map<string, TableShape>> | undefined;
  const shapesOf = () => {
    shapes ??= tableShapes(db);
    return shapes;
  };
  /** Content tables whose key is an id handed out by their counter (not a hidden `_rowid`). */
  const keyedTables = async () =>
    [...(await shapesOf())].filter(([, shape]) => shape.order === "seq" || shape.order === "id");
  return {
    async counters() {
      const last = new Map<string, number>();
      for (const row of (
        await db.query<{ name: string; last: number }>("SELECT name, last FROM cairn_counters")
      ).rows)
        last.set(row.name, Number(row.last));
      const counters: Record<string, number> = {};
      for (const [table, shape] of (await keyedTables()).sort(([a], [b]) => inCodeUnitOrder(a, b))) {
        const counter = last.get(table);
        if (counter === undefined) continue;
        const top = await db.query<{ top: number | null }>(
          `SELECT max(${ident(shape.order)}) AS top FROM ${ident(table)}`,
        );
        // Only a counter ahead of the rows says something the rows do not (ids since forgotten).
        if (counter > Number(top.rows[0]?.top ?? 0)) counters[table] = counter;
      }
      return counters;
    },
    async raiseCounters(counters) {
      const keyed = new Set((await keyedTables()).map(([table]) => table));
      const known = await shapesOf();
      for (const [name, last] of Object.entries(counters)) {
        if (!known.has(name)) throw usageError(`import: a counter for unknown table ${quoteValue(name)}`);
        // A keyless table's hidden order counter is this store's own: rows restored take theirs.
        if (!keyed.has(name)) continue;
        await db.query("SELECT cairn_next($1, $2)", [name, last]);
      }
    },
    async dump() {
      const records: DumpRecord[] = [];
      for (const [table, shape] of await shapesOf()) {
        const rows = await db.query(
          `SELECT ${shape.columns.map(ident).join(", ")} FROM ${ident(table)} ORDER BY ${ident(shape.order)}`,
        );
        for (const row of rows.rows) records.push({ table, row });
      }
      return records;
    },
    async contentCount() {
      return Object.values(await rowCounts(db)).reduce((total, n) => total + n, 0);
    },
    async restore(records, pause) {
      const known = await shapesOf();
      // Metadata is replaced wholesale: the imported workspace keeps its own identity.
      await db.prepare("DELETE FROM meta").run();
      // Rows come in the order they were made, and a task moved under a later one names its
      // parent before the parent's row: references are checked at the commit instead. The import
      // has checked them against the whole file already.
      await db.query("SET CONSTRAINTS ALL DEFERRED");
      // Exports leave the hidden `_rowid` out: rows take theirs here, in the order they come.
      const rowids = await nextRowids(db);
      // The store's connection pipelines: a window of inserts costs one round trip. Consecutive
      // rows of one table with one column list go in together, up to ROWS_PER_INSERT a statement.
      const window = new InsertWindow();
      let batch: Batch | null = null;
      const send = async () => {
        if (!batch) return;
        const { table, names, rows } = batch;
        batch = null;
        for (const group of insertGroups(rows)) {
          await window.makeRoom(pause);
          const values = group.flat();
          window.send(db.prepare(insertSql(table, names, group.length)).run(...values), values);
        }
      };
      for (const { table, row } of records) {
        const shape = known.get(table);
        const names = Object.keys(row);
        const stray = shape && names.find((name) => !shape.columns.includes(name));
        if (!shape || stray) {
          // An insert sent before this record that failed is the first fault: it is named first.
          await send();
          await window.answered();
          throw usageError(
            shape
              ? `import: table ${table} has no column ${quoteValue(stray as string)}`
              : `import: unknown table ${quoteValue(table)}`,
          );
        }
        const values = names.map((name) => row[name]);
        const rowid = rowids.get(table);
        if (rowid !== undefined) {
          names.push("_rowid");
          values.push(rowid);
          rowids.set(table, rowid + 1);
        }
        const key = `${table}\0${names.join("\0")}`;
        if (batch && batch.key !== key) await send();
        batch ??= { key, table, names, rows: [] };
        batch.rows.push(values);
        if (batch.rows.length === ROWS_PER_INSERT) await send();
      }
      await send();
      await window.answered();
    },
  };
}

/** Consecutive rows of one table with one column list, waiting to be sent together. */
interface Batch {
  key: string;
  table: string;
  names: string[];
  rows: unknown[][];
}

/** Rows per content table (workspace metadata is not content), in one round trip. */
async function rowCounts(db: PgDb): Promise<Record<string, number>> {
  const tables = CONTENT_TABLES.filter((table) => table !== "meta");
  const sql = tables
    .map((table) => `SELECT '${table}' AS t, COUNT(*) AS n FROM ${ident(table)}`)
    .join(" UNION ALL ");
  const counts: Record<string, number> = {};
  for (const row of await db.prepare<[], { t: string; n: number }>(sql).all()) counts[row.t] = row.n;
  return counts;
}

export function pgCounts(db: PgDb): CountsRepo {
  return {
    async all() {
      return rowCounts(db);
    },
    async bytes() {
      // Tables (with their indexes and TOAST) and sequences of this workspace's schema only.
      const row = await db
        .prepare<[], { n: number }>(
          `SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0)::bigint AS n
           FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace
           WHERE s.nspname = current_schema() AND c.relkind IN ('r', 'm', 'p', 'S')`,
        )
        .get();
      return Number(row?.n ?? 0);
    },
  };
}
