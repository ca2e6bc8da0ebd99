import { appendFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Session } from "../../src/commands/context.js";
import type { AnyCommand } from "../../src/commands/define.js";
import { dispatch } from "../../src/commands/dispatch.js";
import { runList } from "../../src/commands/goals/runs.js";
import { COMMANDS_BY_NAME } from "../../src/commands/registry.js";
import { UI_VIEWS } from "../../src/commands/ui/index.js";
import { nowCommand } from "../../src/commands/ui/now.js";
import { reviewCommand } from "../../src/commands/ui/review.js";
import { evaluatorProgress } from "../../src/domains/goals/progress.js";
import { OWNER } from "../../src/domains/identity/actor.js";
import { addTask } from "../../src/domains/tasks/board.js";
import { callView } from "../../src/faces/ui/api.js";
import { hostAllowed } from "../../src/faces/ui/guard.js";
import { openStore } from "../../src/store/open.js";
import type { AttemptRecord, SampleRecord, Store, Tx } from "../../src/store/store.js";
import { newSample } from "../helpers/new-attempt.js";
import { addAgent, cleanEnv, initWorkspace, STORE_UNDER_TEST } from "../helpers/workspace.js";

const attempt = (id: string, verdict: AttemptRecord["verdict"], reverted = false): AttemptRecord => ({
  id,
  runId: "R-1",
  milestoneId: null,
  baseHead: null,
  baseDirty: false,
  baseChanges: [],
  openedBy: "owner",
  openedAt: `2026-01-01T00:00:0${id.slice(3)}.000Z`,
  verdict,
  decision: { reasons: [`why ${id}`] },
  decidedAt: null,
  revertedAt: reverted ? "2026-01-02T00:00:00.000Z" : null,
  checkout: null,
  checkoutHost: null,
  baseHashes: {},
  inputsApprovedBy: null,
  inputDrift: [],
  resolution: null,
});

const samples = (id: string, values: (number | null)[]): SampleRecord[] =>
  values.map((value, repeatIndex) => newSample(id, "speed", repeatIndex, value, "2026-01-01T00:00:00.000Z"));

describe("the attempts chart's numbers", () => {
  const attempts = [
    attempt("AT-1", "keep"),
    attempt("AT-2", "revert", true),
    attempt("AT-3", "keep"),
    attempt("AT-4", "review"),
  ];
  const measured: Record<string, SampleRecord[]> = {
    "AT-1": samples("AT-1", [20, 22]),
    "AT-2": samples("AT-2", [15, 15]),
    "AT-3": samples("AT-3", [18, null, 18]),
    "AT-4": samples("AT-4", [10, 12]),
  };

  it("keeps the running best of kept attempts only, direction-aware, with the first kept as baseline", () => {
    const lower = evaluatorProgress(
      { name: "speed", proof: "speed", direction: "lower", threshold: 30 },
      attempts,
      (id) => measured[id] ?? [],
    );
    expect(lower.baseline).toEqual({ mean: 21, noise: 1, attempt: "AT-1" });
    // AT-2 measured better but was reverted, AT-4 better still but only in review: neither is "best kept".
    expect(lower.points.map((p) => p.best)).toEqual([21, 21, 18, 18]);
    expect(lower.points.map((p) => p.gain)).toEqual([0, 6, 3, 10]);
    expect(lower.points[3]?.gainInNoise).toBe(10);
    expect(lower.points[2]).toMatchObject({ repeats: 3, failedRepeats: 1, value: 18, reverted: false });
    expect(lower.points[1]).toMatchObject({ reverted: true, reason: "why AT-2" });

    const higher = evaluatorProgress(
      { name: "speed", proof: "speed", direction: "higher", threshold: 10 },
      attempts,
      (id) => measured[id] ?? [],
    );
    expect(higher.points.map((p) => p.best)).toEqual([21, 21, 21, 21]);
    expect(higher.points.map((p) => p.gain)).toEqual([0, -6, -3, -10]);
  });

  it("has no baseline before anything was kept and skips attempts the evaluator never measured", () => {
    const progress = evaluatorProgress(
      { name: "speed", proof: "speed", direction: "higher", threshold: null },
      [attempt("AT-1", "revert"), attempt("AT-2", null)],
      (id) => (id === "AT-1" ? samples("AT-1", [5]) : []),
    );
    expect(progress.baseline).toBeNull();
    expect(progress.points).toHaveLength(1);
    expect(progress.points[0]).toMatchObject({ best: null, gain: null, gainInNoise: null });
  });
});

