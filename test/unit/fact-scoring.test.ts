import { describe, expect, it } from "vitest";
import { coverage, keepBest, stemsOf } from "../../src/store/sqlite/fact-rows.js";

/** The plain definitions both fast paths must agree with. */
const fold = (text: string) =>
  text
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase();
function coverageByWords(text: string, stems: readonly string[]): number {
  if (stems.length === 0) return 0;
  const words = fold(text).split(/[^\p{L}\p{N}]+/u);
  return stems.filter((stem) => words.some((word) => word.startsWith(stem))).length / stems.length;
}

describe("fact scoring", () => {
  const texts = [
    "Enable WAL mode before the bulk load; cache_size=64MB.",
    "re-cache the retries (retry-after: 10s) at T-1400",
    "Der Café-Cache läuft über naïve Prüfungen",
    "caches",
    "",
    "xcache 1400x 14 00 pass-through PASSED",
    "tab\tseparated\nlines, and_underscores_here",
  ];
  const queries = [
    ["cache", "retries", "1400", "pass"],
    ["café", "prüfungen", "naïve"],
    ["a-b", "under_scores", "wal"],
    ["t", "14", "lines"],
  ];
  it("finds the same stems at word starts as splitting the text into words", () => {
    for (const terms of queries) {
      const stems = stemsOf(terms);
      for (const text of texts)
        expect(coverage(text, stems), `${text} / ${terms}`).toBe(coverageByWords(text, stems));
    }
  });

  it("keeps the first `count` of a stable sort by score, ties in candidate order", () => {
    const candidates = [0.5, 0.9, 0.5, 0.1, 0.9, 0.5, 0.7, 0.9].map((relevance, seq) => ({
      seq,
      relevance,
      lastSeenAt: "2026-01-01T00:00:00.000Z",
      seenCount: 1,
    }));
    for (const count of [0, 1, 3, 5, 8, 20]) {
      const keep = { count, score: (c: { relevance: number }, best: number) => c.relevance / best };
      const sorted = candidates
        .map((c) => ({ ...c, score: keep.score(c, 0.9) }))
        .sort((a, b) => b.score - a.score)
        .slice(0, count);
      expect(keepBest(candidates, keep)).toEqual(sorted);
    }
  });
});
