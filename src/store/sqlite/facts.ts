import type Database from "better-sqlite3";
import type { FactHit, FactRecord, FactSearch, FactsRepo } from "../knowledge.js";
import {
  COMMON_DOCS,
  coverage,
  FACT_COLUMNS,
  type FactRow,
  keepBest,
  RANKED_DOCS,
  stemsOf,
  toFactRecord,
} from "./fact-rows.js";
import { keptTermCounts } from "./fact-term-counts.js";
import { shortIds } from "./short-ids.js";

const COLUMNS = FACT_COLUMNS;
const F_COLUMNS = COLUMNS.split(", ")
  .map((column) => `f.${column}`)
  .join(", ");
const toRecord = toFactRecord;

/** A quoted FTS5 string: user text can never inject syntax (NEAR, *, column filters, quotes). */
const ftsString = (term: string) => `"${term.replaceAll('"', '""')}"`;

/**
 * The FTS5 MATCH expression, built only from terms this function quotes itself: user text can
 * never inject FTS syntax (NEAR, *, column filters, unbalanced quotes) or reach SQL.
 */
export function ftsExpression(terms: readonly string[], join: "OR" | "AND" = "OR"): string {
  return terms.map(ftsString).join(` ${join} `);
}

/**
 * Narrow an expression to facts whose topics column holds this topic's words. The exact topic is
 * checked again on the rows; a topic without words (`---`) is left to that check alone, and so is
 * one holding U+0000 (it ends an FTS5 string, and the column indexes it as JSON's \u0000).
 */
const withTopic = (expression: string, topic: string | undefined) =>
  topic === undefined || !/[\p{L}\p{N}]/u.test(topic) || topic.includes("\u0000")
    ? expression
    : `{topics} : ${ftsString(topic.replace(/[-_]/g, " "))} AND (${expression})`;

/** Text weighs more than topics in relevance. */
const BM25 = "bm25(facts_fts, 1.0, 0.5)";
const TOPIC_FILTER = "EXISTS (SELECT 1 FROM json_each(f.topics) WHERE json_each.value = ?)";

/** Rows per INSERT of a bulk load: each statement leaves one segment in the full-text index. */
const INSERT_CHUNK = 2_000;

