import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Store } from "../../src/store/store.js";
import { contractStores } from "../helpers/contract-stores.js";
import { newTask } from "../helpers/new-task.js";
import { scratchDir } from "../helpers/workspace.js";

/**
 * The store contract for the repositories added after the PostgreSQL store was first built
 * (agent runs and windows, journal filters, task orders, shortcut authors, risk ids, goal
 * contract history, the change signal, read-only opening): both stores must agree exactly.
 */
const IMPLEMENTATIONS = contractStores("newer");

const AT = "2026-01-01T00:00:00.000Z";
const event = (action: string, actor = "owner", subject = "s") => ({
  at: AT,
  actor,
  action,
  subject,
  data: {},
});
const task = (title: string, priority: "must" | "should" | "could") => newTask(title, { priority });
const run = (windowAt: string | null) => ({
  agent: "nightly",
  schedule: "daily",
  trigger: windowAt ? ("schedule" as const) : ("cli" as const),
  windowAt,
  supervisorPid: 42,
  supervisorHost: "build-1",
  supervisorStart: "boot-1:4242",
  deadlineAt: "2026-01-01T01:00:00.000Z",
  manifestPath: "/m.toml",
  manifestHash: "abc",
  logPath: null,
  identity: null,
});
const fields = (goal: string) => ({ goal, outcome: null, constraints: [], nonGoals: [], proofs: [] });