describe("the Host allowlist", () => {
  it("accepts loopback names with the listening port only", () => {
    for (const host of ["127.0.0.1:4477", "localhost:4477", "LOCALHOST:4477", "[::1]:4477"]) {
      expect(hostAllowed(host, 4477), host).toBe(true);
    }
    for (const host of [
      undefined,
      "",
      "localhost",
      "localhost.:4477",
      "127.1:4477",
      "evil.test:4477",
      "localhost:4478",
      "127.0.0.1.evil.test:4477",
      "[::2]:4477",
      "localhost:4477:1",
    ]) {
      expect(hostAllowed(host, 4477), String(host)).toBe(false);
    }
  });
});

describe("the read-only store and the journal's pages", () => {
  let ws: { dir: string; cleanup: () => void };
  let writer: Store;
  let reader: Store;
  beforeEach(async () => {
    ws = initWorkspace();
    const path = join(ws.dir, ".cairn", "cairn.db");
    writer = openStore(path);
    reader = openStore(path, { readonly: true });
    const now = "2026-01-01T00:00:00.000Z";
    for (const title of ["beta", "Alpha", "gamma"]) await addTask(writer, OWNER, { title }, now, {});
  });
  afterEach(async () => {
    await reader.close();
    await writer.close();
    ws.cleanup();
  });

  it("refuses every write, even one slipped into a read, and sees another connection's commits through its change signal", async () => {
    await expect(reader.write(async () => undefined)).rejects.toThrow(/read-only/);
    // SQLite itself refuses: the connection was opened read-only.
    const slipped = reader.read((tx) =>
      tx.journal.append({
        at: "2026-01-01T00:00:00.000Z",
        actor: "owner",
        action: "x",
        subject: "y",
        data: {},
      }),
    );
    await expect(slipped).rejects.toThrow(/cannot be written|readonly/i);
    const before = reader.changes.version();
    expect(reader.changes.version()).toBe(before);
    await addTask(writer, OWNER, { title: "delta" }, "2026-01-01T00:00:01.000Z", {});
    expect(reader.changes.version()).not.toBe(before);
    const total = await reader.read((tx) => tx.tasks.list({ limit: 10, offset: 0 }));
    expect(total.total).toBe(4);
  });

  it("pages the journal by id, filters by actor, action family and subject", async () => {
    const all = await reader.read((tx) => tx.journal.list({ limit: 100 }));
    expect(all.map((e) => e.id)).toEqual([...all.map((e) => e.id)].sort((a, b) => b - a));
    const newest = all[0]?.id as number;
    const after = await reader.read((tx) => tx.journal.list({ afterId: newest - 2, limit: 100 }));
    expect(after.map((e) => e.id)).toEqual([newest - 1, newest]);
    const before = await reader.read((tx) => tx.journal.list({ beforeId: newest, limit: 1 }));
    expect(before.map((e) => e.id)).toEqual([newest - 1]);
    const tasks = await reader.read((tx) => tx.journal.list({ action: "task.", limit: 100 }));
    expect(tasks.length).toBe(3);
    expect(await reader.read((tx) => tx.journal.list({ action: "task", limit: 100 }))).toEqual([]);
    expect(
      (await reader.read((tx) => tx.journal.list({ subject: "T-2", limit: 100 }))).map((e) => e.subject),
    ).toEqual(["T-2"]);
    expect(await reader.read((tx) => tx.journal.list({ actor: "A-9", limit: 100 }))).toEqual([]);
  });

  it("sorts task pages without overlap: by title, newest first, by status", async () => {
    const titles = await reader.read((tx) => tx.tasks.list({ order: "title", limit: 2, offset: 0 }));
    const rest = await reader.read((tx) => tx.tasks.list({ order: "title", limit: 2, offset: 2 }));
    expect([...titles.tasks, ...rest.tasks].map((t) => t.title)).toEqual(["Alpha", "beta", "gamma"]);
    const created = await reader.read((tx) => tx.tasks.list({ order: "created", limit: 3, offset: 0 }));
    expect(created.tasks.map((t) => t.id)).toEqual(["T-3", "T-2", "T-1"]);
  });
});

describe("a viewer's session", () => {
  it("dispatches reads, refuses every write, and serves only listed read views", async () => {
    const ws = initWorkspace();
    const session = new Session({ cwd: ws.dir, env: cleanEnv(), readOnly: true });
    try {
      const now = await dispatch(COMMANDS_BY_NAME.get("now") as AnyCommand, {}, session);
      expect(now.kind).toBe("ok");
      const add = await dispatch(COMMANDS_BY_NAME.get("task add") as AnyCommand, { title: "x" }, session);
      expect(add).toMatchObject({ kind: "refused", refusal: { policy: "read-only" } });
      for (const name of UI_VIEWS) expect(COMMANDS_BY_NAME.get(name)?.effect, name).toBe("read");
    } finally {
      await session.close();
      ws.cleanup();
    }
  });
});

