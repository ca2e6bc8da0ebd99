import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { processStart } from "../../src/kernel/processes.js";
import { alive, enableIdentities, shellAgent, until, writeAgent } from "../helpers/agents.js";
import { addAgent, CAIRN_BIN, cairn, cleanEnv, initWorkspace } from "../helpers/workspace.js";

interface Row {
  agent: string;
  schedule: string;
  state: string;
  reason: string;
}

/** `cairn daemon` as a real process: one per workspace, supervised runs, SIGKILL recovery, reload. */
describe("the daemon", () => {
  let ws: ReturnType<typeof initWorkspace>;
  let env: Record<string, string>;
  const status = () => cairn(ws.dir, ["agents", "status", "--json"], { env }).json as { schedules: Row[] };
  const row = (agent: string) => status().schedules.find((r) => r.agent === agent);
  const startDaemon = () => {
    const child = spawn(process.execPath, [CAIRN_BIN, "daemon"], { cwd: ws.dir, env: cleanEnv(env) });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    return { child, stderr: () => stderr, exited };
  };

  beforeAll(() => {
    ws = initWorkspace();
    env = { DOTAGENT_HOME: join(ws.dir, "no-dotagent") };
    const interval = (id: string) =>
      `[[schedules]]\nid = "${id}"\ntype = "interval"\ninterval_minutes = 60\n`;
    writeAgent(ws.dir, "fresh", shellAgent("fresh", "echo ran", { rest: interval("hourly") }));
    // Two schedules with the same args keep separate state: one never succeeds.
    writeAgent(
      ws.dir,
      "twins",
      shellAgent("twins", '[ "$AGENT_SCHEDULE_ID" = good ] || exit 7', {
        rest: `${interval("good")}${interval("bad")}[defaults]\nmax_retries = 1\n`,
      }),
    );
    writeAgent(
      ws.dir,
      "gated",
      shellAgent("gated", "echo never", { rest: `${interval("hourly")}[[preflight]]\ncommand = "false"\n` }),
    );
    writeAgent(ws.dir, "broken", "[agent\n");
  });
  afterAll(() => ws.cleanup());

  it("--dry-run dispatches nothing; --once runs what is due, skips a broken manifest, keeps schedules apart", () => {
    const dry = cairn(ws.dir, ["daemon", "--once", "--dry-run", "--json"], { env });
    expect(dry.code).toBe(0);
    const planned = (dry.json as { dispatched: { agent: string; schedule: string }[] }).dispatched;
    expect(planned.map((d) => `${d.agent}/${d.schedule}`).sort()).toEqual([
      "fresh/hourly",
      "gated/hourly",
      "twins/bad",
      "twins/good",
    ]);
    expect(row("fresh")?.state).toBe("never_ran");

    const once = cairn(ws.dir, ["daemon", "--once", "--json"], { env });
    expect(once.code).toBe(0);
    const report = once.json as { problems: { file: string }[]; next_event_at: string | null };
    expect(report.problems[0]?.file).toMatch(/broken\/agent\.toml$/);
    expect(report.next_event_at).not.toBeNull();
    expect(row("fresh")).toMatchObject({ state: "ok" });
    const twins = status().schedules.filter((r) => r.agent === "twins");
    expect(twins.find((r) => r.schedule === "good")?.state).toBe("ok");
    expect(twins.find((r) => r.schedule === "bad")).toMatchObject({
      state: "failing",
      reason: expect.stringMatching(/gave up after 1 attempt \(exit 7\)/),
    });
    expect(row("gated")).toMatchObject({ state: "failing" });
    const inspect = cairn(ws.dir, ["agents", "inspect", "gated", "--json"], { env }).json as {
      last_runs: { status: string; reason: string; supervisor_host: string | null }[];
    };
    expect(inspect.last_runs[0]).toMatchObject({
      status: "skipped",
      reason: expect.stringMatching(/preflight 1 \(false\) failed/),
      // The daemon that ran it is on this machine, and says so (a shared store holds others').
      supervisor_host: hostname(),
    });
    const summary = (
      cairn(ws.dir, ["status", "--json"], { env }).json as {
        local_agents: { unhealthy: { agent: string; schedule: string }[]; broken_manifests: string[] };
      }
    ).local_agents;
    expect(summary.unhealthy).toEqual(
      expect.arrayContaining([expect.objectContaining({ agent: "twins", schedule: "bad" })]),
    );
    expect(summary.broken_manifests[0]).toMatch(/broken\/agent\.toml: not valid TOML/);
    // Nothing is due now: a second tick dispatches nothing.
    const again = cairn(ws.dir, ["daemon", "--once", "--dry-run", "--json"], { env }).json as {
      dispatched: unknown[];
    };
    expect(again.dispatched).toEqual([]);
  });

  it("runs one daemon per workspace, reloads on a manifest change, and stops its runs as interrupted", async () => {
    const pidFile = join(ws.dir, "slow.pid");
    const daemon = startDaemon();
    await until(() => daemon.stderr().includes("started"));
    const second = cairn(ws.dir, ["daemon", "--once"], { env });
    expect(second.code).toBe(5);
    expect(second.stderr).toContain(`pid ${daemon.child.pid}`);
    // A second daemon refused by the lock never says it started.
    const another = cairn(ws.dir, ["daemon"], { env });
    expect(another.code).toBe(5);
    expect(another.stderr).toContain(`a daemon already runs for this workspace (pid ${daemon.child.pid})`);
    expect(another.stderr).not.toContain("started");
    // A manifest added while the daemon runs is picked up without a restart.
    writeAgent(
      ws.dir,
      "slow",
      shellAgent("slow", `echo $$ > ${JSON.stringify(pidFile)}; sleep 30`, {
        rest: '[[schedules]]\nid = "now"\ntype = "interval"\ninterval_minutes = 60\n',
      }),
    );
    await until(() => existsSync(pidFile) && readFileSync(pidFile, "utf8").trim() !== "");
    const pid = Number(readFileSync(pidFile, "utf8"));
    const live = cairn(ws.dir, ["agents", "status", "--json"], { env }).json as {
      daemon: { running: boolean; pid: number; beat_at: string | null };
    };
    expect(live.daemon).toMatchObject({ running: true, pid: daemon.child.pid, beat_at: expect.any(String) });
    daemon.child.kill("SIGHUP");
    await until(() => daemon.stderr().includes("SIGHUP: reloading"));
    daemon.child.kill("SIGTERM");
    expect(await daemon.exited).toBe(0);
    expect(alive(pid)).toBe(false);
    const runs = (
      cairn(ws.dir, ["agents", "inspect", "slow", "--json"], { env }).json as {
        last_runs: { status: string }[];
      }
    ).last_runs;
    expect(runs[0]?.status).toBe("interrupted");
  });

  it("started before any agent folder exists, notices the first manifest written, and the next folder after a SIGHUP", async () => {
    // `cairn init` makes no .cairn/agents: a daemon started first watched nothing, and the
    // first agent scaffolded waited for its 15-minute look; a SIGHUP ran it, but armed no watch.
    const fresh = initWorkspace();
    const daemon = spawn(process.execPath, [CAIRN_BIN, "daemon"], { cwd: fresh.dir, env: cleanEnv(env) });
    let stderr = "";
    daemon.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    const exited = new Promise<number | null>((resolve) => daemon.on("close", (code) => resolve(code)));
    const ran = (name: string) => existsSync(join(fresh.dir, `${name}.ran`));
    const hourly = (name: string) =>
      shellAgent(name, `touch ${JSON.stringify(join(fresh.dir, `${name}.ran`))}`, {
        rest: '[[schedules]]\nid = "hourly"\ntype = "interval"\ninterval_minutes = 60\n',
      });
    try {
      await until(() => stderr.includes("started"));
      writeAgent(fresh.dir, "first", hourly("first"));
      await until(() => ran("first"));
      daemon.kill("SIGHUP");
      await until(() => stderr.includes("SIGHUP: reloading"));
      writeAgent(fresh.dir, "second", hourly("second"));
      await until(() => ran("second"));
    } finally {
      daemon.kill("SIGTERM");
      await exited;
      fresh.cleanup();
    }
  });

  it("after a SIGKILL, the next start marks the orphaned run interrupted and leaves no process", async () => {
    const pidFile = join(ws.dir, "slow.pid");
    writeFileSync(pidFile, "");
    const daemon = startDaemon();
    // The interrupted window is due again: the new daemon dispatches it.
    await until(() => readFileSync(pidFile, "utf8").trim() !== "");
    const pid = Number(readFileSync(pidFile, "utf8"));
    daemon.child.kill("SIGKILL");
    await daemon.exited;
    expect(alive(pid)).toBe(true);
    writeFileSync(pidFile, "");
    const next = cairn(ws.dir, ["daemon", "--once", "--dry-run", "--json"], { env });
    expect(next.code).toBe(0);
    const restart = startDaemon();
    await until(() => restart.stderr().includes("orphaned"));
    await until(() => !alive(pid));
    restart.child.kill("SIGTERM");
    await restart.exited;
    const runs = (
      cairn(ws.dir, ["agents", "inspect", "slow", "--json"], { env }).json as {
        last_runs: { status: string; reason: string | null }[];
      }
    ).last_runs;
    expect(
      runs.some(
        (run) => run.status === "interrupted" && /supervisor \(pid \d+\) died/.test(run.reason ?? ""),
      ),
    ).toBe(true);
    expect(runs.every((run) => run.status !== "running")).toBe(true);
  });

  it("--once stopped by SIGTERM mid-run stops its run and records it interrupted", async () => {
    const pidFile = join(ws.dir, "slow.pid");
    writeFileSync(pidFile, "");
    const child = spawn(process.execPath, [CAIRN_BIN, "daemon", "--once"], {
      cwd: ws.dir,
      env: cleanEnv(env),
    });
    const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    await until(() => readFileSync(pidFile, "utf8").trim() !== "");
    const pid = Number(readFileSync(pidFile, "utf8"));
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    // Not left behind for some later reaper: gone, and its row ended by the --once that ran it.
    expect(alive(pid)).toBe(false);
    const runs = (
      cairn(ws.dir, ["agents", "inspect", "slow", "--json"], { env }).json as {
        last_runs: { status: string; reason: string | null; finished_at: string | null }[];
      }
    ).last_runs;
    expect(runs[0]).toMatchObject({ status: "interrupted", finished_at: expect.any(String) });
    expect(runs[0]?.reason ?? "").not.toMatch(/supervisor/);
  });

  it("takes over a lock file whose pid another process now holds, and never names that process", async () => {
    // A daemon killed outright leaves its lock behind; its pid may since be any process's.
    const stranger = spawn("sleep", ["30"], { stdio: "ignore" });
    const strangerPid = stranger.pid ?? 0;
    // A workspace of its own, with no agents: `daemon --once` takes the lock and runs nothing.
    const quiet = initWorkspace();
    const lock = join(quiet.dir, ".cairn", "daemon.pid");
    const bootOf = (start: string) => start.slice(0, start.lastIndexOf(":"));
    try {
      await until(() => processStart(strangerPid) !== null);
      const start = processStart(strangerPid) as string;
      // A live cairn daemon with its own start holds the lock: refused, and named.
      const daemon = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)", CAIRN_BIN, "daemon"], {
        stdio: "ignore",
      });
      try {
        const daemonPid = daemon.pid ?? 0;
        await until(() => processStart(daemonPid) !== null);
        writeFileSync(lock, `${daemonPid} ${processStart(daemonPid)}\n`);
        const held = cairn(quiet.dir, ["daemon", "--once"], { env });
        expect(held.code).toBe(5);
        expect(held.stderr).toContain(`pid ${daemonPid}`);
      } finally {
        daemon.kill("SIGKILL");
      }
      // The stranger, named with its own start as any writer of the folder can: no daemon, so
      // nothing runs for the workspace, and the lock is no lock.
      writeFileSync(lock, `${strangerPid} ${start}\n`);
      const forged = cairn(quiet.dir, ["agents", "status", "--json"], { env }).json as {
        daemon: { running: boolean };
      };
      expect(forged.daemon.running).toBe(false);
      const overForged = cairn(quiet.dir, ["daemon", "--once"], { env });
      expect(overForged.code, overForged.stderr).toBe(0);
      expect(overForged.stderr).not.toContain(String(strangerPid));
      // The lock names a daemon that started at another moment: that daemon is gone.
      writeFileSync(lock, `${strangerPid} ${bootOf(start)}:1\n`);
      const status = cairn(quiet.dir, ["agents", "status", "--json"], { env }).json as {
        daemon: { running: boolean };
      };
      expect(status.daemon.running).toBe(false);
      const taken = cairn(quiet.dir, ["daemon", "--once"], { env });
      expect(taken.code).toBe(0);
      expect(taken.stderr).not.toContain(String(strangerPid));
      // The lock it took was its own, released at exit; the stranger was never touched.
      expect(existsSync(lock)).toBe(false);
      expect(alive(strangerPid)).toBe(true);
    } finally {
      stranger.kill("SIGKILL");
      quiet.cleanup();
    }
  });
});