describe.each(IMPLEMENTATIONS)("newer store contract: $name", ({ create }) => {
  let scratch: { dir: string; cleanup: () => void };
  let store: Store;
  beforeAll(() => {
    scratch = scratchDir();
    store = create(scratch.dir);
  });
  afterAll(async () => {
    await store.close();
    scratch.cleanup();
  });

  it("records agent runs and windows: start, finish once, scheduled windows, marks once", async () => {
    const [scheduled, manual] = await store.write(async (tx) => {
      const a = await tx.agentRuns.start(run("2026-01-01T00:00:00Z"), AT);
      const b = await tx.agentRuns.start(run(null), AT);
      await tx.agentRuns.setPid(a.id, 1234);
      const end = { exitCode: 0, finishedAt: AT, durationMs: 5, stderrTail: "", reason: null };
      expect(await tx.agentRuns.finish(a.id, { status: "ok", ...end, logPath: "/logs/a.log" })).toBe(true);
      expect(await tx.agentRuns.finish(a.id, { status: "failed", ...end })).toBe(false);
      // A late supervisor names its log only where the row names none.
      await tx.agentRuns.keepLog(a.id, "/logs/late.log");
      await tx.agentRuns.keepLog(b.id, "/logs/b.log");
      expect(await tx.agentWindows.mark("nightly", "daily", "2026-01-02T00:00:00Z", "stale", AT)).toBe(true);
      expect(await tx.agentWindows.mark("nightly", "daily", "2026-01-02T00:00:00Z", "given_up", AT)).toBe(
        false,
      );
      expect(await tx.agentWindows.seen("nightly", "daily", AT)).toBe(true);
      expect(await tx.agentWindows.seen("nightly", "daily", "2027-01-01T00:00:00Z")).toBe(false);
      await tx.journal.append(event("agent.run"));
      return [a, b];
    });
    expect(scheduled?.id).toMatch(/^AR-\d+$/);
    const seen = await store.read(async (tx) => ({
      one: await tx.agentRuns.byId(scheduled?.id ?? ""),
      other: await tx.agentRuns.byId(manual?.id ?? ""),
      recent: (await tx.agentRuns.recent({ agent: "nightly", limit: 5 })).map((r) => r.id),
      windows: (await tx.agentRuns.scheduled("nightly", "daily", "2025-12-31T00:00:00Z")).map((r) => r.id),
      lastOk: (await tx.agentRuns.lastScheduledOk("nightly", "daily"))?.id,
      triggered: (await tx.agentRuns.lastTriggered("nightly"))?.id,
      running: (await tx.agentRuns.running()).map((r) => r.id),
      marks: await tx.agentWindows.marks("nightly", "daily", "2026-01-01T00:00:00Z"),
      firstSeen: await tx.agentWindows.firstSeen("nightly", "daily"),
    }));
    expect(seen.one).toMatchObject({
      status: "ok",
      pid: 1234,
      supervisorPid: 42,
      supervisorHost: "build-1",
      supervisorStart: "boot-1:4242",
      deadlineAt: "2026-01-01T01:00:00.000Z",
      logPath: "/logs/a.log",
      exitCode: 0,
      durationMs: 5,
    });
    expect(seen.other?.logPath).toBe("/logs/b.log");
    expect(seen.recent).toEqual([manual?.id, scheduled?.id]);
    expect(seen.windows).toEqual([scheduled?.id]);
    expect(seen.lastOk).toBe(scheduled?.id);
    expect(seen.triggered).toBe(manual?.id);
    expect(seen.running).toEqual([manual?.id]);
    expect(seen.marks).toEqual([{ windowAt: "2026-01-02T00:00:00Z", mark: "stale" }]);
    expect(seen.firstSeen).toBe(AT);
  });

  it("filters the journal by actor, action family, subject and id window", async () => {
    const ids = await store.write(async (tx) => [
      await tx.journal.append(event("task.add", "ann", "T-1")),
      await tx.journal.append(event("task.claim", "bob", "T-1")),
      await tx.journal.append(event("taskish", "ann", "T-2")),
      await tx.journal.append(event("note.add", "ann", "T-1")),
    ]);
    const [a, b, c, d] = ids as [number, number, number, number];
    const listed = await store.read(async (tx) => ({
      family: (await tx.journal.list({ action: "task.", limit: 10 })).map((e) => e.id),
      exact: (await tx.journal.list({ action: "taskish", limit: 10 })).map((e) => e.id),
      ann: (await tx.journal.list({ actor: "ann", subject: "T-1", limit: 10 })).map((e) => e.id),
      after: (await tx.journal.list({ afterId: a, limit: 2 })).map((e) => e.id),
      before: (await tx.journal.list({ beforeId: d, limit: 2 })).map((e) => e.id),
    }));
    expect(listed.family).toEqual([b, a]);
    expect(listed.exact).toEqual([c]);
    expect(listed.ann).toEqual([d, a]);
    expect(listed.after).toEqual([b, c]);
    expect(listed.before).toEqual([c, b]);
  });

  it("lists tasks in each order and caps the count past the page", async () => {
    await store.write(async (tx) => {
      await tx.tasks.insert(task("banana", "could"), AT);
      await tx.tasks.insert(task("Apple", "must"), AT);
      await tx.tasks.insert(task("cherry", "should"), AT);
      await tx.journal.append(event("task.add"));
    });
    const titles = (order?: "tree" | "priority" | "title" | "created") =>
      store.read(async (tx) =>
        (await tx.tasks.list({ order, limit: 10, offset: 0 })).tasks.map((t) => t.title),
      );
    expect(await titles()).toEqual(["banana", "Apple", "cherry"]);
    expect(await titles("priority")).toEqual(["Apple", "cherry", "banana"]);
    expect(await titles("title")).toEqual(["Apple", "banana", "cherry"]);
    expect(await titles("created")).toEqual(["cherry", "Apple", "banana"]);
    const page = await store.read((tx) => tx.tasks.list({ limit: 1, offset: 0 }));
    expect(page.total).toBe(3);
    expect(page.capped).toBeUndefined();
  });

  it("keeps shortcut authors and versions, RK risk ids and goal contract history", async () => {
    const out = await store.write(async (tx) => {
      const shortcut = { name: "lint", argv: ["npm", "run", "lint"], effect: "read" as const, roles: [] };
      await tx.shortcuts.upsert({ ...shortcut, summary: "lint", addedBy: "ann", version: 1 }, AT);
      await tx.shortcuts.upsert({ ...shortcut, summary: "lint v2", addedBy: "ann", version: 2 }, AT);
      const risk = await tx.risks.insert(
        {
          scope: "project",
          risk: "r",
          impact: "high",
          likelihood: "low",
          indicators: "",
          action: "",
          author: "ann",
        },
        AT,
      );
      const goal = await tx.goals.insertGoal(fields("first"), "owner", AT);
      const change = { goalId: goal.id, changedBy: "owner", at: AT, fields: ["goal"] };
      await tx.goals.insertContractChange({ ...change, before: fields("first"), after: fields("second") });
      await tx.journal.append(event("goal.amend"));
      return { risk, goal };
    });
    expect(out.risk.id).toMatch(/^RK-\d+$/);
    const read = await store.read(async (tx) => ({
      shortcut: await tx.shortcuts.byName("lint"),
      changes: await tx.goals.contractChanges(out.goal.id),
    }));
    expect(read.shortcut).toMatchObject({ addedBy: "ann", version: 2, summary: "lint v2", source: "store" });
    expect(read.changes).toEqual([
      {
        goalId: out.goal.id,
        changedBy: "owner",
        at: AT,
        fields: ["goal"],
        before: fields("first"),
        after: fields("second"),
      },
    ]);
  });

  it("redacts a text in the recorded briefs holding a marker, and only there", async () => {
    const text = (marker: string) => `\`\`\`quote ${marker} fact by bob\nthe key is k-123\n\`\`\``;
    const ids = await store.write(async (tx) => {
      const briefs = [];
      for (const marker of ["F-1", "F-12", "F-1"])
        briefs.push(
          await tx.briefs.insert(
            { task: "T-1", actor: "owner", budget: 9, hash: "h", text: text(marker) },
            AT,
          ),
        );
      const redacted = await tx.briefs.redact("quote F-1 fact by ", "\nthe key is k-123\n", "\n[gone]\n");
      await tx.journal.append(event("test.redact"));
      return { briefs: briefs.map((brief) => brief.id), redacted };
    });
    expect(ids.redacted.sort()).toEqual([ids.briefs[0], ids.briefs[2]].sort());
    const texts = await store.read(async (tx) =>
      Promise.all(ids.briefs.map(async (id) => (await tx.briefs.byId(id))?.text)),
    );
    expect(texts).toEqual([
      "```quote F-1 fact by bob\n[gone]\n```",
      text("F-12"),
      "```quote F-1 fact by bob\n[gone]\n```",
    ]);
  });

  it("redacts whole lines only, the text's end as a line's: never a line that goes on past the needle", async () => {
    const quoteOf = "\n```quote F-1 fact by bob\nk-123\n```";
    const texts = [
      `head${quoteOf}`,
      `head${quoteOf}\ntail`,
      `head${quoteOf}\u0060\u0060 more`,
      `head${quoteOf}x`,
    ];
    const ids = await store.write(async (tx) => {
      const briefs = [];
      for (const text of texts)
        briefs.push(
          (await tx.briefs.insert({ task: "T-1", actor: "owner", budget: 9, hash: "h", text }, AT)).id,
        );
      const redacted = await tx.briefs.redact("quote F-1 fact by ", `${quoteOf}\n`, "\n[gone]\n");
      await tx.journal.append(event("test.redact"));
      return { briefs, redacted };
    });
    expect(ids.redacted.sort()).toEqual(ids.briefs.slice(0, 2).sort());
    const after = await store.read(async (tx) =>
      Promise.all(ids.briefs.map(async (id) => (await tx.briefs.byId(id))?.text)),
    );
    expect(after).toEqual(["head\n[gone]", "head\n[gone]\ntail", texts[2], texts[3]]);
  });

  it("signals another handle's commit, and a read-only handle reads but never writes", async () => {
    const reader = create(scratch.dir, true);
    try {
      const heads: number[] = [];
      const before = reader.changes.version();
      const moved = new Promise<void>((resolve) => {
        const stop = reader.changes.subscribe((head) => {
          heads.push(head);
          if (heads.length === 2) {
            stop();
            resolve();
          }
        });
      });
      // The first report is the current head; wait for it before writing, so the second is ours.
      await expect.poll(() => heads.length, { timeout: 10_000 }).toBe(1);
      const written = await store.write((tx) => tx.journal.append(event("poke")));
      await moved;
      expect(heads[1]).toBe(written);
      await expect.poll(() => reader.changes.version(), { timeout: 10_000 }).not.toBe(before);
      expect((await reader.read((tx) => tx.journal.recent(1)))[0]?.id).toBe(written);
      await expect(reader.write((tx) => tx.journal.append(event("sneak")))).rejects.toThrow(/read-only/);
    } finally {
      await reader.close();
    }
  });
});

