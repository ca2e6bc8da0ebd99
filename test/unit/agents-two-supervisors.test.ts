import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { agentCatalog } from "../../src/domains/agents/catalog.js";
import { tick } from "../../src/domains/agents/daemon.js";
import { reapOrphans, thisSupervisor } from "../../src/domains/agents/orphans.js";
import { agentsStatus } from "../../src/domains/agents/status.js";
import { projectWorkspace } from "../../src/domains/workspace/discover.js";
import { openStore } from "../../src/store/open.js";
import type { Store, Tx } from "../../src/store/store.js";
import { scratchDir } from "../helpers/workspace.js";

let scratch: { dir: string; cleanup: () => void };
let store: Store;

beforeEach(() => {
  scratch = scratchDir();
  mkdirSync(join(scratch.dir, ".cairn", "agents", "nightly"), { recursive: true });
  store = openStore(join(scratch.dir, ".cairn", "cairn.db"), { create: true });
});
afterEach(async () => {
  await store.close();
  scratch.cleanup();
});

/** The manifest of the agent `nightly`: its `[agent]` table, then `lines`. */
const writeNightly = (lines: readonly string[]) =>
  writeFileSync(
    join(scratch.dir, ".cairn", "agents", "nightly", "agent.toml"),
    ["[agent]", 'name = "nightly"', ...lines].join("\n"),
  );

/** The workspace, and an environment in which the daemon finds only the workspace's agents. */
const daemonSetting = () => ({
  workspace: projectWorkspace(scratch.dir),
  env: {
    ...process.env,
    CAIRN_HOME: join(scratch.dir, "home"),
    DOTAGENT_HOME: join(scratch.dir, "no-dotagent"),
  },
});

/** One pass of a daemon over the workspace's agents, on `on`, at `at`; what it starts goes in `supervised`. */
const tickAt = (on: Store, at: Date, supervised: Map<string, Promise<unknown>>) => {
  const { workspace, env } = daemonSetting();
  return tick({ store: on, workspace, env, actorId: "owner", now: () => at, dryRun: false, supervised });
};

/**
 * Two supervisors of one workspace (two machines' daemons on a shared store, or two daemons that
 * both took a stale lock file) wake at the same window: one of them runs it.
 */
describe("two supervisors at one window", () => {
  it("runs the window once, however their passes interleave", async () => {
    writeNightly([
      "[run]",
      'command = "sh"',
      'args = ["-c", "sleep 0.3"]',
      "[[schedules]]",
      'id = "every"',
      'type = "interval"',
      "interval_minutes = 600",
      "",
    ]);
    const at = new Date();
    const supervisors = [new Map<string, Promise<unknown>>(), new Map<string, Promise<unknown>>()];
    const reports = await Promise.all(supervisors.map((supervised) => tickAt(store, at, supervised)));
    for (const supervised of supervisors) await Promise.all(supervised.values());
    const runs = await store.read((tx) =>
      tx.agentRuns.scheduled("nightly", "every", new Date(0).toISOString()),
    );
    expect(runs.map((run) => run.status)).toEqual(["ok"]);
    // Once their runs ended (as `daemon --once` reports), only the one that ran it says it dispatched.
    expect(reports.flatMap((report) => report.dispatched)).toHaveLength(1);
  });
});

describe("a given-up window of a long schedule", () => {
  it("stays given up while it is not stale, however long ago it opened", async () => {
    writeNightly([
      "[run]",
      'command = "false"',
      "[defaults]",
      "max_retries = 1",
      "stale_after_minutes = 144000",
      "[[schedules]]",
      'id = "yearly"',
      'type = "expression"',
      'expression = "0 0 1 1 *"',
      'timezone = "UTC"',
      "",
    ]);
    const { workspace, env } = daemonSetting();
    const supervised = new Map<string, Promise<unknown>>();
    const pass = async (at: string) => {
      const report = await tick({
        store,
        workspace,
        env,
        actorId: "owner",
        now: () => new Date(at),
        dryRun: false,
        supervised,
      });
      await Promise.all(supervised.values());
      return report;
    };
    await pass("2026-12-31T12:00:00Z");
    expect((await pass("2027-01-01T00:01:00Z")).dispatched).toHaveLength(1);
    expect((await pass("2027-01-01T00:02:00Z")).marked.map((m) => m.mark)).toEqual(["given_up"]);
    // Fifty days on, still inside its 100-day stale_after: the window's one try is spent.
    expect((await pass("2027-02-20T00:00:00Z")).dispatched).toEqual([]);
    const runs = await store.read((tx) =>
      tx.agentRuns.scheduled("nightly", "yearly", new Date(0).toISOString()),
    );
    expect(runs).toHaveLength(1);
  });
});

