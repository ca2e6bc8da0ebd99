import type { FactHit, FactsRepo } from "../knowledge.js";
import {
  COMMON_DOCS,
  coverage,
  FACT_COLUMNS,
  keepBest,
  RANKED_DOCS,
  type FactRow as SharedFactRow,
  stemsOf,
  toFactRecord,
} from "../sqlite/fact-rows.js";
import { jsonbOfStored, type PgDb } from "./db.js";
import { factBatches } from "./facts-bulk.js";

type FactRow = SharedFactRow & { seq: number };
const COLUMNS = `seq, ${FACT_COLUMNS}`;
const F_COLUMNS = COLUMNS.split(", ")
  .map((column) => `f.${column}`)
  .join(", ");
const toRecord = toFactRecord;

/**
 * A term as tsquery text built only from its own runs of letters and digits, each quoted: user
 * text can never inject tsquery syntax (`&`, `!`, `:*`, `<->`) or reach SQL. A term of several
 * words is a phrase, as FTS5 reads a quoted string. Null when the term holds no word at all.
 * Combining marks stay inside their word, as in `words` and as the stored text reaches the
 * parser (unaccent folds them): split there, a decomposed `müller` (u + U+0308, as macOS types
 * it) or the `i̇` JavaScript lowercases `İ` to became a phrase of pieces that no fact holds.
 */
export function tsqueryOf(term: string): string | null {
  const words = term.match(/[\p{L}\p{N}][\p{L}\p{N}\p{M}]*/gu);
  return words ? words.map((word) => `'${word}'`).join(" <-> ") : null;
}

/** A fact's topics as jsonb (see jsonbOfStored). */
const TOPICS_JSONB = jsonbOfStored("f.topics");
const TOPIC = `(@topic::text IS NULL OR ${TOPICS_JSONB} @> jsonb_build_array(@topic::text))`;

