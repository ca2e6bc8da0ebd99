import type { FactCandidate, FactRecord, FactSearch } from "../knowledge.js";

/** The facts table's row as both stores read it (the PostgreSQL store adds `seq` to its reads). */
export interface FactRow {
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

export const FACT_COLUMNS =
  "id, text, topics, author, created_at, last_seen_at, seen_count, superseded_by, superseded_at";

export function toFactRecord(row: FactRow): FactRecord {
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
 * A term found in more facts than this says little about any of them, and ranking every one of
 * its facts by bm25 costs time proportional to how common it is. Rare terms are ranked by bm25;
 * common ones only add to the coverage of facts the rare ones found (or, when every term is
 * common, pick the newest facts that hold all of them). Both stores use the same thresholds.
 */
export const COMMON_DOCS = 1_000;
/** Rare terms are ranked together while their facts add up to at most this many. */
export const RANKED_DOCS = 1_500;

/** Lower case without accents; plain ASCII (most facts) has nothing to decompose. */
const foldAccents = (text: string) =>
  /^\p{ASCII}*$/u.test(text)
    ? text.toLowerCase()
    : text
        .normalize("NFKD")
        .replace(/\p{M}+/gu, "")
        .toLowerCase();

/** Each query term's stem (a rough match of what porter does), folded once per query. */
export const stemsOf = (terms: readonly string[]) =>
  terms.map((term) => foldAccents(term).slice(0, Math.max(3, term.length - 2)));

const ASCII_WORD_CHARS = /^[a-z0-9]+$/;
/** Whether every stem is plain ASCII letters and digits (cached per stem list: a search's own). */
const plainStems = new WeakMap<readonly string[], boolean>();
const isWordChar = (code: number) => (code >= 97 && code <= 122) || (code >= 48 && code <= 57);

/**
 * Whether lower-case ASCII `text` holds `stem` at the start of a word: in ASCII, the words the
 * general path splits out are exactly the runs of [a-z0-9], so this is the same answer without
 * building them.
 */
function heldAtWordStart(text: string, stem: string): boolean {
  for (let at = text.indexOf(stem); at !== -1; at = text.indexOf(stem, at + 1)) {
    if (at === 0 || !isWordChar(text.charCodeAt(at - 1))) return true;
  }
  return false;
}

/** The share of query stems (from `stemsOf`) a fact's text holds at the start of one of its words. */
export function coverage(text: string, stems: readonly string[]): number {
  if (stems.length === 0) return 0;
  let plain = plainStems.get(stems);
  if (plain === undefined) {
    plain = stems.every((stem) => ASCII_WORD_CHARS.test(stem));
    plainStems.set(stems, plain);
  }
  // Most facts are plain ASCII: their stems are found in place (a recall scores fifty texts).
  if (plain && /^\p{ASCII}*$/u.test(text)) {
    const lower = text.toLowerCase();
    let held = 0;
    for (const stem of stems) if (heldAtWordStart(lower, stem)) held++;
    return held / stems.length;
  }
  const words = foldAccents(text).split(/[^\p{L}\p{N}]+/u);
  const held = stems.filter((stem) => words.some((word) => word.startsWith(stem)));
  return held.length / stems.length;
}

/**
 * A search's `keep`, the same in both stores: score every candidate, best first (a stable sort:
 * ties keep the candidates' order), the first `count` of them.
 */
export function keepBest<C extends FactCandidate>(
  candidates: readonly C[],
  keep: NonNullable<FactSearch["keep"]>,
): (C & { score: number })[] {
  let best = 0;
  for (const candidate of candidates) if (candidate.relevance > best) best = candidate.relevance;
  // The first `count` of a stable sort by score, without sorting all: each candidate goes in
  // after every kept one that scores at least as much, so ties keep the candidates' order.
  const kept: (C & { score: number })[] = [];
  for (const candidate of candidates) {
    const score = keep.score(candidate, best);
    let at = kept.length;
    while (at > 0 && (kept[at - 1] as { score: number }).score < score) at--;
    if (at < keep.count) {
      kept.splice(at, 0, { ...candidate, score });
      if (kept.length > keep.count) kept.pop();
    }
  }
  return kept;
}