describe("the goals view", () => {
  it("reads a page of goals, never all of them (each holds a contract of up to 1 MiB), and counts them all", async () => {
    const ws = initWorkspace();
    const owner = new Session({ cwd: ws.dir, env: cleanEnv() });
    const viewer = new Session({ cwd: ws.dir, env: cleanEnv(), readOnly: true });
    try {
      const create = COMMANDS_BY_NAME.get("goal create") as AnyCommand;
      for (const goal of ["one", "two", "three"])
        expect((await dispatch(create, { goal }, owner)).kind).toBe("ok");
      const first = await callView(viewer, "goal list", new URLSearchParams("limit=2"));
      expect(first.body).toMatchObject({ total: 3, next_offset: 2 });
      expect((first.body as { goals: { goal: string }[] }).goals.map((g) => g.goal)).toEqual(["one", "two"]);
      const rest = await callView(viewer, "goal list", new URLSearchParams("limit=2&offset=2"));
      expect(rest.body).toMatchObject({ goals: [{ goal: "three" }], total: 3, next_offset: null });
      // A page holds at most 200: the dashboard cannot be asked for every goal at once.
      expect((await callView(viewer, "goal list", new URLSearchParams("limit=100000"))).status).toBe(400);
    } finally {
      await viewer.close();
      await owner.close();
      ws.cleanup();
    }
  });
});

/** The store, but any read of a run's attempts whole fails: what a summary must not do. */
function withoutWholeAttempts(store: Store): Store {
  const bound = <T extends object>(target: T, key: string | symbol) => {
    const value = Reflect.get(target, key);
    return typeof value === "function" ? value.bind(target) : value;
  };
  const goalsOf = (tx: Tx) =>
    new Proxy(tx.goals, {
      get: (goals, key) => {
        if (key === "attempts") throw new Error("read every attempt of a run whole");
        return bound(goals, key);
      },
    });
  return new Proxy(store, {
    get: (target, key) =>
      key === "read"
        ? <T>(work: (tx: Tx) => Promise<T>) =>
            target.read((tx) =>
              work(new Proxy(tx, { get: (t, k) => (k === "goals" ? goalsOf(t) : bound(t, k)) })),
            )
        : bound(target, key),
  });
}

describe("the Now and Review views", () => {
  it.runIf(STORE_UNDER_TEST === "sqlite")(
    "count a run's attempts in the store and read only those in review, never every attempt whole (run list too)",
    async () => {
      const ws = initWorkspace();
      const at = "2026-01-01T00:00:00.000Z";
      // A run of three attempts: one kept, one in review, one in review then reverted.
      const raw = new Database(join(ws.dir, ".cairn", "cairn.db"));
      raw.exec(`INSERT INTO goals (seq, id, goal, outcome, constraints, non_goals, proofs, created_by, created_at, updated_at)
        VALUES (1, 'G-1', 'fast', NULL, '[]', '[]', '[]', 'owner', '${at}', '${at}');
        INSERT INTO goal_runs (seq, id, goal_id, contract, milestones, manifest, manifest_hash, created_by, created_at)
        VALUES (1, 'R-1', 'G-1', '{}', '[]', '[]', 'sha256:x', 'owner', '${at}');
        INSERT INTO goal_attempts (seq, id, run_id, base_dirty, opened_by, opened_at, verdict, decision, reverted_at) VALUES
        (1, 'AT-1', 'R-1', 0, 'owner', '2026-01-01T00:00:01.000Z', 'keep', '{}', NULL),
        (2, 'AT-2', 'R-1', 0, 'owner', '2026-01-01T00:00:03.000Z', 'review', '{"reasons":["within noise"]}', NULL),
        (3, 'AT-3', 'R-1', 0, 'owner', '2026-01-01T00:00:02.000Z', 'review', '{}', '${at}');`);
      raw.close();
      const session = new Session({ cwd: ws.dir, env: cleanEnv(), readOnly: true });
      try {
        const opened = await session.context();
        const ctx = {
          ...opened,
          store: withoutWholeAttempts(opened.store),
          signal: new AbortController().signal,
          progress: () => {},
          audience: "person" as const,
        };
        const now = await nowCommand.handler({}, ctx);
        expect(now.goals).toEqual([
          {
            id: "G-1",
            goal: "fast",
            runs: 1,
            attempts: 3,
            kept: 1,
            in_review: 1,
            latest: { attempt: "AT-2", verdict: "review" },
          },
        ]);
        expect(now.inbox.review).toMatchObject([
          { attempt: "AT-2", run: "R-1", goal: "G-1", reason: "within noise" },
        ]);
        expect((await reviewCommand.handler({}, ctx)).attempts.map((a) => a.attempt)).toEqual(["AT-2"]);
        // `run list` counts them the same way.
        expect((await runList.handler({}, ctx)).runs).toMatchObject([{ id: "R-1", attempts: 3, kept: 1 }]);
      } finally {
        await session.close();
        ws.cleanup();
      }
    },
  );
});