describe("a daemon an agent runs", () => {
  it("leaves alone the windows of an agent acting as an identity outside its line, rather than failing them until given up", () => {
    const ws = initWorkspace();
    try {
      const env = { DOTAGENT_HOME: join(ws.dir, "no-dotagent") };
      addAgent(ws.dir, "lead", "builder");
      const worker = addAgent(ws.dir, "worker", "builder").token;
      writeAgent(
        ws.dir,
        "report",
        shellAgent("report", "echo reported", {
          rest: '[[schedules]]\nid = "daily"\ntype = "interval"\ninterval_minutes = 1440\n[defaults]\nretry_backoff_minutes = [0]\n[cairn]\nidentity = "lead"\n',
        }),
      );
      // The worker's daemon, started again and again, may not act as lead.
      for (let n = 0; n < 4; n++) {
        const once = cairn(ws.dir, ["daemon", "--once", "--json"], { env: { ...env, CAIRN_AGENT: worker } });
        expect(once.code, once.stderr).toBe(0);
        expect(once.json).toMatchObject({
          dispatched: [],
          problems: [{ reason: expect.stringMatching(/outside the line of A-2/) }],
        });
      }
      const before = cairn(ws.dir, ["agents", "status", "--json"], { env }).json as { schedules: Row[] };
      expect(before.schedules[0]).toMatchObject({ agent: "report", state: "never_ran" });
      // The owner's daemon then runs the window as it should, on a machine whose operator
      // enabled the manifest's identity.
      Object.assign(env, enableIdentities(ws.dir, ["report"], env));
      expect(cairn(ws.dir, ["daemon", "--once"], { env }).code).toBe(0);
      const after = cairn(ws.dir, ["agents", "status", "--json"], { env }).json as { schedules: Row[] };
      expect(after.schedules[0]).toMatchObject({ agent: "report", state: "ok" });
    } finally {
      ws.cleanup();
    }
  });
});