describe.each(IMPLEMENTATIONS)("id completion store contract: $name", ({ create }) => {
  let scratch: { dir: string; cleanup: () => void };
  let store: Store;
  const LIVE = ["active", "open", "blocked"] as const;
  beforeAll(async () => {
    scratch = scratchDir();
    store = create(scratch.dir);
    await store.write(async (tx) => {
      for (let i = 1; i <= 13; i++) await tx.tasks.insert(task(`task ${i}`, "must"), AT);
      await tx.tasks.update("T-12", { status: "done" }, AT);
      for (let i = 1; i <= 11; i++) await tx.goals.insertGoal(fields(`goal ${i}`), "owner", AT);
      await tx.journal.append(event("task.add"));
    });
  });
  afterAll(async () => {
    await store.close();
    scratch.cleanup();
  });

  it("finds task ids by prefix among the given statuses, lowest number first, counting every match", async () => {
    const ids = (
      prefix: string,
      statuses: readonly ("active" | "open" | "blocked" | "done")[],
      limit = 100,
    ) => store.read((tx) => tx.tasks.idsStartingWith(prefix, statuses, limit));
    expect(await ids("T-1", LIVE, 3)).toEqual({ ids: ["T-1", "T-10", "T-11"], total: 4 });
    const live = ["T-1", "T-2", "T-3", "T-4", "T-5", "T-6", "T-7", "T-8", "T-9", "T-10", "T-11", "T-13"];
    expect(await ids("T-", LIVE)).toEqual({ ids: live, total: 12 });
    expect(await ids("", LIVE, 2)).toEqual({ ids: ["T-1", "T-2"], total: 12 });
    expect(await ids("T-13", LIVE)).toEqual({ ids: ["T-13"], total: 1 });
    expect(await ids("", ["done"])).toEqual({ ids: ["T-12"], total: 1 });
    // Byte for byte, with no pattern characters: callers settle the case of what was typed.
    for (const prefix of ["t-1", "T-1%", "T-_", "T-1é", "T-13-"]) {
      expect(await ids(prefix, LIVE), prefix).toEqual({ ids: [], total: 0 });
    }
    expect(await ids("T-1", [])).toEqual({ ids: [], total: 0 });
  });

  it("finds goal ids by prefix, lowest number first, counting every match", async () => {
    const ids = (prefix: string, limit = 100) => store.read((tx) => tx.goals.idsStartingWith(prefix, limit));
    expect(await ids("G-1", 2)).toEqual({ ids: ["G-1", "G-10"], total: 3 });
    expect(await ids("")).toMatchObject({ total: 11 });
    expect((await ids("G-")).ids.slice(0, 3)).toEqual(["G-1", "G-2", "G-3"]);
    expect(await ids("g-1")).toEqual({ ids: [], total: 0 });
  });
});

