import type Database from "better-sqlite3";
import type { FactHit, FactRecord, FactsRepo } from "../knowledge.js";

interface FactRow {
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
  "id, text, topics, author, created_at, last_seen_at, seen_count, superseded_by, superseded_at";
const F_COLUMNS = COLUMNS.split(", ")
  .map((column) => `f.${column}`)
  .join(", ");

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

/** Short words match too many facts as prefixes; only longer ones are widened to prefix matches. */
const PREFIX_MIN_LENGTH = 4;

/**
 * The FTS5 MATCH expression, built only from terms this function quotes itself: user text can
 * never inject FTS syntax (NEAR, *, column filters, unbalanced quotes) or reach SQL.
 */
export function ftsExpression(terms: readonly string[]): string {
  return terms
    .map((term) => {
      const quoted = `"${term.replaceAll('"', '""')}"`;
      return [...term].length >= PREFIX_MIN_LENGTH ? `${quoted}*` : quoted;
    })
    .join(" OR ");
}

/** Text weighs more than topics in relevance. */
const BM25 = "bm25(facts_fts, 1.0, 0.5)";
const TOPIC_FILTER = "EXISTS (SELECT 1 FROM json_each(f.topics) WHERE json_each.value = ?)";

export function sqliteFacts(db: Database.Database): FactsRepo {
  const nextSeq = db.prepare<[], { next: number }>("SELECT COALESCE(MAX(seq), 0) + 1 AS next FROM facts");
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
  const matchAll = db.prepare<[string, number], FactRow & { relevance: number }>(
    `SELECT ${F_COLUMNS}, -${BM25} AS relevance FROM facts_fts JOIN facts f ON f.seq = facts_fts.rowid
     WHERE facts_fts MATCH ? AND f.superseded_by IS NULL ORDER BY ${BM25} LIMIT ?`,
  );
  const matchTopic = db.prepare<[string, string, number], FactRow & { relevance: number }>(
    `SELECT ${F_COLUMNS}, -${BM25} AS relevance FROM facts_fts JOIN facts f ON f.seq = facts_fts.rowid
     WHERE facts_fts MATCH ? AND f.superseded_by IS NULL AND ${TOPIC_FILTER} ORDER BY ${BM25} LIMIT ?`,
  );
  const recentAll = db.prepare<[number], FactRow>(
    `SELECT ${COLUMNS} FROM facts WHERE superseded_by IS NULL ORDER BY last_seen_at DESC, seq DESC LIMIT ?`,
  );
  const recentTopic = db.prepare<[string, number], FactRow>(
    `SELECT ${F_COLUMNS} FROM facts f WHERE f.superseded_by IS NULL AND ${TOPIC_FILTER}
     ORDER BY f.last_seen_at DESC, f.seq DESC LIMIT ?`,
  );
  const topics = db.prepare<[], { topic: string; count: number }>(
    `SELECT json_each.value AS topic, COUNT(*) AS count FROM facts, json_each(facts.topics)
     WHERE facts.superseded_by IS NULL GROUP BY json_each.value ORDER BY count DESC, topic`,
  );

  return {
    async insert(fact, at) {
      const seq = nextSeq.get()?.next ?? 1;
      const id = `F-${seq}`;
      insert.run(seq, id, fact.text, fact.norm, JSON.stringify(fact.topics), fact.author, at, at);
      return toRecord(byId.get(id) as FactRow);
    },
    async byId(id) {
      const row = byId.get(id);
      return row ? toRecord(row) : undefined;
    },
    async liveByNorm(norm) {
      const row = liveByNorm.get(norm);
      return row ? toRecord(row) : undefined;
    },
    async reinforce(id, topicList, at) {
      reinforce.run(at, JSON.stringify(topicList), id);
      return toRecord(byId.get(id) as FactRow);
    },
    async supersede(id, by, at) {
      supersede.run(by, at, id);
    },
    async delete(id) {
      remove.run(id);
    },
    async search({ terms, topic, limit }): Promise<FactHit[]> {
      if (terms.length === 0) {
        const rows = topic === undefined ? recentAll.all(limit) : recentTopic.all(topic, limit);
        return rows.map((row) => ({ fact: toRecord(row), relevance: 0 }));
      }
      const expression = ftsExpression(terms);
      const rows =
        topic === undefined ? matchAll.all(expression, limit) : matchTopic.all(expression, topic, limit);
      return rows.map((row) => ({ fact: toRecord(row), relevance: row.relevance }));
    },
    async topics() {
      return topics.all();
    },
  };
}
