import type { FactsRepo } from "../knowledge.js";
import { type FactRow, toFactRecord } from "../sqlite/fact-rows.js";
import { encodeText, type PgDb } from "./db.js";

/** Rows per INSERT: large enough that round trips vanish, small enough to keep memory flat. */
const BATCH = 5_000;
/**
 * After a load this large, recall is made ready at once rather than when autovacuum next
 * passes: the planner's row estimates for facts are refreshed (stale ones made recall's row
 * fetch scan a whole index: 10 ms instead of 0.2 ms at 100k facts), and the full-text index's
 * pending list (about 14,000 entries after 100k facts, scanned by every search) is merged in.
 */
const SETTLE_AFTER = 10_000;
const SETTLE = `ANALYZE facts;
  DO $$ BEGIN PERFORM gin_clean_pending_list('facts_tsv'::regclass);
  EXCEPTION WHEN insufficient_privilege THEN NULL; END $$`;

/**
 * The bulk half of the facts repository. A batch takes its block of ids from the counter in one
 * step, then inserts every row in one statement (the same columns, ids and values as `insert`
 * one by one); the search index and its term counts follow from the table's statement-level
 * triggers (pg_0100_bulk_terms), as for a single insert.
 */
export function factBatches(
  db: PgDb,
  columns: string,
): Pick<FactsRepo, "insertMany" | "liveByNorms" | "supersededByNorms"> {
  const take = db.prepare<unknown[], { last: number }>(
    `INSERT INTO cairn_counters AS c (name, last) VALUES ('facts', @n)
     ON CONFLICT (name) DO UPDATE SET last = c.last + @n RETURNING c.last`.replaceAll("@n", "?::bigint"),
  );
  const insert = db.prepare<unknown[], FactRow & { seq: number }>(
    `INSERT INTO facts (seq, id, text, norm, topics, author, created_at, last_seen_at, seen_count)
     SELECT ?::bigint + r.i, 'F-' || (?::bigint + r.i), r.text, r.norm, r.topics, r.author, ?, ?, 1
     FROM unnest(?::text[], ?::text[], ?::text[], ?::text[]) WITH ORDINALITY AS r(text, norm, topics, author, i)
     ORDER BY r.i RETURNING ${columns}`,
  );
  const liveByNorms = db.prepare<[string[]], FactRow & { norm: string }>(
    `SELECT norm, ${columns} FROM facts WHERE norm = ANY(?) AND superseded_by IS NULL`,
  );
  // Newest supersession last, so the map built from the rows keeps it per norm.
  const supersededByNorms = db.prepare<[string[]], FactRow & { norm: string }>(
    `SELECT norm, ${columns} FROM facts WHERE norm = ANY(?) AND superseded_by IS NOT NULL
     ORDER BY superseded_at, seq`,
  );
  return {
    async insertMany(facts, at) {
      const made: FactRow[] = [];
      for (let start = 0; start < facts.length; start += BATCH) {
        const batch = facts.slice(start, start + BATCH);
        const last = (await take.get(batch.length, batch.length))?.last as number;
        const before = last - batch.length;
        const rows = await insert.all(
          before,
          before,
          at,
          at,
          // Array elements are not escaped by the statement layer: do it here (see encodeText).
          batch.map((f) => encodeText(f.text)),
          batch.map((f) => encodeText(f.norm)),
          batch.map((f) => encodeText(JSON.stringify(f.topics))),
          batch.map((f) => encodeText(f.author)),
        );
        made.push(...rows.sort((a, b) => a.seq - b.seq));
      }
      if (facts.length >= SETTLE_AFTER) await db.query(SETTLE);
      return made.map(toFactRecord);
    },
    async liveByNorms(norms) {
      const rows = await liveByNorms.all(norms.map(encodeText));
      return new Map(rows.map((row) => [row.norm, toFactRecord(row)]));
    },
    async supersededByNorms(norms) {
      const rows = await supersededByNorms.all(norms.map(encodeText));
      return new Map(rows.map((row) => [row.norm, toFactRecord(row)]));
    },
  };
}
