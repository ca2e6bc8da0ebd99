import type Database from "better-sqlite3";
import type { ShortIdPrefix } from "../../kernel/short-id.js";

/**
 * Short ids with a prefix (A-3, T-12, F-7), allocated inside the caller's write transaction.
 * An id is never reused, even after its row is deleted: an id an agent once read must not come
 * to mean something else. The highest id handed out is kept in sqlite_sequence: by SQLite for an
 * AUTOINCREMENT table, by `raiseCounter` for the others; the highest stored seq is the floor.
 */
export function shortIds(
  db: Database.Database,
  table: string,
  prefix: ShortIdPrefix,
): () => { seq: number; id: string } {
  const next = db.prepare<[string], { next: number }>(
    `SELECT MAX(COALESCE((SELECT seq FROM sqlite_sequence WHERE name = ?), 0), COALESCE((SELECT MAX(seq) FROM "${table}"), 0)) + 1 AS next`,
  );
  return () => {
    const seq = next.get(table)?.next ?? 1;
    return { seq, id: `${prefix}-${seq}` };
  };
}

/**
 * Raise `table`'s counter in sqlite_sequence to at least `seq`, starting one where it has none:
 * an id up to it is never handed out again (see shortIds). A row deleted, or an import or copy
 * carrying the counter of ids forgotten before it, keeps its ids spent this way.
 */
export function raiseCounter(db: Database.Database, table: string, seq: number | bigint): void {
  if (db.prepare("UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = ?").run(seq, table).changes === 0)
    db.prepare("INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)").run(table, seq);
}

/**
 * Of `tables`, those whose ids a counter in sqlite_sequence may guard: keyed by an integer that is
 * the rowid (AUTOINCREMENT or not, see raiseCounter). Export, import and a copy carry these
 * counters, so an id handed out before is never handed out again where the workspace goes.
 */
export function countedTables(db: Database.Database, tables: readonly string[]): Set<string> {
  const counted = new Set<string>();
  for (const table of tables) {
    const keys = db
      .prepare<[], { type: string; pk: number }>(`PRAGMA table_info("${table.replaceAll('"', '""')}")`)
      .all()
      .filter((column) => column.pk > 0);
    if (keys.length === 1 && keys[0]?.type.toUpperCase() === "INTEGER") counted.add(table);
  }
  return counted;
}
