import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { blendScore } from "../../src/domains/knowledge/memory.js";
import type { FactSearch } from "../../src/store/knowledge.js";
import type { Store } from "../../src/store/store.js";
import { contractStores } from "../helpers/contract-stores.js";
import { scratchDir } from "../helpers/workspace.js";

/**
 * The store contract for a search's `keep`: ranking the candidates by the caller's score inside
 * the store (where SQLite loads whole rows for the kept alone) answers exactly what ranking every
 * whole candidate afterwards answers: the same facts, in the same order, with the same scores.
 */
const IMPLEMENTATIONS = contractStores("keep");

const NOW = "2026-06-01T00:00:00.000Z";
const WORDS = ["redis", "kafka", "wombat", "quokka", "staging", "billing", "ledger"];

describe.each(IMPLEMENTATIONS)("fact search keep store contract: $name", ({ create }) => {
  let scratch: { dir: string; cleanup: () => void };
  let store: Store;
  const write = (work: Parameters<Store["write"]>[0]) =>
    store.write(async (tx) => {
      const result = await work(tx);
      await tx.journal.append({ at: NOW, actor: "owner", action: "test.write", subject: "s", data: {} });
      return result;
    });

  beforeAll(async () => {
    scratch = scratchDir();
    store = create(scratch.dir);
    // Facts first seen months apart, some seen again later and more often, a few superseded:
    // recency and reinforcement reorder what relevance alone would rank.
    await write(async (tx) => {
      for (let i = 0; i < 90; i++) {
        const text = `fact ${i}: ${WORDS[i % 7]} talks to ${WORDS[(i * 3 + 1) % 7]} near ${WORDS[(i * 5 + 2) % 7]}`;
        const at = `2026-0${1 + (i % 5)}-1${i % 10}T00:00:00.000Z`;
        const fact = await tx.facts.insert(
          { text, norm: text, topics: [WORDS[i % 3] as string], author: "owner" },
          at,
        );
        for (let seen = 0; seen < i % 4; seen++)
          await tx.facts.reinforce(fact.id, fact.topics, `2026-05-2${seen}T00:00:00.000Z`, true);
        if (i % 11 === 0) await tx.facts.supersede(fact.id, "F-none", NOW);
      }
    });
  });
  afterAll(async () => {
    await store.close();
    scratch.cleanup();
  });

  const score = (candidate: { relevance: number; lastSeenAt: string; seenCount: number }, best: number) =>
    blendScore(candidate.relevance, best, candidate, NOW);

  /** What a caller computes from every whole candidate: the reference `keep` must match. */
  async function rankedAfterwards(search: FactSearch, count: number) {
    const hits = await store.read((tx) => tx.facts.search(search));
    const best = Math.max(0, ...hits.map((hit) => hit.relevance));
    return hits
      .map((hit) => ({
        fact: hit.fact,
        relevance: hit.relevance,
        score: score({ ...hit.fact, ...hit }, best),
      }))
      .sort((a, b) => b.score - a.score)
      .slice(0, count);
  }

  it("keeps the same facts, in the same order, with the same scores, as ranking afterwards", async () => {
    const searches: FactSearch[] = [
      { terms: ["redis"], limit: 50 },
      { terms: ["redis", "kafka"], limit: 50 },
      { terms: ["wombat", "staging", "ledger"], limit: 20 },
      { terms: ["quokka"], topic: "kafka", limit: 50 },
      { terms: ["talks", "near"], limit: 50 },
      { terms: ["absent"], limit: 50 },
    ];
    let compared = 0;
    for (const search of searches) {
      for (const count of [1, 5, 10]) {
        const expected = await rankedAfterwards(search, count);
        const kept = await store.read((tx) => tx.facts.search({ ...search, keep: { count, score } }));
        expect(kept).toEqual(expected);
        expect(kept.length).toBeLessThanOrEqual(count);
        expect(kept.every((hit) => hit.fact.supersededBy === null)).toBe(true);
        compared += kept.length;
      }
    }
    // The comparison is not vacuous: most searches found facts to keep.
    expect(compared).toBeGreaterThan(40);
  });

  it("ranks by the caller's score, not by relevance alone", async () => {
    const byRecency = await store.read((tx) =>
      tx.facts.search({
        terms: ["redis"],
        limit: 50,
        keep: { count: 3, score: (candidate) => Date.parse(candidate.lastSeenAt) },
      }),
    );
    const seen = byRecency.map((hit) => hit.fact.lastSeenAt);
    expect(seen).toEqual([...seen].sort().reverse());
    expect(byRecency.map((hit) => hit.score)).toEqual(seen.map((at) => Date.parse(at)));
  });
});