describe.each(IMPLEMENTATIONS)("open questions store contract: $name", ({ create }) => {
  let scratch: { dir: string; cleanup: () => void };
  let store: Store;
  beforeAll(async () => {
    scratch = scratchDir();
    store = create(scratch.dir);
    await store.write(async (tx) => {
      await tx.tasks.insert(task("asked about", "must"), AT);
      for (const toRole of ["lead", "lead", "lead", "qa"])
        await tx.asks.insert({ taskId: "T-1", question: "why?", askedBy: "A-1", toRole }, AT);
      await tx.asks.answer("Q-2", "because", "owner", AT);
      await tx.journal.append(event("task.ask"));
    });
  });
  afterAll(async () => {
    await store.close();
    scratch.cleanup();
  });

  it("counts open questions, all or one role's, and pages them oldest first", async () => {
    const read = <T>(fn: (tx: Parameters<Parameters<Store["read"]>[0]>[0]) => Promise<T>) => store.read(fn);
    expect(await read((tx) => tx.asks.countOpen())).toBe(3);
    expect(await read((tx) => tx.asks.countOpen({ toRole: "lead" }))).toBe(2);
    expect(await read((tx) => tx.asks.countOpen({ toRole: "nobody" }))).toBe(0);
    expect(await read((tx) => tx.asks.countOpen({ taskId: "T-1" }))).toBe(3);
    expect(await read((tx) => tx.asks.countOpen({ taskId: "T-1", toRole: "qa" }))).toBe(1);
    expect(await read((tx) => tx.asks.countOpen({ taskId: "T-2" }))).toBe(0);
    const page = await read((tx) => tx.asks.open({ toRole: "lead", limit: 1 }));
    expect(page.map((ask) => ask.id)).toEqual(["Q-1"]);
  });

  it("keeps open questions on live tasks, or on ended ones (done or dropped), apart", async () => {
    const read = <T>(fn: (tx: Parameters<Parameters<Store["read"]>[0]>[0]) => Promise<T>) => store.read(fn);
    const counts = () =>
      read(async (tx) => [
        await tx.asks.countOpen({ onTasks: "live" }),
        await tx.asks.countOpen({ onTasks: "ended" }),
      ]);
    expect(await counts()).toEqual([3, 0]);
    await store.write(async (tx) => {
      await tx.tasks.update("T-1", { status: "dropped" }, AT);
      await tx.journal.append(event("task.drop"));
    });
    expect(await counts()).toEqual([0, 3]);
    const ended = await read((tx) => tx.asks.openHeads({ toRole: "lead", onTasks: "ended", limit: 5 }));
    expect(ended.map((ask) => ask.id)).toEqual(["Q-1", "Q-3"]);
    expect(await read((tx) => tx.asks.openHeads({ onTasks: "live", limit: 5 }))).toEqual([]);
  });
});