describe("the daemon's own writes", () => {
  it("audits the claims its sweep releases, as `cairn sweep` is audited", () => {
    const ws = initWorkspace();
    try {
      const env = { DOTAGENT_HOME: join(ws.dir, "no-dotagent") };
      const leaver = addAgent(ws.dir, "leaver", "builder").token;
      expect(cairn(ws.dir, ["task", "add", "held, then left"]).code).toBe(0);
      expect(cairn(ws.dir, ["task", "claim", "T-1"], { env: { ...env, CAIRN_AGENT: leaver } }).code).toBe(0);
      expect(cairn(ws.dir, ["agent", "retire", "leaver"]).code).toBe(0);
      const once = cairn(ws.dir, ["daemon", "--once", "--json"], { env });
      expect(once.code, once.stderr).toBe(0);
      const tail = cairn(ws.dir, ["audit", "tail", "--lines", "50", "--json"]).json as {
        entries: { event: string; actor: string; data: { released?: { task: string }[] } }[];
      };
      const swept = tail.entries.find((entry) => entry.event === "claims.swept");
      expect(swept).toMatchObject({
        actor: "owner",
        data: { released: [expect.objectContaining({ task: "T-1" })] },
      });
      expect(cairn(ws.dir, ["audit", "verify"]).code).toBe(0);
    } finally {
      ws.cleanup();
    }
  });
});

