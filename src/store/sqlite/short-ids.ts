import type Database from "better-sqlite3";
import type { ShortIdPrefix } from "../../kernel/short-id.js";

/**
 * Short ids with a prefix (A-3, T-12, F-7), allocated inside the caller's write transaction.
 * An id is never reused, even after its row is deleted: an id an agent once read must not come
 * to mean something else. AUTOINCREMENT tables remember their highest seq in sqlite_sequence;
 * for the others the highest stored seq is the floor.
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