describe("agents status", () => {
  it("names a schedule's last run however many triggered runs came after it", async () => {
    writeNightly([
      '[run]\ncommand = "true"\n[[schedules]]\nid = "every"\ntype = "interval"\ninterval_minutes = 600',
    ]);
    const { workspace, env } = daemonSetting();
    const supervised = new Map<string, Promise<unknown>>();
    await tick({ store, workspace, env, actorId: "owner", now: () => new Date(), dryRun: false, supervised });
    await Promise.all(supervised.values());
    await store.write(async (tx) => {
      for (let i = 0; i < 60; i++) {
        const at = new Date().toISOString();
        const run = await tx.agentRuns.start(
          {
            agent: "nightly",
            schedule: "every",
            trigger: "mcp",
            windowAt: null,
            ...thisSupervisor(at, 60_000),
            manifestPath: "x",
            manifestHash: "x",
            logPath: null,
            identity: null,
          },
          at,
        );
        await tx.agentRuns.finish(run.id, {
          status: "ok",
          exitCode: 0,
          finishedAt: at,
          durationMs: 1,
          stderrTail: "",
          reason: null,
        });
      }
      await tx.journal.append({
        at: new Date().toISOString(),
        actor: "owner",
        action: "test.runs",
        subject: "x",
        data: {},
      });
    });
    const status = await agentsStatus(store, workspace, agentCatalog(workspace, env), env, Date.now());
    expect(status.schedules[0]?.last_run).toEqual(expect.objectContaining({ trigger: "schedule" }));
  });
});

/**
 * A shared store whose server's clock runs `behindMs` behind this machine's: deadlines are
 * stamped and judged on it (`leaseClock`), as on a team's PostgreSQL board.
 */
const storeClockBehind = (inner: Store, behindMs: number): Store => {
  const skewed = (tx: Tx): Tx => ({
    ...tx,
    tasks: { ...tx.tasks, leaseClock: async () => new Date(Date.now() - behindMs).toISOString() },
  });
  return {
    ...inner,
    read: (fn) => inner.read((tx) => fn(skewed(tx))),
    write: (fn) => inner.write((tx) => fn(skewed(tx))),
  } as Store;
};

describe("another machine's run near its deadline, on a machine whose clock runs ahead", () => {
  it("holds its window until the store's clock passes the deadline: the window never runs twice at once", async () => {
    writeNightly([
      '[run]\ncommand = "true"\n[[schedules]]\nid = "every"\ntype = "interval"\ninterval_minutes = 600',
    ]);
    const { workspace, env } = daemonSetting();
    // This machine's clock is 15 minutes ahead of the store's: by the store's clock the run,
    // started by a laptop's daemon, has 14 minutes left before its deadline.
    const shared = storeClockBehind(store, 15 * 60_000);
    const at = new Date();
    await store.write(async (tx) => {
      await tx.agentRuns.start(
        {
          agent: "nightly",
          schedule: "every",
          trigger: "schedule",
          windowAt: new Date(at.getTime() - 60_000).toISOString(),
          supervisorPid: 4242,
          supervisorHost: "laptop-busy#00000000000000aa",
          supervisorStart: null,
          deadlineAt: new Date(at.getTime() - 60_000).toISOString(),
          manifestPath: join(scratch.dir, ".cairn", "agents", "nightly", "agent.toml"),
          manifestHash: "x",
          logPath: null,
          identity: null,
        },
        new Date(at.getTime() - 60_000).toISOString(),
      );
      await tx.journal.append({
        at: at.toISOString(),
        actor: "owner",
        action: "test.run",
        subject: "x",
        data: {},
      });
    });
    // The sweep judges it on the store's clock: not lost yet.
    expect(await reapOrphans(shared, workspace, "owner", () => new Date().toISOString())).toEqual([]);
    const supervised = new Map<string, Promise<unknown>>();
    const report = await tickAt(shared, at, supervised);
    await Promise.all(supervised.values());
    expect(report.dispatched).toEqual([]);
    const runs = await store.read((tx) =>
      tx.agentRuns.scheduled("nightly", "every", new Date(0).toISOString()),
    );
    expect(runs.map((run) => run.status)).toEqual(["running"]);
    // And its status reads it running, as the sweep judges it.
    const status = await agentsStatus(shared, workspace, agentCatalog(workspace, env), env, at.getTime());
    expect(status.schedules[0]?.last_run?.status).toBe("running");
  });
});