export function pgFacts(db: PgDb): FactsRepo {
  // The short id, the row and its read-back in one statement (one round trip, not three).
  const insert = db.prepare<unknown[], FactRow>(
    `WITH n AS (SELECT cairn_next('facts', NULL) AS seq)
     INSERT INTO facts (seq, id, text, norm, topics, author, created_at, last_seen_at, seen_count)
     SELECT n.seq, 'F-' || n.seq, ?, ?, ?, ?, ?, ?, 1 FROM n RETURNING ${COLUMNS}`,
  );
  const byId = db.prepare<[string], FactRow>(`SELECT ${COLUMNS} FROM facts WHERE id = ?`);
  const liveByNorm = db.prepare<[string], FactRow>(
    `SELECT ${COLUMNS} FROM facts WHERE norm = ? AND superseded_by IS NULL`,
  );
  const reinforce = db.prepare(
    "UPDATE facts SET seen_count = seen_count + ?, last_seen_at = ?, topics = ? WHERE id = ?",
  );
  const supersede = db.prepare("UPDATE facts SET superseded_by = ?, superseded_at = ? WHERE id = ?");
  const remove = db.prepare("DELETE FROM facts WHERE id = ?");
  // `_tsv` is generated from superseded_by: a fact made live again is searchable again by itself.
  const restoreReplaced = db.prepare<[string], { id: string }>(
    `UPDATE facts SET superseded_by = NULL, superseded_at = NULL
     WHERE superseded_by = ? AND norm NOT IN (SELECT norm FROM facts WHERE superseded_by IS NULL)
     RETURNING id`,
  );
  const handOver = db.prepare("UPDATE facts SET superseded_by = ? WHERE superseded_by = ?");

  /**
   * Per term: its lexemes, the live facts holding it (idf, from the kept term counts) and how
   * many of them carry the topic (capped: only "rare or common" matters).
   */
  const termDocs = db.prepare<
    [{ terms: string; topic: string | null }],
    { i: number; lexemes: string[]; df: number; n: number }
  >(
    `SELECT t.i, l.lexemes,
       coalesce((SELECT min(coalesce(d.docs, 0)) FROM unnest(l.lexemes) x LEFT JOIN facts_terms d ON d.term = x), 0) AS df,
       CASE WHEN @topic::text IS NULL AND cardinality(l.lexemes) = 1
         -- One word and no topic: the kept term count is the number of facts holding it, exactly.
         THEN least(coalesce((SELECT d.docs FROM facts_terms d WHERE d.term = l.lexemes[1]), 0), ${COMMON_DOCS + 1})
         ELSE (SELECT count(*) FROM (SELECT 1 FROM facts f WHERE f._tsv @@ to_tsquery('cairn_fts', t.q) AND ${TOPIC}
          LIMIT ${COMMON_DOCS + 1}) s) END AS n
     FROM jsonb_to_recordset(@terms::jsonb) AS t(i int, q text),
       LATERAL (SELECT coalesce(array_agg(lexeme), '{}') AS lexemes
                FROM unnest(to_tsvector('cairn_fts', cairn_words(t.q)))) l`,
  );
  /**
   * bm25 exactly as FTS5 computes it (k1 1.2, b 0.75; text weighs 1, topics 0.5), best first,
   * with the rows themselves (no second round trip to fetch them).
   */
  const ranked = db.prepare<
    [{ terms: string; query: string; topic: string | null; limit: number }],
    FactRow & { score: number }
  >(
    `WITH st AS (SELECT docs::float8 AS n, tokens::float8 / greatest(docs, 1) AS avgdl FROM facts_stats),
     terms AS (SELECT t.i, t.lexemes, greatest(ln((st.n - t.df + 0.5) / (t.df + 0.5)), 1e-6) AS idf
               FROM jsonb_to_recordset(@terms::jsonb) AS t(i int, lexemes text[], df float8), st),
     cand AS (SELECT f.seq, f._tsv, f._len FROM facts f WHERE f._tsv @@ to_tsquery('cairn_fts', @query) AND ${TOPIC}),
     hits AS (SELECT c.seq, c._len, u.lexeme,
                (SELECT count(*) FILTER (WHERE w = 'A') + 0.5 * count(*) FILTER (WHERE w = 'B') FROM unnest(u.weights) w) AS tf
              FROM cand c, unnest(c._tsv) u
              WHERE u.lexeme IN (SELECT unnest(lexemes) FROM terms)),
     per AS (SELECT h.seq, h._len, t.i, t.idf, min(h.tf) AS tf, count(*) AS held, cardinality(t.lexemes) AS need
             FROM hits h JOIN terms t ON h.lexeme = ANY(t.lexemes)
             GROUP BY h.seq, h._len, t.i, t.idf, t.lexemes),
     top AS (SELECT per.seq, sum(per.idf * per.tf * 2.2 / (per.tf + 1.2 * (0.25 + 0.75 * per._len / st.avgdl)))::float8 AS score
             FROM per, st WHERE per.held = per.need
             GROUP BY per.seq ORDER BY score DESC, per.seq LIMIT @limit)
     SELECT ${F_COLUMNS}, top.score FROM top JOIN facts f ON f.seq = top.seq ORDER BY top.score DESC, top.seq`,
  );
  const newest = db.prepare<[{ query: string; topic: string | null; limit: number }], FactRow>(
    `SELECT ${F_COLUMNS} FROM facts f WHERE f._tsv @@ to_tsquery('cairn_fts', @query) AND ${TOPIC} ORDER BY f.seq DESC LIMIT @limit`,
  );

  /** Candidates for a worded query, each with a relevance in [0, 1]: bm25 and term coverage. */
  const matching = async (
    terms: readonly string[],
    topic: string | undefined,
    limit: number,
  ): Promise<FactHit[]> => {
    const queries = terms.map((term) => ({ term, q: tsqueryOf(term) })).filter((t) => t.q !== null);
    if (queries.length === 0) return [];
    const counted = await termDocs.all({
      terms: JSON.stringify(queries.map((t, i) => ({ i, q: t.q }))),
      topic: topic ?? null,
    });
    const docs = counted
      .map((row) => ({ ...row, q: queries[row.i]?.q as string }))
      .filter((d) => d.n > 0 && d.lexemes.length > 0);
    if (docs.length === 0) return [];
    const rare = docs.filter((d) => d.n <= COMMON_DOCS).sort((a, b) => a.n - b.n || a.i - b.i);
    let scored: { row: FactRow; bm25: number }[];
    const any = (chosen: typeof docs) => chosen.map((d) => `(${d.q})`).join(" | ");
    if (rare.length > 0) {
      const chosen: typeof docs = [];
      let total = 0;
      for (const d of rare) {
        if (chosen.length > 0 && total + d.n > RANKED_DOCS) break;
        chosen.push(d);
        total += d.n;
      }
      const rows = await ranked.all({
        terms: JSON.stringify(chosen.map((d) => ({ i: d.i, lexemes: d.lexemes, df: d.df }))),
        query: any(chosen),
        topic: topic ?? null,
        limit,
      });
      scored = rows.map((row) => ({ row, bm25: row.score }));
    } else {
      const all = await newest.all({
        query: docs.map((d) => `(${d.q})`).join(" & "),
        topic: topic ?? null,
        limit,
      });
      const some =
        all.length >= limit ? [] : await newest.all({ query: any(docs), topic: topic ?? null, limit });
      const seen = new Set<number>();
      scored = [...all, ...some]
        .filter((row) => !seen.has(row.seq) && seen.add(row.seq))
        .map((row) => ({ row, bm25: 0 }));
    }
    // Only live facts are indexed (a superseded fact's _tsv is empty): every row found is live.
    const best = Math.max(0, ...scored.map((s) => s.bm25));
    const stems = stemsOf(terms);
    return scored.map(({ row, bm25 }) => {
      const relevance = 0.75 * (best > 0 ? bm25 / best : 0) + 0.25 * coverage(row.text, stems);
      return { fact: toRecord(row), relevance };
    });
  };
  const recent = db.prepare<[{ topic: string | null; limit: number }], FactRow>(
    `SELECT ${COLUMNS} FROM facts f WHERE f.superseded_by IS NULL AND ${TOPIC}
     ORDER BY f.last_seen_at DESC, f.seq DESC LIMIT @limit`,
  );
  // A topic taken out of the JSON carries the database's default collation, not the columns' "C":
  // ties are ordered by bytes explicitly, as SQLite orders them.
  const topics = db.prepare<[], { topic: string; count: number }>(
    `SELECT t.topic, COUNT(*) AS count FROM facts f, jsonb_array_elements_text(${TOPICS_JSONB}) AS t(topic)
     WHERE f.superseded_by IS NULL GROUP BY t.topic ORDER BY count DESC, t.topic COLLATE "C"`,
  );
  // The window counts the groups, so one statement gives the page and how many topics there are.
  const topTopics = db.prepare<[number], { topic: string; count: number; total: number }>(
    `SELECT t.topic, COUNT(*) AS count, COUNT(*) OVER () AS total FROM facts f, jsonb_array_elements_text(${TOPICS_JSONB}) AS t(topic)
     WHERE f.superseded_by IS NULL GROUP BY t.topic ORDER BY count DESC, t.topic COLLATE "C" LIMIT ?`,
  );

  return {
    ...factBatches(db, COLUMNS),
    async insert(fact, at) {
      return toRecord(
        (await insert.get(fact.text, fact.norm, JSON.stringify(fact.topics), fact.author, at, at)) as FactRow,
      );
    },
    async byId(id) {
      const row = await byId.get(id);
      return row ? toRecord(row) : undefined;
    },
    async liveByNorm(norm) {
      const row = await liveByNorm.get(norm);
      return row ? toRecord(row) : undefined;
    },
    async reinforce(id, topicList, at, counted) {
      await reinforce.run(counted ? 1 : 0, at, JSON.stringify(topicList), id);
      return toRecord((await byId.get(id)) as FactRow);
    },
    async supersede(id, by, at) {
      await supersede.run(by, at, id);
    },
    async delete(id) {
      await remove.run(id);
    },
    async restoreReplacedBy(id) {
      return (await restoreReplaced.all(id)).map((fact) => fact.id);
    },
    async handOverReplaced(id, by) {
      await handOver.run(by, id);
    },
    async search({ terms, topic, limit, keep }): Promise<FactHit[]> {
      if (terms.length > 0) {
        const hits = await matching(terms, topic, limit);
        if (!keep) return hits;
        // Whole rows come with the candidates here (one round trip): `keep` only ranks and cuts.
        const candidates = hits.map((hit) => ({
          hit,
          relevance: hit.relevance,
          lastSeenAt: hit.fact.lastSeenAt,
          seenCount: hit.fact.seenCount,
        }));
        return keepBest(candidates, keep).map(({ hit, score }) => ({ ...hit, score }));
      }
      const rows = await recent.all({ topic: topic ?? null, limit });
      return rows.map((row) => ({ fact: toRecord(row), relevance: 0 }));
    },
    async topics() {
      return topics.all();
    },
    async topTopics(limit) {
      const rows = await topTopics.all(limit);
      return {
        topics: rows.map(({ topic, count }) => ({ topic, count: Number(count) })),
        total: Number(rows[0]?.total ?? 0),
      };
    },
    async compactIndex() {
      // A GIN index has no pieces to merge by hand: PostgreSQL folds its pending entries in as
      // it goes (gin_pending_list_limit, autovacuum).
      return 0;
    },
  };
}
