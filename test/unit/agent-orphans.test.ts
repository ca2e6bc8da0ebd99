import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DAEMON_META_KEY, Daemon } from "../../src/domains/agents/daemon-loop.js";
import { reapOrphans, runMarks, runTempPrefix, thisSupervisor } from "../../src/domains/agents/orphans.js";
import { projectWorkspace } from "../../src/domains/workspace/discover.js";
import { processStart } from "../../src/kernel/processes.js";
import { openStore } from "../../src/store/open.js";
import type { Store } from "../../src/store/store.js";
import { pidFrom, processGone, waitFor } from "../helpers/processes.js";
import { scratchDir } from "../helpers/workspace.js";

let scratch: { dir: string; cleanup: () => void };
let store: Store;
const started: ChildProcess[] = [];
const now = () => new Date().toISOString();
const event = (action: string, subject: string) => ({ at: now(), actor: "owner", action, subject, data: {} });

/**
 * A run row as a supervisor writes it when it starts one; the supervisor's pid is given, its
 * start (null: a run recorded before runs named it) and its deadline (null: before deadlines).
 */
const startRun = (
  supervisorPid: number,
  supervisorHost: string | null = hostname(),
  supervisorStart: string | null = null,
  deadlineAt: string | null = null,
) =>
  store.write(async (tx) => {
    const run = await tx.agentRuns.start(
      {
        agent: "slow",
        schedule: "now",
        trigger: "schedule",
        windowAt: "2026-01-01T00:00:00Z",
        supervisorPid,
        supervisorHost,
        supervisorStart,
        deadlineAt,
        manifestPath: "/m.toml",
        manifestHash: "abc",
        logPath: null,
        identity: null,
      },
      now(),
    );
    await tx.journal.append(event("agent.run.start", run.id));
    return run;
  });

/** A detached `sh -c SCRIPT` in its own process group, as cairn starts a run's command. */
const startGroup = (script: string, env: Record<string, string>) => {
  const child = spawn("sh", ["-c", script], {
    detached: true,
    stdio: "ignore",
    env: { ...process.env, ...env },
  });
  started.push(child);
  return child;
};

beforeEach(() => {
  scratch = scratchDir();
  store = openStore(join(scratch.dir, "cairn.db"), { create: true });
});
afterEach(async () => {
  // process.kill, never the kill program: procps-ng 4.0.2 reads `kill -KILL -12345` as a signal
  // to every process (kill(-1)).
  for (const child of started.splice(0)) {
    try {
      if (child.pid) process.kill(-child.pid, "SIGKILL");
    } catch {
      // Already gone: the reaper took it.
    }
  }
  await store.close();
  scratch.cleanup();
});

