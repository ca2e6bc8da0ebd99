import { type IdMatch, whereClause } from "../id-prefix.js";
import type { IdPage } from "../tasks.js";
import type { PgDb } from "./db.js";

/** One page of the matching ids of a table with short ids, lowest number first, and their count. */
export async function pgIdPage(
  db: PgDb,
  table: "tasks" | "goals",
  match: IdMatch | undefined,
  limit: number,
): Promise<IdPage> {
  if (!match) return { ids: [], total: 0 };
  const where = whereClause(match);
  const rows = await db
    .prepare<[Record<string, unknown>], { id: string }>(
      `SELECT id FROM ${table} ${where} ORDER BY seq LIMIT @limit`,
    )
    .all({ ...match.values, limit });
  const counted = await db
    .prepare<[Record<string, unknown>], { n: number }>(`SELECT COUNT(*) AS n FROM ${table} ${where}`)
    .get(match.values);
  return { ids: rows.map((row) => row.id), total: counted?.n ?? 0 };
}
