import { describe, expect, it } from "vitest";
import { contractStores, storeForSuite } from "../helpers/contract-stores.js";
import { newTask } from "../helpers/new-task.js";

/**
 * The store contract for the read paths at scale: facts loaded in bulk are exactly the facts
 * `insert` writes, and findings are found for any number of scopes and for a task's children.
 * Both stores must agree exactly.
 */
const IMPLEMENTATIONS = contractStores("bulk");

const AT = "2026-01-01T00:00:00.000Z";
const journal = { at: AT, actor: "owner", action: "test.write", subject: "s", data: {} };
const fact = (text: string, topics: string[] = ["store"]) => ({
  text,
  norm: text.toLowerCase(),
  topics,
  author: "owner",
});
const task = (title: string, parentId: string | null) => newTask(title, { parentId, priority: "should" });

describe.each(IMPLEMENTATIONS)("bulk and scale store contract: $name", ({ create }) => {
  const store = storeForSuite(create);

  it("loads facts in bulk exactly as insert writes them, ids following on, all recalled", async () => {
    const bulk = Array.from({ length: 2_100 }, (_, i) => fact(`bulk fact ${i} about quokka ${i % 7}`));
    const counted = await store.write(async (tx) => {
      await tx.facts.insert(fact("a single fact about wombats"), AT);
      const inserted = await tx.facts.insertMany(bulk, AT);
      await tx.facts.insert(fact("another single fact about wombats", ["other"]), AT);
      await tx.journal.append(journal);
      return inserted;
    });
    // The records returned are the rows written, in order, ids following on.
    expect(counted.map((f) => f.id)).toEqual(bulk.map((_, i) => `F-${i + 2}`));
    expect(counted.map((f) => f.text)).toEqual(bulk.map((f) => f.text));
    const seen = await store.read(async (tx) => ({
      first: await tx.facts.byId("F-2"),
      last: await tx.facts.byId("F-2101"),
      after: await tx.facts.byId("F-2102"),
      hits: await tx.facts.search({ terms: ["quokka"], limit: 3_000 }),
      topics: await tx.facts.topics(),
    }));
    expect(seen.first).toEqual({
      id: "F-2",
      text: "bulk fact 0 about quokka 0",
      topics: ["store"],
      author: "owner",
      createdAt: AT,
      lastSeenAt: AT,
      seenCount: 1,
      supersededBy: null,
      supersededAt: null,
    });
    expect(seen.last?.text).toBe("bulk fact 2099 about quokka 6");
    expect(seen.after?.text).toBe("another single fact about wombats");
    expect(seen.hits).toHaveLength(2_100);
    expect(seen.topics).toEqual([
      { topic: "store", count: 2_101 },
      { topic: "other", count: 1 },
    ]);
  });

  it("refuses a bulk fact that restates a live one, keeping nothing of the write", async () => {
    const write = store.write(async (tx) => {
      await tx.facts.insertMany([fact("a fresh fact"), fact("a single fact about wombats")], AT);
      await tx.journal.append(journal);
    });
    await expect(write).rejects.toThrow();
    const hits = await store.read((tx) => tx.facts.search({ terms: ["fresh"], limit: 5 }));
    expect(hits).toEqual([]);
  });

  it("finds findings for 150 scopes, and for a task's children without its grandchildren", async () => {
    const { parent, children } = await store.write(async (tx) => {
      const root = await tx.tasks.insert(task("the epic", null), AT);
      const kids = [];
      for (let n = 1; n <= 150; n++) kids.push(await tx.tasks.insert(task(`child ${n}`, root.id), AT));
      const grandchild = await tx.tasks.insert(task("a grandchild", kids[0]?.id ?? null), AT);
      await tx.tasks.update(kids[1]?.id ?? "", { status: "done" }, AT);
      await tx.notes.insert(
        {
          scope: `task:${grandchild.id}`,
          author: "owner",
          body: { kind: "finding", text: "found on the grandchild", severity: "major", trust: "confirmed" },
        },
        AT,
      );
      await tx.notes.insert(
        {
          scope: "workspace",
          author: "owner",
          body: { kind: "finding", text: "found in the workspace", severity: "minor", trust: "refuted" },
        },
        AT,
      );
      for (const [n, severity] of [
        [149, "minor"],
        [0, "major"],
        [75, "moderate"],
      ] as const) {
        await tx.notes.insert(
          {
            scope: `task:${kids[n]?.id}`,
            author: "owner",
            body: { kind: "finding", text: `found on child ${n + 1}`, severity, trust: "unverified" },
          },
          AT,
        );
      }
      await tx.journal.append(journal);
      return { parent: root.id, children: kids.map((k) => k.id) };
    });
    const seen = await store.read(async (tx) => ({
      findings: await tx.notes.findings(
        children.map((id) => `task:${id}`),
        2,
      ),
      ofChildren: await tx.notes.findings(["workspace", `task:${children[0]}`], 10, parent),
      childrenOnly: await tx.notes.findings([], 10, parent),
      ofLeaf: await tx.notes.findings([], 10, children[2] ?? ""),
    }));
    const texts = (notes: typeof seen.findings) => notes.map((n) => n.body.kind === "finding" && n.body.text);
    expect(texts(seen.findings)).toEqual(["found on child 1", "found on child 76"]);
    // A scope both listed and a child's counts once; the grandchild's finding is not a child's.
    expect(texts(seen.ofChildren)).toEqual([
      "found on child 1",
      "found on child 76",
      "found on child 150",
      "found in the workspace",
    ]);
    expect(texts(seen.childrenOnly)).toEqual(["found on child 1", "found on child 76", "found on child 150"]);
    expect(seen.ofLeaf).toEqual([]);
  });

  it("finds superseded facts by normal form, the one superseded last per form, long forms too", async () => {
    // Past a PostgreSQL btree entry's bound (2,704 bytes): the index over it must not refuse it.
    const long = `superseded ${"é".repeat(3_900)}`;
    const ids = await store.write(async (tx) => {
      const a = await tx.facts.insert(fact("the gateway listens on 8080"), AT);
      const b = await tx.facts.insert(fact("the gateway listens on 9090"), AT);
      await tx.facts.supersede(a.id, b.id, "2026-01-02T00:00:00.000Z");
      // The same text stated again and superseded later: that one is found.
      const c = await tx.facts.insert(fact("the gateway listens on 8080"), AT);
      await tx.facts.supersede(c.id, b.id, "2026-01-03T00:00:00.000Z");
      const d = await tx.facts.insert(fact(long), AT);
      await tx.facts.supersede(d.id, b.id, "2026-01-04T00:00:00.000Z");
      await tx.journal.append(journal);
      return { b: b.id, c: c.id, d: d.id };
    });
    const found = await store.read((tx) =>
      tx.facts.supersededByNorms([
        "the gateway listens on 8080",
        "the gateway listens on 9090",
        long.toLowerCase(),
      ]),
    );
    expect([...found.entries()].map(([norm, f]) => [norm.slice(0, 30), f.id])).toEqual(
      expect.arrayContaining([
        ["the gateway listens on 8080", ids.c],
        [long.toLowerCase().slice(0, 30), ids.d],
      ]),
    );
    expect(found.size).toBe(2);
    expect(found.get("the gateway listens on 8080")?.supersededBy).toBe(ids.b);
  });
});
