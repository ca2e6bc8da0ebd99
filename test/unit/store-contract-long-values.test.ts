import { describe, expect, it } from "vitest";
import { contractStores, journaledWrite, storeForSuite } from "../helpers/contract-stores.js";
import { newTask } from "../helpers/new-task.js";

/**
 * Values within cairn's limits are stored by both stores, whatever index covers their column:
 * PostgreSQL refuses a btree entry past 2,704 bytes (after compression), which SQLite has no
 * notion of, so a long fact (its normal form is unique among live facts) or many long labels
 * must not reach a plain btree there.
 */
const AT = "2026-06-01T00:00:00.000Z";

describe.each(contractStores("long"))("long values store contract: $name", ({ create }) => {
  const store = storeForSuite(create);
  const write = journaledWrite(store, AT);

  // Random text does not compress: a btree entry of it past 2,704 bytes is refused by PostgreSQL.
  const noise = (length: number, seed: number) => {
    let state = seed;
    let out = "";
    for (let i = 0; i < length; i++) {
      state = (state * 1103515245 + 12345) % 2147483648;
      out += i % 7 === 6 ? " " : "abcdefghijklmnopqrstuvwxyzабвгдеёжзийклмнопрстуф"[state % 49];
    }
    return out;
  };

  it("a fact of 4,000 incompressible characters is stored, found again by its text and kept unique", async () => {
    const text = noise(4000, 7);
    const fact = { text, norm: text, topics: [], author: "owner" };
    const made = await write(async (tx) => tx.facts.insert(fact, AT));
    const again = await store.read((tx) => tx.facts.liveByNorm(text));
    expect(again?.id).toBe((made as { id: string }).id);
    await expect(write(async (tx) => tx.facts.insert(fact, AT))).rejects.toThrow();
  });

  it("a task with 40 labels of 150 characters is stored and found by a label", async () => {
    const labels = Array.from({ length: 40 }, (_, i) => noise(150, i + 1).replaceAll(" ", "-"));
    await write(async (tx) => tx.tasks.insert(newTask("many labels", { labels }), AT));
    const found = await store.read((tx) => tx.tasks.list({ label: labels[39], limit: 10, offset: 0 }));
    expect(found.tasks.map((task) => task.title)).toEqual(["many labels"]);
  });

  it("a label filter matches whole labels: a label holding quotes, commas or a NUL never passes for another", async () => {
    const tagged = [
      ["quoted", ['x","urgent']],
      ["comma-ended", ["x,", "y"]],
      ["backslash", ["a\\", "urgent\\"]],
      ["nul", ["urgent\u0000"]],
      ["real", ["urgent"]],
    ] as const;
    for (const [title, labels] of tagged)
      await write(async (tx) => tx.tasks.insert(newTask(`label ${title}`, { labels: [...labels] }), AT));
    const titles = async (label: string) =>
      (await store.read((tx) => tx.tasks.list({ label, limit: 10, offset: 0 }))).tasks
        .map((task) => task.title)
        .filter((title) => title.startsWith("label "));
    expect(await titles("urgent")).toEqual(["label real"]);
    expect(await titles(",")).toEqual([]);
    expect(await titles('","y')).toEqual([]);
    expect(await titles("y")).toEqual(["label comma-ended"]);
    expect(await titles('x","urgent')).toEqual(["label quoted"]);
    expect(await titles("urgent\\")).toEqual(["label backslash"]);
    expect(await titles("urgent\u0000")).toEqual(["label nul"]);
  });

  it("U+0000 inside a fact splits words as in SQLite's tokenizer, its escape never read as a word", async () => {
    const text = "zulu\u0000yankee";
    await write(async (tx) => tx.facts.insert({ text, norm: text, topics: [], author: "owner" }, AT));
    const found = async (term: string) =>
      (await store.read((tx) => tx.facts.search({ terms: [term], limit: 10 }))).map((hit) => hit.fact.text);
    expect(await found("zulu")).toEqual([text]);
    expect(await found("yankee")).toEqual([text]);
    expect(await found("0yankee")).toEqual([]);
  });

  it("a topic holding U+0000 (or a backslash before u0000) leaves topics and topic filters working for every fact", async () => {
    const topics = ["nul\u0000topic", "back\\u0000slash", "plain"];
    for (const [i, topic] of topics.entries()) {
      const text = `topical fact ${i}`;
      await write(async (tx) => tx.facts.insert({ text, norm: text, topics: [topic], author: "owner" }, AT));
    }
    const listed = (await store.read((tx) => tx.facts.topics())).map((entry) => entry.topic);
    for (const topic of topics) expect(listed).toContain(topic);
    for (const [i, topic] of topics.entries()) {
      const hits = await store.read((tx) => tx.facts.search({ terms: ["topical"], topic, limit: 10 }));
      expect(hits.map((hit) => hit.fact.text)).toEqual([`topical fact ${i}`]);
      const recent = await store.read((tx) => tx.facts.search({ terms: [], topic, limit: 10 }));
      expect(recent.map((hit) => hit.fact.text)).toEqual([`topical fact ${i}`]);
    }
  });

  it("a topic or label holding a lone surrogate leaves topics, topic filters and label filters working for every fact", async () => {
    // An MCP client's JSON may carry "\ud800"; stored as JSON text it is that escape again, which
    // PostgreSQL's jsonb refuses. A pair stays one character; a half after a literal backslash
    // ("\\ud800" as text, then a lone low half) is a half too.
    const topics = [
      "half\ud800topic",
      "\\ud800\udc00 after a backslash",
      "pair \u{1F600}",
      "whole surrogate",
    ];
    for (const [i, topic] of topics.entries()) {
      const text = `surrogate fact ${i}`;
      await write(async (tx) => tx.facts.insert({ text, norm: text, topics: [topic], author: "owner" }, AT));
    }
    for (const [title, labels] of [
      ["half", ["half\udc00label", "urgent"]],
      ["whole", ["urgent"]],
    ] as const)
      await write(async (tx) => tx.tasks.insert(newTask(`surrogate ${title}`, { labels: [...labels] }), AT));
    const listed = (await store.read((tx) => tx.facts.topics())).map((entry) => entry.topic);
    expect(listed).toContain("whole surrogate");
    expect(listed).toContain("pair \u{1F600}");
    for (const i of [2, 3]) {
      const topic = topics[i] as string;
      const hits = await store.read((tx) => tx.facts.search({ terms: ["surrogate"], topic, limit: 10 }));
      expect(hits.map((hit) => hit.fact.text)).toEqual([`surrogate fact ${i}`]);
      const recent = await store.read((tx) => tx.facts.search({ terms: [], topic, limit: 10 }));
      expect(recent.map((hit) => hit.fact.text)).toEqual([`surrogate fact ${i}`]);
    }
    const labelled = await store.read((tx) => tx.tasks.list({ label: "urgent", limit: 10, offset: 0 }));
    expect(
      labelled.tasks.map((task) => task.title).filter((title) => title.startsWith("surrogate ")),
    ).toEqual(["surrogate half", "surrogate whole"]);
  });
});
