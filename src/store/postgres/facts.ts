import type { FactHit, FactRecord, FactsRepo } from "../knowledge.js";
import type { PgDb } from "./db.js";
import { shortIds } from "./short-ids.js";

interface FactRow {
  seq: number;
  id: string;
  text: string;
  topics: string;
  author: string;
  created_at: string;
  last_seen_at: string;
  seen_count: number;
  superseded_by: string | null;
  superseded_at: string | null;
}

const COLUMNS =
  "seq, id, text, topics, author, created_at, last_seen_at, seen_count, superseded_by, superseded_at";

function toRecord(row: FactRow): FactRecord {
  return {
    id: row.id,
    text: row.text,
    topics: JSON.parse(row.topics) as string[],
    author: row.author,
    createdAt: row.created_at,
    lastSeenAt: row.last_seen_at,
    seenCount: row.seen_count,
    supersededBy: row.superseded_by,
    supersededAt: row.superseded_at,
  };
}

/**
 * A term as tsquery text built only from its own runs of letters and digits, each quoted: user
 * text can never inject tsquery syntax (`&`, `!`, `:*`, `<->`) or reach SQL. A term of several
 * words is a phrase, as FTS5 reads a quoted string. Null when the term holds no word at all.
 */
export function tsqueryOf(term: string): string | null {
  const words = term.match(/[\p{L}\p{N}]+/gu);
  return words ? words.map((word) => `'${word}'`).join(" <-> ") : null;
}

/** Same thresholds as the SQLite store: rare terms are ranked by bm25, common ones only add coverage. */
const COMMON_DOCS = 1_000;
const RANKED_DOCS = 1_500;

const TOPIC = "(@topic::text IS NULL OR f.topics::jsonb @> jsonb_build_array(@topic::text))";

const foldAccents = (text: string) =>
  text
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase();

/** The share of query terms a fact's text holds, by word stem (as the SQLite store measures it). */
function coverage(text: string, terms: readonly string[]): number {
  if (terms.length === 0) return 0;
  const words = foldAccents(text).split(/[^\p{L}\p{N}]+/u);
  const held = terms.filter((term) => {
    const stem = foldAccents(term).slice(0, Math.max(3, term.length - 2));
    return words.some((word) => word.startsWith(stem));
  });
  return held.length / terms.length;
}

