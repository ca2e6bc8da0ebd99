import { describe, expect, it } from "vitest";
import { OWNER } from "../../src/domains/identity/actor.js";
import { MAX_TOPICS, recall, remember, supersede } from "../../src/domains/knowledge/memory.js";
import { rememberAll } from "../../src/domains/knowledge/remember-all.js";
import { RefusedError } from "../../src/kernel/outcome.js";
import { contractStores, storeForSuite } from "../helpers/contract-stores.js";

/**
 * A corrected fact stays corrected: restating the old text, alone or in a bulk load, is refused
 * naming the correction, on both stores, and nothing of a refused bulk load is written.
 */
const AT = "2026-03-01T00:00:00.000Z";

describe.each(contractStores("corrections"))("memory corrections: $name", ({ create }) => {
  const store = storeForSuite(create);

  it("refuses remember and rememberAll restating a corrected fact; the correction keeps recall", async () => {
    const old = await remember(store, OWNER, { text: "Deploys go out on Fridays" }, AT);
    const fixed = await supersede(store, OWNER, { id: old.fact.id, text: "Deploys go out on Tuesdays" }, AT);

    const single = remember(store, OWNER, { text: "deploys go out on fridays" }, AT);
    await expect(single).rejects.toBeInstanceOf(RefusedError);
    await expect(single).rejects.toThrow(`${old.fact.id} said this and was corrected by ${fixed.fact.id}`);

    const bulk = rememberAll(
      store,
      OWNER,
      [{ text: "A fresh fact about caching" }, { text: "Deploys go out on Fridays" }],
      AT,
    );
    await expect(bulk).rejects.toBeInstanceOf(RefusedError);
    const hits = await recall(store, { query: "deploys caching fridays" }, AT);
    expect(hits.map((hit) => hit.fact.id)).toEqual([fixed.fact.id]);

    // Restating the correction itself is a reinforcement, in bulk too.
    expect(await rememberAll(store, OWNER, [{ text: "Deploys go out on Tuesdays" }], AT)).toEqual({
      remembered: 0,
      reinforced: 1,
    });
  });

  it("adds a restatement's topics only up to the limit a new fact is held to, alone and in bulk", async () => {
    const topics = (from: number) => Array.from({ length: MAX_TOPICS }, (_, i) => `t${from + i}`);
    const first = await remember(store, OWNER, { text: "Queues drain at night", topics: topics(0) }, AT);
    const again = await remember(store, OWNER, { text: "queues drain at night", topics: topics(100) }, AT);
    expect(again.reinforced).toBe(true);
    expect(again.fact.topics).toEqual(first.fact.topics);
    await rememberAll(store, OWNER, [{ text: "Queues drain at night!", topics: topics(200) }], AT);
    const [hit] = await recall(store, { query: "queues drain night" }, AT);
    expect(hit?.fact.topics).toEqual(topics(0));
  });

  it("stores a fact that differs from another by an operator as a fact of its own", async () => {
    const cpp = await remember(store, OWNER, { text: "The engine builds as C++ 17" }, AT);
    const c = await remember(store, OWNER, { text: "The engine builds as C 17" }, AT);
    expect(c.reinforced).toBe(false);
    expect(c.fact.id).not.toBe(cpp.fact.id);
    expect((await remember(store, OWNER, { text: "the engine builds as c++17." }, AT)).fact.id).toBe(
      cpp.fact.id,
    );
  });
});