describe("a daemon killed outright mid-run", () => {
  it("leaves the run's output readable as its log, and the run in the audit log, once the run is recorded interrupted", async () => {
    const ws = initWorkspace();
    const env = { DOTAGENT_HOME: join(ws.dir, "no-dotagent") };
    const pidFile = join(ws.dir, "chatty.pid");
    let pid = 0;
    try {
      writeAgent(
        ws.dir,
        "chatty",
        shellAgent("chatty", `echo "step 1 of 2 done"; echo $$ > ${JSON.stringify(pidFile)}; exec sleep 60`, {
          rest: '[[schedules]]\nid = "hourly"\ntype = "interval"\ninterval_minutes = 60\n',
        }),
      );
      const daemon = spawn(process.execPath, [CAIRN_BIN, "daemon"], { cwd: ws.dir, env: cleanEnv(env) });
      const exited = new Promise((resolve) => daemon.on("close", resolve));
      // Killed once the daemon has written the line to the run's log (not while it sits in the pipe).
      const logDir = join(ws.dir, ".cairn", "logs", "agents");
      const logged = () =>
        existsSync(logDir) &&
        readdirSync(logDir, { recursive: true, withFileTypes: true }).some(
          (entry) =>
            entry.isFile() && readFileSync(join(entry.parentPath, entry.name), "utf8").includes("step 1"),
        );
      await until(() => existsSync(pidFile) && readFileSync(pidFile, "utf8").trim() !== "" && logged());
      pid = Number(readFileSync(pidFile, "utf8"));
      daemon.kill("SIGKILL");
      await exited;
      const swept = cairn(ws.dir, ["sweep", "--json"], { env });
      expect(swept.json).toMatchObject({ runs_interrupted: ["AR-1"] });
      // What it printed before the crash is what its operator needs to read: it was on disk, yet
      // no command showed it ("chatty has no run with a log yet").
      const logs = cairn(ws.dir, ["agents", "logs", "chatty", "--json"], { env });
      expect(logs.json).toMatchObject({ run_id: "AR-1", lines: ["step 1 of 2 done"] });
      // The daemon audits a run when it writes its end, which it never did: the sweep that did
      // writes the run's line, or the log held no trace that the agent ran at all.
      const tail = cairn(ws.dir, ["audit", "tail", "--lines", "50", "--json"]).json as {
        entries: { event: string; severity: string; data: { run?: string; status?: string } }[];
      };
      expect(tail.entries.filter((entry) => entry.event === "agent.run")).toEqual([
        expect.objectContaining({
          severity: "notice",
          data: expect.objectContaining({ run: "AR-1", status: "interrupted" }),
        }),
      ]);
    } finally {
      if (pid > 0 && alive(pid)) process.kill(pid, "SIGKILL");
      ws.cleanup();
    }
  });
});