export function pgFacts(db: PgDb): FactsRepo {
  const nextId = shortIds(db, "facts", "F");
  const insert = db.prepare(
    "INSERT INTO facts (seq, id, text, norm, topics, author, created_at, last_seen_at, seen_count) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1)",
  );
  const byId = db.prepare<[string], FactRow>(`SELECT ${COLUMNS} FROM facts WHERE id = ?`);
  const liveByNorm = db.prepare<[string], FactRow>(
    `SELECT ${COLUMNS} FROM facts WHERE norm = ? AND superseded_by IS NULL`,
  );
  const reinforce = db.prepare(
    "UPDATE facts SET seen_count = seen_count + 1, last_seen_at = ?, topics = ? WHERE id = ?",
  );
  const supersede = db.prepare("UPDATE facts SET superseded_by = ?, superseded_at = ? WHERE id = ?");
  const remove = db.prepare("DELETE FROM facts WHERE id = ?");

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
       (SELECT count(*) FROM (SELECT 1 FROM facts f WHERE f._tsv @@ to_tsquery('cairn_fts', t.q) AND ${TOPIC}
          LIMIT ${COMMON_DOCS + 1}) s) AS n
     FROM jsonb_to_recordset(@terms::jsonb) AS t(i int, q text),
       LATERAL (SELECT coalesce(array_agg(lexeme), '{}') AS lexemes
                FROM unnest(to_tsvector('cairn_fts', cairn_words(t.q)))) l`,
  );
  /** bm25 exactly as FTS5 computes it (k1 1.2, b 0.75; text weighs 1, topics 0.5), best first. */
  const ranked = db.prepare<
    [{ terms: string; query: string; topic: string | null; limit: number }],
    { seq: number; score: number }
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
             GROUP BY h.seq, h._len, t.i, t.idf, t.lexemes)
     SELECT per.seq, sum(per.idf * per.tf * 2.2 / (per.tf + 1.2 * (0.25 + 0.75 * per._len / st.avgdl)))::float8 AS score
     FROM per, st WHERE per.held = per.need
     GROUP BY per.seq ORDER BY score DESC, per.seq LIMIT @limit`,
  );
  const newest = db.prepare<[{ query: string; topic: string | null; limit: number }], { seq: number }>(
    `SELECT f.seq FROM facts f WHERE f._tsv @@ to_tsquery('cairn_fts', @query) AND ${TOPIC} ORDER BY f.seq DESC LIMIT @limit`,
  );
  const bySeqs = db.prepare<[number[]], FactRow>(
    `SELECT ${COLUMNS} FROM facts WHERE seq = ANY(?) AND superseded_by IS NULL`,
  );
  const rowsBySeq = async (seqs: number[]): Promise<Map<number, FactRow>> => {
    if (seqs.length === 0) return new Map();
    return new Map((await bySeqs.all(seqs)).map((row) => [row.seq, row]));
  };

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
    let scored: { seq: number; bm25: number }[];
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
      scored = rows.map((row) => ({ seq: row.seq, bm25: row.score }));
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
        .map((row) => ({ seq: row.seq, bm25: 0 }));
    }
    const rows = await rowsBySeq(scored.map((s) => s.seq));
    const best = Math.max(0, ...scored.map((s) => s.bm25));
    return scored.flatMap(({ seq, bm25 }) => {
      const row = rows.get(seq);
      if (!row) return [];
      const relevance = 0.75 * (best > 0 ? bm25 / best : 0) + 0.25 * coverage(row.text, terms);
      return [{ fact: toRecord(row), relevance }];
    });
  };
  const recent = db.prepare<[{ topic: string | null; limit: number }], FactRow>(
    `SELECT ${COLUMNS} FROM facts f WHERE f.superseded_by IS NULL AND ${TOPIC}
     ORDER BY f.last_seen_at DESC, f.seq DESC LIMIT @limit`,
  );
  const topics = db.prepare<[], { topic: string; count: number }>(
    `SELECT t.topic, COUNT(*) AS count FROM facts f, jsonb_array_elements_text(f.topics::jsonb) AS t(topic)
     WHERE f.superseded_by IS NULL GROUP BY t.topic ORDER BY count DESC, t.topic`,
  );

  return {
    async insert(fact, at) {
      const { seq, id } = await nextId();
      await insert.run(seq, id, fact.text, fact.norm, JSON.stringify(fact.topics), fact.author, at, at);
      return toRecord((await byId.get(id)) as FactRow);
    },
    async insertMany(facts, at) {
      // Row by row: the terms and statistics tables are kept by per-row triggers either way.
      for (const fact of facts) {
        const { seq, id } = await nextId();
        await insert.run(seq, id, fact.text, fact.norm, JSON.stringify(fact.topics), fact.author, at, at);
      }
      return facts.length;
    },
    async byId(id) {
      const row = await byId.get(id);
      return row ? toRecord(row) : undefined;
    },
    async liveByNorm(norm) {
      const row = await liveByNorm.get(norm);
      return row ? toRecord(row) : undefined;
    },
    async reinforce(id, topicList, at) {
      await reinforce.run(at, JSON.stringify(topicList), id);
      return toRecord((await byId.get(id)) as FactRow);
    },
    async supersede(id, by, at) {
      await supersede.run(by, at, id);
    },
    async delete(id) {
      await remove.run(id);
    },
    async search({ terms, topic, limit }): Promise<FactHit[]> {
      if (terms.length > 0) return matching(terms, topic, limit);
      const rows = await recent.all({ topic: topic ?? null, limit });
      return rows.map((row) => ({ fact: toRecord(row), relevance: 0 }));
    },
    async topics() {
      return topics.all();
    },
    async compactIndex() {
      // A GIN index has no pieces to merge by hand: PostgreSQL folds its pending entries in as
      // it goes (gin_pending_list_limit, autovacuum).
      return 0;
    },
  };
}