describe("reaping the runs of a supervisor that died", () => {
  it("kills a run's processes found by its id and workspace, even without a recorded pid; never another workspace's or another machine's", async () => {
    // A supervisor that is gone: a process that has exited.
    const dead = spawnSync("true").pid;
    // Killed between the spawn and the write of the pid: the run has no pid.
    const unrecorded = await startRun(dead);
    const workspace = projectWorkspace(scratch.dir);
    const leader = startGroup(
      `setsid sleep 60 & echo $! > ${scratch.dir}/escaped.pid; sleep 60`,
      runMarks(workspace, unrecorded.id),
    );
    const escaped = await pidFrom(join(scratch.dir, "escaped.pid"));
    // A recorded pid that was recycled: its process does not carry the run's id. The run was
    // recorded before runs named their machine: it is judged as this machine's.
    const recycled = await startRun(dead, null);
    const bystander = startGroup("sleep 60", runMarks(workspace, "AR-999999"));
    // Run ids repeat across workspaces: another workspace's run of the same id is not this one.
    const neighbour = startGroup(
      "sleep 60",
      runMarks(projectWorkspace(`${scratch.dir}-next`), unrecorded.id),
    );
    await store.write(async (tx) => {
      await tx.agentRuns.setPid(recycled.id, bystander.pid ?? 0);
      await tx.journal.append(event("agent.run.pid", recycled.id));
    });
    // A run whose supervisor is alive (this process) is not an orphan.
    const supervised = await startRun(process.pid);
    const mine = startGroup("sleep 60", runMarks(workspace, supervised.id));

    // The orphan's AGENT_TMPDIR goes with it; a live run's, and another workspace's run of the
    // same id, stay.
    const temps = {
      orphan: mkdtempSync(join(tmpdir(), runTempPrefix(workspace, unrecorded.id))),
      live: mkdtempSync(join(tmpdir(), runTempPrefix(workspace, supervised.id))),
      neighbour: mkdtempSync(
        join(tmpdir(), runTempPrefix(projectWorkspace(`${scratch.dir}-next`), unrecorded.id)),
      ),
    };
    // The reaping daemon was started through a symlink to the workspace: the same workspace.
    const link = join(scratch.dir, "link");
    symlinkSync(scratch.dir, link);
    // Another machine's run in a shared store: the dead pid is a pid of this machine, not its.
    const elsewhere = await startRun(dead, `${hostname()}-other`);
    const reaped = await reapOrphans(store, projectWorkspace(link), "owner", now);

    expect(reaped.sort()).toEqual([unrecorded.id, recycled.id].sort());
    expect([existsSync(temps.orphan), existsSync(temps.live), existsSync(temps.neighbour)]).toEqual([
      false,
      true,
      true,
    ]);
    for (const temp of Object.values(temps)) rmSync(temp, { recursive: true, force: true });
    // The run's group and the process that left it for a session of its own are both killed.
    await waitFor(
      () => processGone(leader.pid ?? 0) && processGone(escaped),
      5_000,
      "the orphan's processes",
    );
    expect(processGone(bystander.pid ?? 0)).toBe(false);
    expect(processGone(neighbour.pid ?? 0)).toBe(false);
    expect(processGone(mine.pid ?? 0)).toBe(false);
    const rows = await store.read(async (tx) => ({
      unrecorded: await tx.agentRuns.byId(unrecorded.id),
      recycled: await tx.agentRuns.byId(recycled.id),
      supervised: await tx.agentRuns.byId(supervised.id),
      elsewhere: await tx.agentRuns.byId(elsewhere.id),
    }));
    expect(rows.unrecorded).toMatchObject({ status: "interrupted", pid: null });
    expect(rows.unrecorded?.reason).toMatch(
      /supervisor \(pid \d+\) died; its leftover processes were killed/,
    );
    expect(rows.recycled).toMatchObject({ status: "interrupted" });
    expect(rows.recycled?.reason).not.toMatch(/killed/);
    expect(rows.supervised).toMatchObject({ status: "running" });
    expect(rows.elsewhere).toMatchObject({ status: "running", supervisorHost: `${hostname()}-other` });
  });

  it("records another machine's run lost past its deadline, once however many reapers judge it at once; before its deadline, or with none, it is left", async () => {
    const workspace = projectWorkspace(scratch.dir);
    const dead = spawnSync("true").pid;
    const laptop = "laptop-gone#00000000000000aa";
    const lost = await startRun(dead, laptop, null, "2000-01-01T00:00:00.000Z");
    const early = await startRun(dead, laptop, null, "2999-01-01T00:00:00.000Z");
    const undated = await startRun(dead, laptop, null, null);
    const reaped = await Promise.all([1, 2, 3].map(() => reapOrphans(store, workspace, "owner", now)));
    expect(reaped.flat()).toEqual([lost.id]);
    const rows = await store.read(async (tx) => ({
      lost: await tx.agentRuns.byId(lost.id),
      early: await tx.agentRuns.byId(early.id),
      undated: await tx.agentRuns.byId(undated.id),
      journal: await tx.journal.list({ action: "agent.run.interrupted", limit: 10 }),
    }));
    expect(rows.lost).toMatchObject({ status: "interrupted", logPath: null });
    expect(rows.lost?.reason).toMatch(
      /on laptop-gone \(pid \d+\) recorded no end by its deadline, 2000-01-01/,
    );
    expect([rows.early?.status, rows.undated?.status]).toEqual(["running", "running"]);
    expect(rows.journal.map((event) => [event.subject, event.data])).toEqual([
      [lost.id, expect.objectContaining({ lost: true, supervisor_host: "laptop-gone", killed: false })],
    ]);
  });

  it("takes a supervisor whose pid another process now holds for gone: by the start each run records", async () => {
    const workspace = projectWorkspace(scratch.dir);
    // A live process that is not the supervisor the run recorded: the pid was handed on.
    const stranger = startGroup("sleep 60", {});
    const strangerPid = stranger.pid ?? 0;
    await waitFor(() => processStart(strangerPid) !== null, 5_000, "the stranger's start");
    const realStart = processStart(strangerPid) as string;
    const boot = realStart.slice(0, realStart.lastIndexOf(":"));
    const handedOn = await startRun(strangerPid, hostname(), `${boot}:1`);
    const leftover = startGroup("sleep 60", runMarks(workspace, handedOn.id));
    // The same pid with the start it really has: that supervisor is alive.
    const alive = await startRun(strangerPid, hostname(), realStart);
    // This very process, as it records itself: alive. This pid with another start: a supervisor
    // that died before this process was given its pid.
    const own = thisSupervisor(now(), 60_000);
    const ours = await startRun(own.supervisorPid, own.supervisorHost, own.supervisorStart);
    const before = await startRun(own.supervisorPid, own.supervisorHost, `${boot}:2`);

    const reaped = await reapOrphans(store, workspace, "owner", now);

    expect(reaped.sort()).toEqual([handedOn.id, before.id].sort());
    await waitFor(() => processGone(leftover.pid ?? 0), 5_000, "the handed-on run's leftover process");
    // The process that holds the pid now is never the reaper's to kill.
    expect(processGone(strangerPid)).toBe(false);
    const status = async (id: string) => (await store.read((tx) => tx.agentRuns.byId(id)))?.status;
    expect(await status(handedOn.id)).toBe("interrupted");
    expect(await status(before.id)).toBe("interrupted");
    expect(await status(alive.id)).toBe("running");
    expect(await status(ours.id)).toBe("running");
  });

  it("a running daemon reaps, on its next pass, a run whose supervisor died after the daemon started", async () => {
    mkdirSync(join(scratch.dir, ".cairn"), { recursive: true });
    const workspace = projectWorkspace(scratch.dir);
    const daemon = new Daemon({
      store,
      workspace,
      env: { ...process.env, CAIRN_HOME: join(scratch.dir, "home"), DOTAGENT_HOME: join(scratch.dir, "no") },
      actorId: "owner",
      log: () => {},
    });
    const running = daemon.run();
    try {
      let beat: string | undefined;
      for (let i = 0; i < 100 && !beat; i++) {
        beat = await store.read((tx) => tx.meta.get(DAEMON_META_KEY));
        if (!beat) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(beat).toBeTruthy();
      // A cairn mcp killed outright mid-run, after the daemon's start: this pid, another start.
      const own = thisSupervisor(now(), 60_000);
      const boot = (own.supervisorStart as string).slice(0, (own.supervisorStart as string).lastIndexOf(":"));
      const orphan = await startRun(own.supervisorPid, own.supervisorHost, `${boot}:2`);
      daemon.wake();
      let status: string | undefined;
      for (let i = 0; i < 100 && status !== "interrupted"; i++) {
        status = (await store.read((tx) => tx.agentRuns.byId(orphan.id)))?.status;
        if (status !== "interrupted") await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(status).toBe("interrupted");
    } finally {
      daemon.stop();
      await running;
    }
  });
});
