import type { ShortIdPrefix } from "../../kernel/short-id.js";
import type { PgDb } from "./db.js";

/**
 * Short ids with a prefix (A-3, T-12, F-7), allocated inside the caller's write transaction from
 * the table's transactional counter: never reused after a delete, no gap after a rollback.
 */
export function shortIds(
  db: PgDb,
  table: string,
  prefix: ShortIdPrefix,
): () => Promise<{ seq: number; id: string }> {
  const next = db.prepare<[string], { seq: number }>("SELECT cairn_next(?, NULL) AS seq");
  return async () => {
    const seq = (await next.get(table))?.seq ?? 1;
    return { seq, id: `${prefix}-${seq}` };
  };
}
