import { describe, expect, it } from "vitest";
import { OWNER } from "../../src/domains/identity/actor.js";
import { forget, MAX_TOPICS, recall, remember } from "../../src/domains/knowledge/memory.js";
import { rememberAll } from "../../src/domains/knowledge/remember-all.js";
import { supersede } from "../../src/domains/knowledge/supersede.js";
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

  it("refuses superseding another fact with a corrected text; superseding the correction brings it back", async () => {
    const old = await remember(store, OWNER, { text: "The cache is Redis" }, AT);
    const fixed = await supersede(store, OWNER, { id: old.fact.id, text: "The cache is Memcached" }, AT);
    const other = await remember(store, OWNER, { text: "Releases are tagged by hand" }, AT);

    const sideways = supersede(store, OWNER, { id: other.fact.id, text: "the cache is redis" }, AT);
    await expect(sideways).rejects.toThrow(`${old.fact.id} said this and was corrected by ${fixed.fact.id}`);
    // The correction's words, shown in `next`, come with who wrote them.
    await expect(sideways).rejects.toMatchObject({
      refusal: {
        next: expect.stringContaining(`${fixed.fact.id}, written by owner, says "The cache is Memcached"`),
      },
    });
    // Nothing of it was written: the other fact is still live, the correction alone answers.
    const hits = await recall(store, { query: "cache redis memcached releases tagged" }, AT);
    expect(hits.map((hit) => hit.fact.id).sort()).toEqual([fixed.fact.id, other.fact.id].sort());

    const back = await supersede(store, OWNER, { id: fixed.fact.id, text: "The cache is Redis" }, AT);
    expect((await recall(store, { query: "cache redis memcached" }, AT)).map((hit) => hit.fact.id)).toEqual([
      back.fact.id,
    ]);
  });

  it("keeps a fact corrected twice out of recall when the correction between is forgotten", async () => {
    const alice = { ...OWNER, id: "A-1", name: "alice", isOwner: false };
    const bob = { ...OWNER, id: "A-2", name: "bob", isOwner: false };
    const first = await remember(store, bob, { text: "Builds run on the old runner" }, AT);
    const second = await supersede(store, alice, { id: first.fact.id, text: "Builds run on runner two" }, AT);
    const third = await supersede(
      store,
      OWNER,
      { id: second.fact.id, text: "Builds run on runner three" },
      AT,
    );

    const { restored } = await forget(store, OWNER, second.fact.id, AT);
    expect(restored).toEqual([]);
    const hits = await recall(store, { query: "builds run runner" }, AT);
    expect(hits.map((hit) => hit.fact.id)).toEqual([third.fact.id]);
    // The first fact now counts as corrected by the third: forgetting that brings it back.
    await forget(store, OWNER, third.fact.id, AT);
    expect((await recall(store, { query: "builds run runner" }, AT)).map((hit) => hit.fact.id)).toEqual([
      first.fact.id,
    ]);
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
