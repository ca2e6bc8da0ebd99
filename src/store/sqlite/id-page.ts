import type Database from "better-sqlite3";
import { type IdMatch, whereClause } from "../id-prefix.js";
import type { IdPage } from "../tasks.js";
import { builtStatement } from "./statement-cache.js";

/** One page of the matching ids of a table with short ids, lowest number first, and their count. */
export function sqliteIdPage(
  db: Database.Database,
  table: "tasks" | "goals",
  match: IdMatch | undefined,
  limit: number,
): IdPage {
  if (!match) return { ids: [], total: 0 };
  const where = whereClause(match);
  const ids = builtStatement(db, `SELECT id FROM ${table} ${where} ORDER BY seq LIMIT +@limit`)
    .all({ ...match.values, limit })
    .map((row) => (row as { id: string }).id);
  const counted = builtStatement(db, `SELECT COUNT(*) AS n FROM ${table} ${where}`).get(match.values);
  return { ids, total: (counted as { n: number }).n };
}