describe("the system view", () => {
  // A workspace on PostgreSQL names its store through the run's CAIRN_STORE_URL, which outranks the file.
  it.runIf(STORE_UNDER_TEST === "sqlite")(
    "names the store the session reads, not one cairn.toml was edited to name since",
    async () => {
      const ws = initWorkspace();
      const session = new Session({ cwd: ws.dir, env: cleanEnv(), readOnly: true });
      const system = COMMANDS_BY_NAME.get("system") as AnyCommand;
      const database = async () => {
        const outcome = await dispatch(system, {}, session);
        if (outcome.kind !== "ok") throw new Error(outcome.kind);
        return (outcome.value as { database: string }).database;
      };
      try {
        const opened = await database();
        expect(opened).toBe(join(ws.dir, ".cairn", "cairn.db"));
        // Any agent can write the file; the dashboard still reads the SQLite file it opened.
        appendFileSync(
          join(ws.dir, ".cairn", "cairn.toml"),
          '\n[store]\nurl = "postgres://cairn@db.example:5432/elsewhere"\n',
        );
        expect(await database()).toBe(opened);
      } finally {
        await session.close();
        ws.cleanup();
      }
    },
  );
});

describe("the activity view", () => {
  it("gives an agent attempt events without their data (a hidden evaluator's numbers are the owner's)", async () => {
    const ws = initWorkspace();
    const { token } = addAgent(ws.dir, "ada", "builder");
    const store = openStore(join(ws.dir, ".cairn", "cairn.db"));
    await store.write((tx) =>
      tx.journal.append({
        at: "2026-01-01T00:00:00.000Z",
        actor: "owner",
        action: "attempt.sample",
        subject: "AT-1",
        data: { evaluator: "holdout", value: 0.42 },
      }),
    );
    await store.close();
    const owner = new Session({ cwd: ws.dir, env: cleanEnv(), readOnly: true });
    const agent = new Session({ cwd: ws.dir, env: cleanEnv({ CAIRN_AGENT: token }), readOnly: true });
    try {
      const activity = COMMANDS_BY_NAME.get("activity") as AnyCommand;
      const seen = async (session: Session) => {
        const outcome = await dispatch(activity, { subject: "AT-1" }, session);
        if (outcome.kind !== "ok") throw new Error(outcome.kind);
        return (outcome.value as { events: { data: Record<string, unknown> }[] }).events[0]?.data;
      };
      expect(await seen(owner)).toEqual({ evaluator: "holdout", value: 0.42 });
      expect(await seen(agent)).toEqual({});
    } finally {
      await owner.close();
      await agent.close();
      ws.cleanup();
    }
  });

  it("leaves the events' data out when asked (the Activity page and the live feed show none of it)", async () => {
    const ws = initWorkspace();
    const owner = new Session({ cwd: ws.dir, env: cleanEnv() });
    const viewer = new Session({ cwd: ws.dir, env: cleanEnv(), readOnly: true });
    try {
      const run = async (name: string, input: Record<string, unknown>) =>
        expect((await dispatch(COMMANDS_BY_NAME.get(name) as AnyCommand, input, owner)).kind).toBe("ok");
      await run("task add", { title: "x" });
      await run("task claim", { task: "T-1" });
      // A reason of 256 KiB: a page of 100 such blocks was 26 MB, fetched again at every change.
      await run("task block", { task: "T-1", reason: "r".repeat(256 * 1024 - 1) });
      const lines = await callView(viewer, "activity", new URLSearchParams("limit=100&data=false"));
      expect(lines.status).toBe(200);
      const events = (lines.body as { events: { action: string; data: object }[] }).events;
      expect(events.map((e) => e.action)).toContain("task.block");
      expect(events.every((e) => Object.keys(e.data).length === 0)).toBe(true);
      expect(JSON.stringify(lines.body).length).toBeLessThan(10_000);
    } finally {
      await viewer.close();
      await owner.close();
      ws.cleanup();
    }
  });
});