export function sqliteFacts(db: Database.Database): FactsRepo {
  const nextId = shortIds(db, "facts", "F");
  const insert = db.prepare(
    "INSERT INTO facts (seq, id, text, norm, topics, author, created_at, last_seen_at, seen_count) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1)",
  );
  // One statement per chunk: FTS5 writes its pending terms out at every statement inside a
  // transaction, so a row per statement costs a tiny index segment (and its merging) per fact.
  const insertChunk = db.prepare<[string, string, string]>(
    `INSERT INTO facts (seq, id, text, norm, topics, author, created_at, last_seen_at, seen_count)
     SELECT value ->> 0, 'F-' || (value ->> 0), value ->> 1, value ->> 2, value ->> 3, value ->> 4, ?, ?, 1
     FROM json_each(?) ORDER BY key`,
  );
  const chunkRows = db.prepare<[number, number], FactRow>(
    `SELECT ${COLUMNS} FROM facts WHERE seq BETWEEN ? AND ? ORDER BY seq`,
  );
  const byId = db.prepare<[string], FactRow>(`SELECT ${COLUMNS} FROM facts WHERE id = ?`);
  const liveByNorm = db.prepare<[string], FactRow>(
    `SELECT ${COLUMNS} FROM facts WHERE norm = ? AND superseded_by IS NULL`,
  );
  const liveByNorms = db.prepare<[string], FactRow & { norm: string }>(
    `SELECT norm, ${COLUMNS} FROM facts WHERE norm IN (SELECT value FROM json_each(?)) AND superseded_by IS NULL`,
  );
  // Newest supersession last, so the map built from the rows keeps it per norm.
  const supersededByNorms = db.prepare<[string], FactRow & { norm: string }>(
    `SELECT norm, ${COLUMNS} FROM facts WHERE norm IN (SELECT value FROM json_each(?))
       AND superseded_by IS NOT NULL ORDER BY superseded_at, seq`,
  );
  const reinforce = db.prepare(
    "UPDATE facts SET seen_count = seen_count + ?, last_seen_at = ?, topics = ? WHERE id = ?",
  );
  const supersede = db.prepare("UPDATE facts SET superseded_by = ?, superseded_at = ? WHERE id = ?");
  const remove = db.prepare("DELETE FROM facts WHERE id = ?");
  const restoreReplaced = db.prepare<[string], { seq: number; id: string; text: string; topics: string }>(
    `UPDATE facts SET superseded_by = NULL, superseded_at = NULL
       WHERE superseded_by = ? AND norm NOT IN (SELECT norm FROM facts WHERE superseded_by IS NULL)
       RETURNING seq, id, text, topics`,
  );
  const handOver = db.prepare("UPDATE facts SET superseded_by = ? WHERE superseded_by = ?");
  // The index's triggers take a fact out when it is superseded; one made live again goes back in here.
  const reindex = db.prepare("INSERT INTO facts_fts (rowid, text, topics) VALUES (?, ?, ?)");
  // FTS5 takes a setting's value only as a literal, never a bound parameter.
  const ftsSecureDelete = [0, 1].map((on) =>
    db.prepare(`INSERT INTO facts_fts (facts_fts, rank) VALUES ('secure-delete', ${on})`),
  );
  // Whether a term is common is asked of its (COMMON_DOCS + 1)th fact alone, which costs half of
  // counting up to it; only a rare term is counted. Every term of a query is asked in one
  // statement: a brief's query holds a dozen words, most in no fact at all, and a statement per
  // question per word cost more than the questions.
  const docsOfEach = db
    .prepare<[string], [number, number]>(
      `SELECT CAST(j.key AS INTEGER), CASE
         WHEN EXISTS (SELECT 1 FROM facts_fts WHERE facts_fts MATCH j.value LIMIT 1 OFFSET ${COMMON_DOCS})
         THEN ${COMMON_DOCS + 1}
         ELSE (SELECT count(*) FROM (SELECT 1 FROM facts_fts WHERE facts_fts MATCH j.value LIMIT ${COMMON_DOCS + 1}))
       END
       FROM json_each(?) j`,
    )
    .raw(true);
  /** How many live facts hold each expression, counted up to COMMON_DOCS + 1, in their order. */
  const termCounts = keptTermCounts(db, (expressions) => {
    const counts = new Array<number>(expressions.length).fill(0);
    for (const [index, n] of docsOfEach.all(JSON.stringify(expressions))) counts[index] = n;
    return counts;
  });
  const docsOf = termCounts.counts;
  const ranked = db.prepare<[string, number], { seq: number; rank: number }>(
    `SELECT rowid AS seq, ${BM25} AS rank FROM facts_fts WHERE facts_fts MATCH ? ORDER BY rank LIMIT +?`,
  );
  const newest = db.prepare<[string, number], { seq: number }>(
    "SELECT rowid AS seq FROM facts_fts WHERE facts_fts MATCH ? ORDER BY rowid DESC LIMIT +?",
  );
  // Candidates come back as arrays: better-sqlite3 builds a keyed object per row at a cost that
  // was most of loading fifty candidates; naming the columns here is several times cheaper.
  const bySeqs = db
    .prepare<[string], unknown[]>(
      `SELECT f.seq, ${F_COLUMNS} FROM json_each(?) j JOIN facts f ON f.seq = j.value WHERE f.superseded_by IS NULL`,
    )
    .raw(true);
  const bySeqsTopic = db
    .prepare<[string, string], unknown[]>(
      `SELECT f.seq, ${F_COLUMNS} FROM facts f WHERE f.seq IN (SELECT value FROM json_each(?)) AND f.superseded_by IS NULL AND ${TOPIC_FILTER}`,
    )
    .raw(true);
  /** A candidate's values (seq, then COLUMNS in their order) as the row the mapper reads. */
  const named = (v: unknown[]): FactRow => ({
    id: v[1] as string,
    text: v[2] as string,
    topics: v[3] as string,
    author: v[4] as string,
    created_at: v[5] as string,
    last_seen_at: v[6] as string,
    seen_count: v[7] as number,
    superseded_by: v[8] as string | null,
    superseded_at: v[9] as string | null,
  });
  const rowsBySeq = (seqs: number[], topic: string | undefined): Map<number, FactRow> => {
    if (seqs.length === 0) return new Map();
    const list = JSON.stringify(seqs);
    const rows = topic === undefined ? bySeqs.all(list) : bySeqsTopic.all(list, topic);
    return new Map(rows.map((values) => [values[0] as number, named(values)]));
  };
  // What a caller's score reads of a candidate (the search's `keep`): making a JavaScript string
  // of every column of fifty candidates, and parsing their topics, cost more than finding them,
  // when a recall keeps ten of them. Whole rows are then loaded for those alone.
  const lightColumns = "f.seq, f.text, f.last_seen_at, f.seen_count";
  const lightBySeqs = db
    .prepare<[string], [number, string, string, number]>(
      `SELECT ${lightColumns} FROM json_each(?) j JOIN facts f ON f.seq = j.value WHERE f.superseded_by IS NULL`,
    )
    .raw(true);
  const lightBySeqsTopic = db
    .prepare<[string, string], [number, string, string, number]>(
      `SELECT ${lightColumns} FROM facts f WHERE f.seq IN (SELECT value FROM json_each(?)) AND f.superseded_by IS NULL AND ${TOPIC_FILTER}`,
    )
    .raw(true);
  const lightBySeq = (seqs: number[], topic: string | undefined) => {
    if (seqs.length === 0) return new Map<number, [number, string, string, number]>();
    const list = JSON.stringify(seqs);
    const rows = topic === undefined ? lightBySeqs.all(list) : lightBySeqsTopic.all(list, topic);
    return new Map(rows.map((values) => [values[0], values]));
  };

  /** The best candidates by the caller's score, then their whole rows. */
  const kept = (
    scored: readonly { seq: number; relevance: (text: string) => number }[],
    topic: string | undefined,
    keep: NonNullable<FactSearch["keep"]>,
  ): FactHit[] => {
    const light = lightBySeq(
      scored.map((s) => s.seq),
      topic,
    );
    const candidates = scored.flatMap(({ seq, relevance }) => {
      const row = light.get(seq);
      return row ? [{ seq, relevance: relevance(row[1]), lastSeenAt: row[2], seenCount: row[3] }] : [];
    });
    const best = keepBest(candidates, keep);
    const rows = rowsBySeq(
      best.map((c) => c.seq),
      undefined,
    );
    return best.flatMap(({ seq, relevance, score }) => {
      const row = rows.get(seq);
      return row ? [{ fact: toRecord(row), relevance, score }] : [];
    });
  };

  /** Candidates for a worded query, each with a relevance in [0, 1]: bm25 and term coverage. */
  const matching = (
    terms: readonly string[],
    topic: string | undefined,
    limit: number,
    keep: FactSearch["keep"],
  ): FactHit[] => {
    const counts = docsOf(terms.map((term) => withTopic(ftsString(term), topic)));
    const docs = terms.map((term, index) => ({ term, n: counts[index] ?? 0 }));
    const present = docs.filter((d) => d.n > 0);
    if (present.length === 0) return [];
    const rare = present.filter((d) => d.n <= COMMON_DOCS).sort((a, b) => a.n - b.n);
    let scored: { seq: number; bm25: number }[];
    if (rare.length > 0) {
      const chosen: string[] = [];
      let total = 0;
      for (const d of rare) {
        if (chosen.length > 0 && total + d.n > RANKED_DOCS) break;
        chosen.push(d.term);
        total += d.n;
      }
      scored = ranked
        .all(withTopic(ftsExpression(chosen), topic), limit)
        .map((row) => ({ seq: row.seq, bm25: -row.rank }));
    } else {
      const all = newest.all(
        withTopic(
          ftsExpression(
            present.map((d) => d.term),
            "AND",
          ),
          topic,
        ),
        limit,
      );
      const some =
        all.length >= limit
          ? []
          : newest.all(withTopic(ftsExpression(present.map((d) => d.term)), topic), limit);
      const seen = new Set<number>();
      scored = [...all, ...some]
        .filter((row) => !seen.has(row.seq) && seen.add(row.seq))
        .map((row) => ({ seq: row.seq, bm25: 0 }));
    }
    const best = Math.max(0, ...scored.map((s) => s.bm25));
    const stems = stemsOf(terms);
    const relevance = (bm25: number, text: string) =>
      0.75 * (best > 0 ? bm25 / best : 0) + 0.25 * coverage(text, stems);
    if (keep) {
      return kept(
        scored.map(({ seq, bm25 }) => ({ seq, relevance: (text: string) => relevance(bm25, text) })),
        topic,
        keep,
      );
    }
    const rows = rowsBySeq(
      scored.map((s) => s.seq),
      topic,
    );
    return scored.flatMap(({ seq, bm25 }) => {
      const row = rows.get(seq);
      if (!row) return [];
      return [{ fact: toRecord(row), relevance: relevance(bm25, row.text) }];
    });
  };
  const recentAll = db.prepare<[number], FactRow>(
    `SELECT ${COLUMNS} FROM facts WHERE superseded_by IS NULL ORDER BY last_seen_at DESC, seq DESC LIMIT +?`,
  );
  const recentTopic = db.prepare<[string, number], FactRow>(
    `SELECT ${F_COLUMNS} FROM facts f WHERE f.superseded_by IS NULL AND ${TOPIC_FILTER}
     ORDER BY f.last_seen_at DESC, f.seq DESC LIMIT +?`,
  );
  const topics = db.prepare<[], { topic: string; count: number }>(
    `SELECT json_each.value AS topic, COUNT(*) AS count FROM facts, json_each(facts.topics)
     WHERE facts.superseded_by IS NULL GROUP BY json_each.value ORDER BY count DESC, topic`,
  );
  // The window counts the groups, so one statement gives the page and how many topics there are.
  const topTopics = db.prepare<[number], { topic: string; count: number; total: number }>(
    `SELECT json_each.value AS topic, COUNT(*) AS count, COUNT(*) OVER () AS total FROM facts, json_each(facts.topics)
     WHERE facts.superseded_by IS NULL GROUP BY json_each.value ORDER BY count DESC, topic LIMIT +?`,
  );

  // FTS5 keeps one row in its `_idx` table per leaf page of each segment: counting distinct
  // segments reads a few thousand small rows (well under a millisecond at a million facts).
  const segments = db.prepare<[], { n: number }>("SELECT count(DISTINCT segid) AS n FROM facts_fts_idx");
  const optimize = db.prepare("INSERT INTO facts_fts (facts_fts) VALUES ('optimize')");

  return {
    async insert(fact, at) {
      termCounts.wrote();
      const { seq, id } = nextId();
      insert.run(seq, id, fact.text, fact.norm, JSON.stringify(fact.topics), fact.author, at, at);
      return toRecord(byId.get(id) as FactRow);
    },
    async insertMany(facts, at) {
      termCounts.wrote();
      const inserted: FactRecord[] = [];
      for (let start = 0; start < facts.length; start += INSERT_CHUNK) {
        const { seq } = nextId();
        const chunk = facts.slice(start, start + INSERT_CHUNK);
        const rows = chunk.map((fact, i) => [
          seq + i,
          fact.text,
          fact.norm,
          JSON.stringify(fact.topics),
          fact.author,
        ]);
        insertChunk.run(at, at, JSON.stringify(rows));
        for (const row of chunkRows.all(seq, seq + chunk.length - 1)) inserted.push(toRecord(row));
      }
      return inserted;
    },
    async byId(id) {
      const row = byId.get(id);
      return row ? toRecord(row) : undefined;
    },
    async liveByNorm(norm) {
      const row = liveByNorm.get(norm);
      return row ? toRecord(row) : undefined;
    },
    async liveByNorms(norms) {
      return new Map(liveByNorms.all(JSON.stringify(norms)).map((row) => [row.norm, toRecord(row)]));
    },
    async supersededByNorms(norms) {
      return new Map(supersededByNorms.all(JSON.stringify(norms)).map((row) => [row.norm, toRecord(row)]));
    },
    async reinforce(id, topicList, at, counted) {
      termCounts.wrote();
      reinforce.run(counted ? 1 : 0, at, JSON.stringify(topicList), id);
      return toRecord(byId.get(id) as FactRow);
    },
    async supersede(id, by, at) {
      termCounts.wrote();
      supersede.run(by, at, id);
    },
    async delete(id) {
      termCounts.wrote();
      // A fact is deleted for good when it must not stay (a leaked secret): its bytes are
      // overwritten, not just unlinked, in the table's pages and in the full-text index, whose
      // segments otherwise keep its words until they are merged.
      db.pragma("secure_delete = ON");
      ftsSecureDelete[1]?.run();
      try {
        remove.run(id);
      } finally {
        ftsSecureDelete[0]?.run();
        db.pragma("secure_delete = OFF");
      }
    },
    async restoreReplacedBy(id) {
      termCounts.wrote();
      const restored = restoreReplaced.all(id);
      for (const fact of restored) reindex.run(fact.seq, fact.text, fact.topics);
      return restored.map((fact) => fact.id);
    },
    async handOverReplaced(id, by) {
      handOver.run(by, id);
    },
    async search({ terms, topic, limit, keep }): Promise<FactHit[]> {
      if (terms.length > 0) return matching(terms, topic, limit, keep);
      const rows = topic === undefined ? recentAll.all(limit) : recentTopic.all(topic, limit);
      return rows.map((row) => ({ fact: toRecord(row), relevance: 0 }));
    },
    async topics() {
      return topics.all();
    },
    async topTopics(limit) {
      const rows = topTopics.all(limit);
      return { topics: rows.map(({ topic, count }) => ({ topic, count })), total: rows[0]?.total ?? 0 };
    },
    async compactIndex(maxSegments) {
      const pieces = segments.get()?.n ?? 0;
      if (pieces <= maxSegments) return 0;
      optimize.run();
      return pieces;
    },
  };
}
