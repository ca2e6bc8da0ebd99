import { describe, expect, it } from "vitest";
import { contractStores, storeForSuite } from "../helpers/contract-stores.js";

/**
 * The store contract for the memory index's upkeep: facts written one transaction at a time (as
 * `remember` writes them) leave SQLite's full-text index in pieces; compacting merges them into
 * one, reports how many there were, and every search answers exactly as before. PostgreSQL keeps
 * its index itself and has nothing to merge. Either store reports 0 once it is compact.
 */
/** SQLite keeps its full-text index in pieces; PostgreSQL has nothing to merge. */
const IMPLEMENTATIONS = contractStores("compact").map((store) => ({
  ...store,
  pieces: store.name === "sqlite",
}));

const AT = "2026-01-01T00:00:00.000Z";
const WORDS = ["redis", "kafka", "wombat", "quokka", "staging", "billing"];

describe.each(IMPLEMENTATIONS)("memory index upkeep store contract: $name", ({ pieces, create }) => {
  const store = storeForSuite(create);

  /** Compact as maintenance does: a merge is a write, so it is journaled. */
  const compact = (maxSegments: number) =>
    store.write(async (tx) => {
      const merged = await tx.facts.compactIndex(maxSegments);
      if (merged > 0)
        await tx.journal.append({
          at: AT,
          actor: "owner",
          action: "test.compact",
          subject: "facts",
          data: {},
        });
      return merged;
    });

  it("merges an index written fact by fact into one piece; searches answer the same", async () => {
    for (let i = 0; i < 40; i++) {
      const text = `fact ${i}: ${WORDS[i % 6]} talks to ${WORDS[(i * 5 + 1) % 6]} on port ${3000 + i}`;
      await store.write(async (tx) => {
        await tx.facts.insert({ text, norm: text, topics: [WORDS[i % 3] as string], author: "owner" }, AT);
        await tx.journal.append({ at: AT, actor: "owner", action: "test.write", subject: "s", data: {} });
      });
    }
    const searches = () =>
      store.read(async (tx) =>
        Promise.all([
          tx.facts.search({ terms: ["redis"], limit: 50 }),
          tx.facts.search({ terms: ["wombat", "staging"], limit: 5 }),
          tx.facts.search({ terms: ["quokka"], topic: "redis", limit: 50 }),
          tx.facts.search({ terms: ["3017"], limit: 5 }),
        ]),
      );
    const before = await searches();
    expect(before[0].length).toBeGreaterThan(5);
    expect(before[3].map((hit) => hit.fact.text)).toEqual(["fact 17: billing talks to wombat on port 3017"]);

    const merged = await compact(1);
    if (pieces) expect(merged).toBeGreaterThan(1);
    else expect(merged).toBe(0);
    expect(await searches()).toEqual(before);
    // Compact now: nothing to merge, nothing written.
    expect(await compact(1)).toBe(0);
    // Below the threshold the pieces are left as they are.
    const text = "one more fact about kafka";
    await store.write(async (tx) => {
      await tx.facts.insert({ text, norm: text, topics: [], author: "owner" }, AT);
      await tx.journal.append({ at: AT, actor: "owner", action: "test.write", subject: "s", data: {} });
    });
    expect(await compact(8)).toBe(0);
    if (pieces) expect(await compact(1)).toBe(2);
  });
});
