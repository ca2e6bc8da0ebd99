import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FactSearch } from "../../src/store/knowledge.js";
import { openStore } from "../../src/store/open.js";
import type { Store, Tx } from "../../src/store/store.js";
import { scratchDir } from "../helpers/workspace.js";

/**
 * SQLite keeps how many facts hold each search word between searches (the word counts decide
 * which words rank a recall). Kept counts must never outlive a change to the index: whoever made
 * it (this connection, another process), committed or rolled back. Each search here is checked
 * against a connection opened afresh, which has nothing kept.
 */
const AT = "2026-01-01T00:00:00.000Z";

describe("kept word counts of the SQLite memory", () => {
  let scratch: { dir: string; cleanup: () => void };
  let db: string;
  let store: Store;
  let other: Store;
  let next = 0;

  const journaled = async (tx: Tx) =>
    tx.journal.append({ at: AT, actor: "owner", action: "test.write", subject: "s", data: {} });
  /** `count` facts holding `word`, written by `by` (a transaction of their own). */
  const add = (by: Store, word: string, count: number) =>
    by.write(async (tx) => {
      for (let i = 0; i < count; i++) {
        const text = `fact ${next++} about ${word}`;
        await tx.facts.insert({ text, norm: text, topics: [], author: "owner" }, AT);
      }
      await journaled(tx);
    });
  const search = (by: Store, terms: string[]) =>
    by.read((tx) => tx.facts.search({ terms, limit: 20 } satisfies FactSearch));
  /** What a connection that has kept nothing answers. */
  async function fresh(terms: string[]) {
    const reader = openStore(db);
    try {
      return await search(reader, terms);
    } finally {
      await reader.close();
    }
  }
  const ids = (hits: Awaited<ReturnType<typeof search>>) => hits.map((hit) => hit.fact.id);

  beforeAll(async () => {
    scratch = scratchDir();
    db = join(scratch.dir, "cairn.db");
    store = openStore(db, { create: true });
    other = openStore(db);
    // "kiwi" common (past the thousand facts that make a word common), "emu" rare.
    await add(store, "kiwi", 1_005);
    await add(store, "emu", 3);
  });
  afterAll(async () => {
    await other.close();
    await store.close();
    scratch.cleanup();
  });

  it("answers as a fresh connection does, again and again", async () => {
    const first = await search(store, ["kiwi", "emu"]);
    expect(ids(first).length).toBeGreaterThan(0);
    expect(await search(store, ["kiwi", "emu"])).toEqual(first);
    expect(first).toEqual(await fresh(["kiwi", "emu"]));
  });

  it("sees another connection's commit: a rare word become common changes the ranking", async () => {
    const before = await search(store, ["kiwi", "emu"]);
    await add(other, "emu", 1_000);
    const after = await search(store, ["kiwi", "emu"]);
    expect(after).toEqual(await fresh(["kiwi", "emu"]));
    expect(ids(after)).not.toEqual(ids(before));
  });

  it("sees its own uncommitted facts inside the writing transaction, and forgets them at rollback", async () => {
    const before = await search(store, ["wombat", "kiwi"]);
    const inside = await store
      .write(async (tx) => {
        for (let i = 0; i < 4; i++) {
          const text = `rolled back ${i} about wombat`;
          await tx.facts.insert({ text, norm: text, topics: [], author: "owner" }, AT);
        }
        const hits = await tx.facts.search({ terms: ["wombat", "kiwi"], limit: 20 });
        throw Object.assign(new Error("roll back"), { hits });
      })
      .catch((error: { hits: Awaited<ReturnType<typeof search>> }) => error.hits);
    expect(inside.filter((hit) => hit.fact.text.includes("wombat"))).toHaveLength(4);
    const after = await search(store, ["wombat", "kiwi"]);
    expect(after).toEqual(before);
    expect(after).toEqual(await fresh(["wombat", "kiwi"]));
  });

  it("sees its own committed facts", async () => {
    await search(store, ["quokka", "kiwi"]);
    await add(store, "quokka", 2);
    const after = await search(store, ["quokka", "kiwi"]);
    expect(after.filter((hit) => hit.fact.text.includes("quokka"))).toHaveLength(2);
    expect(after).toEqual(await fresh(["quokka", "kiwi"]));
  });
});