describe("a daemon stopped while a run's preflight runs", () => {
  it("records the run interrupted, burning none of the window's retries", async () => {
    const ws = initWorkspace();
    const env = { DOTAGENT_HOME: join(ws.dir, "no-dotagent") };
    const pidFile = join(ws.dir, "preflight.pid");
    try {
      writeAgent(
        ws.dir,
        "checked",
        shellAgent("checked", "echo ran", {
          rest: `[[preflight]]\ncommand = "sh"\nargs = ["-c", ${JSON.stringify(`echo $$ > ${pidFile}; exec sleep 60`)}]\n[[schedules]]\nid = "hourly"\ntype = "interval"\ninterval_minutes = 60\n`,
        }),
      );
      const daemon = spawn(process.execPath, [CAIRN_BIN, "daemon"], { cwd: ws.dir, env: cleanEnv(env) });
      const exited = new Promise((resolve) => daemon.on("close", resolve));
      await until(() => existsSync(pidFile) && readFileSync(pidFile, "utf8").trim() !== "");
      daemon.kill("SIGTERM");
      expect(await exited).toBe(0);
      const inspected = cairn(ws.dir, ["agents", "inspect", "checked", "--json"], { env }).json as {
        last_runs: { status: string }[];
      };
      // Recorded as a failed preflight, it was a failed attempt: the window waited out a backoff,
      // and a daemon restarted thrice in preflights gave it up.
      expect(inspected.last_runs[0]?.status).toBe("interrupted");
      const next = cairn(ws.dir, ["daemon", "--once", "--dry-run", "--json"], { env }).json as {
        dispatched: { attempt: number }[];
      };
      expect(next.dispatched).toMatchObject([{ attempt: 1 }]);
    } finally {
      ws.cleanup();
    }
  });
});

