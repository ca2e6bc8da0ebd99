import type Database from "better-sqlite3";

/** Words whose counts are kept at most; past this the kept counts start over. */
const MAX_KEPT = 2_000;

/**
 * How many facts hold each search word, kept between searches for as long as the full-text
 * index stays as it is. A recall first asks, per word, whether it is common, which reads the
 * first thousand facts holding it: about 0.1 ms a common word at a million facts, asked again by
 * every recall and brief that uses the word, while the answer only changes when the index does.
 *
 * FTS5 rewrites its structure record (row 10 of its `_data` table) whenever a transaction changes
 * the index, from any connection, so that record read in the search's own transaction says
 * whether the kept counts still hold. A change this connection has made but not committed may
 * not be in that record yet, and one rolled back leaves it as it was, so once this connection
 * writes facts nothing is kept until the record moves again.
 */
export function keptTermCounts(
  db: Database.Database,
  count: (expressions: readonly string[]) => number[],
): { counts(expressions: readonly string[]): number[]; wrote(): void } {
  const structure = db.prepare<[], Buffer>("SELECT block FROM facts_fts_data WHERE id = 10").pluck();
  const kept = new Map<string, number>();
  let version: Buffer | undefined;
  let unflushed = false;
  return {
    counts(expressions) {
      const now = structure.get();
      if (!now || !version || !now.equals(version)) {
        kept.clear();
        version = now;
        unflushed = false;
      }
      if (unflushed || !version) return count(expressions);
      const missing = [...new Set(expressions.filter((expression) => !kept.has(expression)))];
      const counted = missing.length > 0 ? count(missing) : [];
      const fresh = new Map(missing.map((expression, index) => [expression, counted[index] ?? 0]));
      const answer = expressions.map((expression) => fresh.get(expression) ?? kept.get(expression) ?? 0);
      if (kept.size + fresh.size > MAX_KEPT) kept.clear();
      for (const [expression, n] of fresh) kept.set(expression, n);
      return answer;
    },
    wrote() {
      unflushed = true;
      kept.clear();
    },
  };
}
