import { describe, expect, it } from "vitest";
import { byRank } from "../../src/domains/knowledge/risks.js";
import type { Level } from "../../src/store/knowledge.js";
import { contractStores, journaledWrite, storeForSuite } from "../helpers/contract-stores.js";

/**
 * Lists any writer can grow are read a page at a time: the page each store returns is the one the
 * whole list, ordered as it is shown, would hold there, with how many there are in all.
 */
const AT = "2026-06-01T00:00:00.000Z";
const LEVELS: Level[] = ["high", "medium", "low"];

describe.each(contractStores("pages"))("paged lists store contract: $name", ({ create }) => {
  const store = storeForSuite(create);
  const write = journaledWrite(store, AT);

  it("pages the risks worst rank first, oldest first among equals, in scopes or all", async () => {
    await write(async (tx) => {
      for (let n = 0; n < 23; n++) {
        await tx.risks.insert(
          {
            scope: n % 4 === 0 ? "task:T-1" : "workspace",
            risk: `risk ${n}`,
            impact: LEVELS[n % 3] as Level,
            likelihood: LEVELS[(n * 7) % 3] as Level,
            indicators: "i".repeat(1000),
            action: "a",
            author: "owner",
          },
          AT,
        );
      }
    });
    const all = await store.read((tx) => tx.risks.list());
    // A brief asks for several scopes at once (its task, parents, the workspace), one twice.
    for (const scopes of [
      undefined,
      ["task:T-1"],
      ["workspace"],
      ["task:T-9"],
      ["task:T-1", "workspace", "task:T-1"],
    ]) {
      const ranked = byRank(scopes === undefined ? all : all.filter((risk) => scopes.includes(risk.scope)));
      for (const [limit, offset] of [
        [5, 0],
        [5, 5],
        [7, 20],
        [100, 0],
        [3, 30],
      ] as const) {
        const page = await store.read((tx) => tx.risks.page({ scopes, limit, offset }));
        expect(page.total, `${scopes}`).toBe(ranked.length);
        expect(page.risks, `${scopes} ${limit} ${offset}`).toEqual(ranked.slice(offset, offset + limit));
      }
    }
  });

  it("pages open, closed or all risks, and closes a risk once", async () => {
    const ids = await write(async (tx) => {
      const made: string[] = [];
      for (let n = 0; n < 6; n++) {
        const risk = await tx.risks.insert(
          {
            scope: "task:T-7",
            risk: `closable ${n}`,
            impact: LEVELS[n % 3] as Level,
            likelihood: "high",
            indicators: "i",
            action: "a",
            author: "A-1",
          },
          AT,
        );
        made.push(risk.id);
      }
      return made;
    });
    const closing = { at: "2026-06-02T00:00:00.000Z", by: "owner", because: "mitigated" };
    const closed = [ids[0], ids[3], ids[4]] as string[];
    for (const id of closed) expect(await write((tx) => tx.risks.close(id, closing))).toBe(true);
    expect(await write((tx) => tx.risks.close(ids[0] as string, { ...closing, by: "A-2" }))).toBe(false);
    expect(await write((tx) => tx.risks.close("RK-999", closing))).toBe(false);
    expect(await store.read((tx) => tx.risks.byId(ids[0] as string))).toMatchObject({ closed: closing });
    expect(await store.read((tx) => tx.risks.byId(ids[1] as string))).toMatchObject({ closed: null });
    const all = byRank(await store.read((tx) => tx.risks.list(["task:T-7"])));
    const scopes = ["task:T-7"];
    for (const [state, wanted] of [
      [undefined, all.filter((risk) => !closed.includes(risk.id))],
      ["open", all.filter((risk) => !closed.includes(risk.id))],
      ["closed", all.filter((risk) => closed.includes(risk.id))],
      ["all", all],
    ] as const) {
      const page = await store.read((tx) => tx.risks.page({ scopes, state, limit: 2, offset: 1 }));
      expect(page.total, `${state}`).toBe(wanted.length);
      expect(page.risks, `${state}`).toEqual(wanted.slice(1, 3));
    }
    const unscoped = await store.read((tx) => tx.risks.page({ state: "closed", limit: 100, offset: 0 }));
    expect(unscoped.risks.map((risk) => risk.id)).toEqual(
      all.filter((r) => closed.includes(r.id)).map((r) => r.id),
    );
  });

  it("pages the glossary in list order", async () => {
    await write(async (tx) => {
      for (const term of ["beta", "Alpha", "gamma", "Ärger", "delta", "epsilon", "zeta"])
        await tx.glossary.upsert({ term, meaning: `${term} means`, author: "owner", updatedAt: AT });
    });
    const all = await store.read((tx) => tx.glossary.list());
    for (const [limit, offset] of [
      [3, 0],
      [3, 3],
      [3, 6],
      [10, 9],
    ] as const) {
      const page = await store.read((tx) => tx.glossary.page({ limit, offset }));
      expect(page).toEqual({ entries: all.slice(offset, offset + limit), total: 7 });
    }
    // Removed by the spelling stored, once; the other terms stay.
    expect(await write((tx) => tx.glossary.remove("Ärger"))).toBe(true);
    expect(await write((tx) => tx.glossary.remove("Ärger"))).toBe(false);
    expect(await write((tx) => tx.glossary.remove("nothing"))).toBe(false);
    const left = await store.read((tx) => tx.glossary.list());
    expect(left.map((entry) => entry.term)).toEqual(
      all.map((entry) => entry.term).filter((t) => t !== "Ärger"),
    );
  });

  it("lists the most used topics of live facts, at most a limit of them, and how many there are", async () => {
    await write(async (tx) => {
      for (let n = 0; n < 12; n++) {
        const topics = ["shared", `own-${String(n).padStart(2, "0")}`, ...(n % 3 === 0 ? ["third"] : [])];
        await tx.facts.insert({ text: `fact ${n}`, norm: `fact ${n}`, topics, author: "owner" }, AT);
      }
    });
    const all = await store.read((tx) => tx.facts.topics());
    expect(all.slice(0, 2)).toEqual([
      { topic: "shared", count: 12 },
      { topic: "third", count: 4 },
    ]);
    for (const limit of [1, 3, 14, 100]) {
      const top = await store.read((tx) => tx.facts.topTopics(limit));
      expect(top).toEqual({ topics: all.slice(0, limit), total: 14 });
    }
  });

  it("pages the queues first added first, each with its step count and only the step at its cursor", async () => {
    const steps = (n: number) => [
      `first of q${n}`,
      '{"json": "as text"} \u0000 nul',
      'ünïcödé 🚀 \\ "quoted"',
      "last",
    ];
    await write(async (tx) => {
      for (let n = 0; n < 7; n++) await tx.queues.insert(`q${n}`, steps(n), AT);
      await tx.queues.setCursor("q1", 1);
      await tx.queues.setCursor("q2", 2);
      await tx.queues.setCursor("q3", 4);
    });
    const heads = [0, 1, 2, 3, 4, 5, 6].map((n) => {
      const cursor = [0, 1, 2, 4][n] ?? 0;
      return { name: `q${n}`, cursor, steps: 4, step: steps(n)[cursor] ?? null, createdAt: AT };
    });
    for (const [limit, offset] of [
      [3, 0],
      [3, 3],
      [3, 6],
      [5, 9],
    ] as const) {
      const page = await store.read((tx) => tx.queues.page({ limit, offset }));
      expect(page).toEqual({ queues: heads.slice(offset, offset + limit), total: 7 });
    }
  });
});