describe("a daemon whose log can no longer be written (its terminal closed, its reader gone)", () => {
  it("stops as at SIGTERM: its run ends interrupted, no process is left, the lock is released", async () => {
    const ws = initWorkspace();
    const env = { DOTAGENT_HOME: join(ws.dir, "no-dotagent") };
    const pidFile = join(ws.dir, "orphan.pid");
    let pid = 0;
    try {
      writeAgent(
        ws.dir,
        "long",
        shellAgent("long", `echo $$ > ${JSON.stringify(pidFile)}; exec sleep 60`, {
          rest: '[[schedules]]\nid = "hourly"\ntype = "interval"\ninterval_minutes = 60\n',
        }),
      );
      const daemon = spawn(process.execPath, [CAIRN_BIN, "daemon"], { cwd: ws.dir, env: cleanEnv(env) });
      const exited = new Promise<number | null>((resolve) => daemon.on("close", resolve));
      await until(() => existsSync(pidFile) && readFileSync(pidFile, "utf8").trim() !== "");
      pid = Number(readFileSync(pidFile, "utf8"));
      // The reader of its log goes away, then a SIGHUP has it write a line: the write failed
      // (EPIPE, or EIO on a closed terminal) and crashed it, leaving its run's process orphaned.
      daemon.stderr.destroy();
      daemon.kill("SIGHUP");
      expect(await exited).toBe(0);
      expect(alive(pid)).toBe(false);
      const inspected = cairn(ws.dir, ["agents", "inspect", "long", "--json"], { env }).json as {
        last_runs: { status: string; reason: string | null }[];
      };
      expect(inspected.last_runs[0]?.status).toBe("interrupted");
      expect(inspected.last_runs[0]?.reason ?? "").not.toMatch(/supervisor/);
      expect(existsSync(join(ws.dir, ".cairn", "daemon.pid"))).toBe(false);
    } finally {
      if (pid > 0 && alive(pid)) process.kill(pid, "SIGKILL");
      ws.cleanup();
    }
  });
});
