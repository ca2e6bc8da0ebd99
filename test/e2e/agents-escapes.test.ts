import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { alive, enableIdentities, shellAgent, until, writeAgent } from "../helpers/agents.js";
import { rawServer, startToolCall } from "../helpers/mcp.js";
import { pidFrom, waitFor } from "../helpers/processes.js";
import { rawExec } from "../helpers/raw-store.js";
import { addAgent, CAIRN_BIN, cairn, cleanEnv, initWorkspace } from "../helpers/workspace.js";

/** Runs that try to outlive themselves: what they leave behind, and what they hold on to. */
describe("local agent runs that try to outlive themselves", () => {
  let ws: ReturnType<typeof initWorkspace>;
  let env: Record<string, string>;
  const leftovers: number[] = [];

  beforeAll(() => {
    ws = initWorkspace();
    env = { DOTAGENT_HOME: join(ws.dir, "no-dotagent") };
  });
  /** `cairn agents run NAME` as a process of its own, a supervisor a test may kill, and its exit. */
  const superviseRun = (name: string) => {
    const supervisor = spawn(process.execPath, [CAIRN_BIN, "agents", "run", name], {
      cwd: ws.dir,
      env: cleanEnv(env),
      stdio: "ignore",
    });
    return { supervisor, exited: new Promise((resolve) => supervisor.on("exit", resolve)) };
  };
  afterAll(() => {
    for (const pid of leftovers) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // Already gone, as it should be.
      }
    }
    ws.cleanup();
  });

  it.skipIf(process.platform !== "linux")(
    "ends when its command exits, though a grandchild that left the group (setsid) holds its output",
    async () => {
      const pidFile = join(ws.dir, "escaped.pid");
      writeAgent(
        ws.dir,
        "escaper",
        shellAgent(
          "escaper",
          // It waits for the grandchild to be out of its group before it exits itself.
          `setsid sh -c 'echo $$ > "${pidFile}"; exec sleep 60' & until [ -s "${pidFile}" ]; do sleep 0.05; done; echo bye`,
          { agent: "timeout_seconds = 5" },
        ),
      );
      const started = Date.now();
      const run = cairn(ws.dir, ["agents", "run", "escaper", "--json"], { env, timeoutMs: 20_000 });
      leftovers.push(await pidFrom(pidFile));
      expect(run.code).toBe(0);
      expect(run.json).toMatchObject({ run: { status: "ok", exit_code: 0 }, stdout: "bye\n" });
      expect(Date.now() - started).toBeLessThan(5_000);
    },
  );

  it.skipIf(process.platform !== "linux")(
    "leaves nothing running: what left its process group is killed at its end, and the run says so",
    async () => {
      const pidFile = join(ws.dir, "daemonised.pid");
      writeAgent(
        ws.dir,
        "daemoniser",
        shellAgent(
          "daemoniser",
          `setsid sh -c 'echo $$ > "${pidFile}"; exec sleep 60' </dev/null >/dev/null 2>&1 & until [ -s "${pidFile}" ]; do sleep 0.05; done; echo started`,
        ),
      );
      const run = cairn(ws.dir, ["agents", "run", "daemoniser", "--json"], { env });
      const pid = await pidFrom(pidFile);
      leftovers.push(pid);
      expect(run.json).toMatchObject({
        run: { status: "ok", reason: expect.stringMatching(/outside its process group; they were killed/) },
      });
      await until(() => !alive(pid), 5_000);
    },
  );

  it.skipIf(process.platform !== "linux")(
    "leaves nothing a preflight started outside its group, when that preflight stops the run",
    async () => {
      const pidFile = join(ws.dir, "preflight.pid");
      writeAgent(
        ws.dir,
        "checked",
        [
          "[agent]",
          'name = "checked"',
          "[run]",
          'command = "true"',
          "[[preflight]]",
          'command = "sh"',
          `args = ["-c", ${JSON.stringify(
            `setsid sh -c 'echo $$ > "${pidFile}"; exec sleep 60' </dev/null >/dev/null 2>&1 & until [ -s "${pidFile}" ]; do sleep 0.05; done; exit 1`,
          )}]`,
          "",
        ].join("\n"),
      );
      const run = cairn(ws.dir, ["agents", "run", "checked", "--json"], { env });
      expect(run.code).toBe(1);
      expect(run.stderr + run.stdout).toMatch(/preflight 1 \(sh\) failed/);
      const pid = await pidFrom(pidFile);
      leftovers.push(pid);
      await until(() => !alive(pid), 5_000);
    },
  );

  it.skipIf(process.platform !== "linux").each([
    ["SIGTERM to cairn agents run", "stopped-cli"],
    ["SIGTERM to cairn mcp", "stopped-mcp"],
    ["cairn mcp's client hanging up", "hung-up-mcp"],
  ])("on %s mid-run, ends the run: its token retired, what left its group killed", async (face, name) => {
    const tokenFile = join(ws.dir, `${name}.token`);
    const pidFile = join(ws.dir, `${name}.pid`);
    addAgent(ws.dir, name, "builder");
    writeAgent(
      ws.dir,
      name,
      shellAgent(
        name,
        `printf %s "$CAIRN_AGENT" > "${tokenFile}"; setsid sh -c 'echo $$ > "${pidFile}"; exec sleep 60' </dev/null >/dev/null 2>&1 & sleep 30`,
        { rest: `[cairn]\nidentity = "${name}"\n` },
      ),
    );
    Object.assign(env, enableIdentities(ws.dir, [name], env));
    let stop: () => Promise<unknown>;
    if (face.includes("cairn mcp")) {
      const server = rawServer(ws.dir, env);
      await startToolCall(server, "cli", { argv: ["agents", "run", name] });
      stop = () => (face.startsWith("SIGTERM") ? server.kill("SIGTERM") : server.close());
    } else {
      const { supervisor, exited } = superviseRun(name);
      stop = () => {
        supervisor.kill("SIGTERM");
        return exited;
      };
    }
    const pid = await pidFrom(pidFile);
    leftovers.push(pid);
    await waitFor(
      () => existsSync(tokenFile) && readFileSync(tokenFile, "utf8").length > 0,
      15_000,
      tokenFile,
    );
    const token = readFileSync(tokenFile, "utf8");
    await stop();
    // No reaper has run: the stopped process itself ended what it supervised.
    expect(alive(pid)).toBe(false);
    const after = cairn(ws.dir, ["whoami"], { env: { ...env, CAIRN_AGENT: token } });
    expect(after.code).toBe(3);
    expect(after.stderr).toMatch(/retired/);
    const runs = (
      cairn(ws.dir, ["agents", "inspect", name, "--json"], { env }).json as {
        last_runs: { status: string }[];
      }
    ).last_runs;
    // A client that hangs up has its calls cancelled; a stopped process interrupts them.
    expect(runs[0]?.status).toBe(face.startsWith("SIGTERM") ? "interrupted" : "cancelled");
  });

  /**
   * A cairn process running an agent's remediation, a command that records its pid and sleeps:
   * the supervisor, its exit code to come, and the command's pid once it runs.
   */
  async function startRemediation(name: string) {
    const pidFile = join(ws.dir, `${name}.pid`);
    writeAgent(
      ws.dir,
      name,
      `[agent]\nname = "${name}"\n[run]\ncommand = "true"\n[[preflight]]\ncommand = "false"\nremediation = ["sh", "-c", "echo $$ > '${pidFile}'; exec sleep 60"]\n`,
    );
    const supervisor = spawn(process.execPath, [CAIRN_BIN, "agents", "remediate", name, "1"], {
      cwd: ws.dir,
      env: cleanEnv(env),
      stdio: "ignore",
    });
    const exited = new Promise<number | null>((resolve) => supervisor.on("exit", (code) => resolve(code)));
    return { supervisor, exited, pid: await pidFrom(pidFile) };
  }

  it("on SIGTERM to cairn mid-remediation, records the remediation interrupted, not running", async () => {
    const { supervisor, exited, pid } = await startRemediation("remedied");
    leftovers.push(pid);
    supervisor.kill("SIGTERM");
    expect(await exited).toBe(143);
    const runs = (
      cairn(ws.dir, ["agents", "inspect", "remedied", "--json"], { env }).json as {
        last_runs: { trigger: string; status: string; finished_at: string | null }[];
      }
    ).last_runs;
    expect(runs[0]).toMatchObject({ trigger: "remediation", status: "interrupted" });
    expect(runs[0]?.finished_at).not.toBeNull();
  });

  it.skipIf(process.platform !== "linux")(
    "on SIGKILL to cairn mid-remediation, the reaper that records it interrupted ends its command too",
    async () => {
      const { supervisor, exited, pid } = await startRemediation("remedied-killed");
      leftovers.push(pid);
      supervisor.kill("SIGKILL");
      await exited;
      expect(cairn(ws.dir, ["sweep"], { env }).stdout).toMatch(/its processes and token ended/);
      await until(() => !alive(pid), 5_000);
    },
  );

  it("cannot be stopped by another agent taking the names its run identities will get", () => {
    addAgent(ws.dir, "runner-id", "builder");
    const mallory = addAgent(ws.dir, "mallory", "builder").token;
    writeAgent(
      ws.dir,
      "guarded",
      shellAgent("guarded", 'echo "as $(printf %s "$CAIRN_AGENT" | wc -c) chars"', {
        rest: '[cairn]\nidentity = "runner-id"\n',
      }),
    );
    Object.assign(env, enableIdentities(ws.dir, ["guarded"], env));
    const first = cairn(ws.dir, ["agents", "run", "guarded", "--json"], { env });
    expect(first.code, first.stderr).toBe(0);
    const next = Number((first.json as { run: { id: string } }).run.id.replace(/^AR-/, "")) + 1;
    // Mallory, a writer of its own, adds children named as the next runs' identities would be.
    for (let n = next; n < next + 3; n++) {
      const squat = cairn(
        ws.dir,
        ["agent", "add", `runner-id-run-ar-${n}`, "--role", "builder", "--parent", "mallory"],
        { env: { ...env, CAIRN_AGENT: mallory } },
      );
      expect(squat.code, squat.stderr).toBe(0);
    }
    for (let n = 0; n < 3; n++) {
      const run = cairn(ws.dir, ["agents", "run", "guarded", "--json"], { env });
      expect(run.code, run.stderr).toBe(0);
      expect(run.json).toMatchObject({ run: { status: "ok" } });
    }
  });

  it("gives back every task its run identity claimed when the run ends: none stays held by a token that acts no more", () => {
    addAgent(ws.dir, "claimer", "builder");
    const added = cairn(ws.dir, ["task", "add", "claimed by a run", "--json"]).json as {
      task: { id: string };
    };
    const task = added.task.id;
    writeAgent(
      ws.dir,
      "claiming",
      [
        "[agent]",
        'name = "claiming"',
        "[run]",
        `command = ${JSON.stringify(process.execPath)}`,
        `args = [${JSON.stringify(CAIRN_BIN)}, "task", "claim", ${JSON.stringify(task)}]`,
        "[cairn]",
        'identity = "claimer"',
        "",
      ].join("\n"),
    );
    Object.assign(env, enableIdentities(ws.dir, ["claiming"], env));
    const run = cairn(ws.dir, ["agents", "run", "claiming", "--json"], { env });
    expect(run.code, run.stderr).toBe(0);
    expect((run.json as { stdout: string }).stdout).toMatch(/claimed|Claimed/);
    const shown = cairn(ws.dir, ["task", "show", task, "--json"]).json as {
      task: { status: string; owner: string | null };
    };
    expect(shown.task).toMatchObject({ status: "open", owner: null });
    const swept = cairn(ws.dir, ["activity", "--json"]).stdout;
    expect(swept).toMatch(/run AR-\d+ of claiming ended/);
  });

  it("never writes its token into its log or result, though it prints its environment", () => {
    addAgent(ws.dir, "printer", "builder");
    writeAgent(
      ws.dir,
      "printing",
      shellAgent("printing", 'echo "$CAIRN_AGENT"; env', {
        rest: '[cairn]\nidentity = "printer"\n',
      }),
    );
    Object.assign(env, enableIdentities(ws.dir, ["printing"], env));
    const run = cairn(ws.dir, ["agents", "run", "printing", "--json"], { env });
    expect(run.code, run.stderr).toBe(0);
    const out = run.json as { run: { id: string }; stdout: string };
    expect(out.stdout).toMatch(/^\[redacted\]\n/);
    expect(out.stdout).toContain("CAIRN_AGENT=[redacted]");
    const logs = cairn(ws.dir, ["agents", "logs", "printing", "--lines", "400", "--json"], { env }).stdout;
    expect(logs).toContain("CAIRN_AGENT=[redacted]");
    for (const text of [run.stdout, logs]) expect(text).not.toMatch(/cairn_[A-Za-z0-9_-]{43}/);
  });

  it("never writes a credential of its environment into the reason a failing preflight gives, which a read-only agent reads", () => {
    const secret = "ghp_preflightLeak0123456789abcdefABCDEF";
    const reader = addAgent(ws.dir, "pf-reader", "reviewer", ["--grant", "ro"]).token;
    writeAgent(
      ws.dir,
      "leaky-preflight",
      shellAgent("leaky-preflight", "echo ran", {
        rest: '[[preflight]]\ncommand = "sh"\nargs = ["-c", "echo \\"no token: $GITHUB_TOKEN\\" >&2; exit 1"]\n',
      }),
    );
    const run = cairn(ws.dir, ["agents", "run", "leaky-preflight"], {
      env: { ...env, GITHUB_TOKEN: secret },
    });
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toContain("no token: [redacted]");
    const inspect = cairn(ws.dir, ["agents", "inspect", "leaky-preflight", "--json"], {
      env: { ...env, CAIRN_AGENT: reader },
    });
    expect(inspect.code, inspect.stderr).toBe(0);
    const [last] = (inspect.json as { last_runs: { status: string; reason: string }[] }).last_runs;
    expect(last?.status).toBe("skipped");
    expect(last?.reason).toContain("no token: [redacted]");
    for (const text of [run.stderr, inspect.stdout]) expect(text).not.toContain(secret);
  });

  it("stops the token minted for a run whose supervisor was killed outright at once, before any reaper runs", async () => {
    const tokenFile = join(ws.dir, "orphaned.token");
    const pidFile = join(ws.dir, "orphaned.pid");
    addAgent(ws.dir, "orphaned", "builder");
    writeAgent(
      ws.dir,
      "orphaned",
      shellAgent(
        "orphaned",
        `printf %s "$CAIRN_AGENT" > "${tokenFile}.part"; mv "${tokenFile}.part" "${tokenFile}"; echo $$ > "${pidFile}"; exec sleep 60`,
        { rest: '[cairn]\nidentity = "orphaned"\n' },
      ),
    );
    Object.assign(env, enableIdentities(ws.dir, ["orphaned"], env));
    const { supervisor, exited } = superviseRun("orphaned");
    await waitFor(() => existsSync(tokenFile), 15_000, tokenFile);
    const pid = await pidFrom(pidFile);
    leftovers.push(pid);
    const token = readFileSync(tokenFile, "utf8");
    expect(cairn(ws.dir, ["whoami"], { env: { ...env, CAIRN_AGENT: token } }).code).toBe(0);
    supervisor.kill("SIGKILL");
    await exited;
    // The agent runs on, unsupervised; no sweep or daemon has run. Its token no longer acts.
    expect(alive(pid)).toBe(true);
    const after = cairn(ws.dir, ["task", "add", "written by an orphaned run"], {
      env: { ...env, CAIRN_AGENT: token },
    });
    expect(after.code).toBe(3);
    expect(after.stderr).toMatch(/supervising cairn process \(pid \d+\) is gone/);
    expect(cairn(ws.dir, ["sweep"], { env }).code).toBe(0);
  });

  it("is not called ok in status while its supervisor, killed outright, is gone and no reaper has run", async () => {
    const pidFile = join(ws.dir, "unswept.pid");
    writeAgent(ws.dir, "unswept", shellAgent("unswept", `echo $$ > "${pidFile}"; exec sleep 60`));
    const { supervisor, exited } = superviseRun("unswept");
    const pid = await pidFrom(pidFile);
    leftovers.push(pid);
    supervisor.kill("SIGKILL");
    await exited;
    process.kill(pid, "SIGKILL");
    await until(() => !alive(pid), 5_000);
    const status = cairn(ws.dir, ["agents", "status", "--json"], { env }).json as {
      schedules: { agent: string; state: string; reason: string }[];
      triggered: { agent: string; status: string }[];
    };
    expect(status.schedules.find((row) => row.agent === "unswept")).toMatchObject({
      state: "failing",
      reason: expect.stringMatching(/interrupted/),
    });
    expect(status.triggered.find((run) => run.agent === "unswept")?.status).toBe("interrupted");
    const inspect = cairn(ws.dir, ["agents", "inspect", "unswept", "--json"], { env }).json as {
      last_runs: { status: string; reason: string }[];
    };
    expect(inspect.last_runs[0]).toMatchObject({
      status: "interrupted",
      reason: expect.stringMatching(/its supervisor \(pid \d+\) died/),
    });
  });

  it.each([
    ["the next daemon start", "keeper", ["daemon", "--once"]],
    ["cairn sweep", "sweeper", ["sweep"]],
  ])(
    "retires the token minted for a run whose supervisor was killed outright, and frees its claims, once %s reaps the run",
    async (_, name, reaper) => {
      const tokenFile = join(ws.dir, `${name}.token`);
      addAgent(ws.dir, name, "builder");
      writeAgent(
        ws.dir,
        name,
        shellAgent(
          name,
          `printf %s "$CAIRN_AGENT" > "${tokenFile}.part"; mv "${tokenFile}.part" "${tokenFile}"; sleep 30`,
          {
            rest: `[cairn]\nidentity = "${name}"\n`,
          },
        ),
      );
      Object.assign(env, enableIdentities(ws.dir, [name], env));
      const { supervisor, exited } = superviseRun(name);
      await waitFor(() => existsSync(tokenFile), 15_000, tokenFile);
      const token = readFileSync(tokenFile, "utf8");
      expect(cairn(ws.dir, ["whoami"], { env: { ...env, CAIRN_AGENT: token } }).code).toBe(0);
      const task = (
        cairn(ws.dir, ["task", "add", `held by ${name}'s run`, "--json"], { env }).json as {
          task: { id: string };
        }
      ).task.id;
      expect(cairn(ws.dir, ["task", "claim", task], { env: { ...env, CAIRN_AGENT: token } }).code).toBe(0);
      supervisor.kill("SIGKILL");
      await exited;
      // The reaper finds the run orphaned: it is marked interrupted, its token retired.
      expect(cairn(ws.dir, reaper, { env }).code).toBe(0);
      const runs = (
        cairn(ws.dir, ["agents", "inspect", name, "--json"], { env }).json as {
          last_runs: { status: string }[];
        }
      ).last_runs;
      expect(runs[0]?.status).toBe("interrupted");
      const after = cairn(ws.dir, ["whoami"], { env: { ...env, CAIRN_AGENT: token } });
      expect(after.code).toBe(3);
      expect(after.stderr).toMatch(/retired/);
      // In the same pass: a retired agent's claims go back to the board at once.
      expect(cairn(ws.dir, ["task", "show", task, "--json"], { env }).json).toMatchObject({
        task: { status: "open", owner: null },
      });
    },
  );

  it("is recorded lost past its deadline when its machine never comes back (a shared board): its token stops, its claims go back", async () => {
    const name = "stranded";
    const tokenFile = join(ws.dir, `${name}.token`);
    const go = join(ws.dir, `${name}.go`);
    const after = join(ws.dir, `${name}.after`);
    addAgent(ws.dir, name, "builder");
    // It claims with its token, then, once the test says so, tries to write with it again.
    const script = [
      `printf %s "$CAIRN_AGENT" > "${tokenFile}.part"; mv "${tokenFile}.part" "${tokenFile}"`,
      `while [ ! -e "${go}" ]; do sleep 0.1; done`,
      `"${process.execPath}" "${CAIRN_BIN}" task add "after the run was lost" > /dev/null 2>&1; echo $? > "${after}"`,
      "echo woke up, refused",
    ].join("; ");
    writeAgent(ws.dir, name, shellAgent(name, script, { rest: `[cairn]\nidentity = "${name}"\n` }));
    Object.assign(env, enableIdentities(ws.dir, [name], env));
    const { supervisor, exited } = superviseRun(name);
    try {
      await waitFor(() => existsSync(tokenFile), 15_000, tokenFile);
      const token = readFileSync(tokenFile, "utf8");
      const task = (
        cairn(ws.dir, ["task", "add", "held by a run far away", "--json"], { env }).json as {
          task: { id: string };
        }
      ).task.id;
      expect(cairn(ws.dir, ["task", "claim", task], { env: { ...env, CAIRN_AGENT: token } }).code).toBe(0);
      const [run] = (
        cairn(ws.dir, ["agents", "inspect", name, "--json"], { env }).json as {
          last_runs: { id: string; status: string }[];
        }
      ).last_runs;
      expect(run?.status).toBe("running");
      // The run as a laptop of the shared board recorded it, before it went away for good. Its
      // pid means nothing here, so no sweep judges it before its deadline...
      const laptop = "laptop-gone#00000000000000aa";
      await rawExec(
        ws.dir,
        `UPDATE agent_runs SET supervisor_host = '${laptop}', deadline_at = '2999-01-01T00:00:00.000Z' WHERE id = '${run?.id}'`,
      );
      expect(cairn(ws.dir, ["sweep", "--json"], { env }).json).toMatchObject({ runs_interrupted: [] });
      expect(cairn(ws.dir, ["whoami"], { env: { ...env, CAIRN_AGENT: token } }).code).toBe(0);
      // ...nor after it, if it was recorded before runs had one.
      await rawExec(ws.dir, `UPDATE agent_runs SET deadline_at = NULL WHERE id = '${run?.id}'`);
      expect(cairn(ws.dir, ["sweep", "--json"], { env }).json).toMatchObject({ runs_interrupted: [] });

      // Past its deadline the run is over: status says so before any sweep, and the token stops.
      await rawExec(
        ws.dir,
        `UPDATE agent_runs SET deadline_at = '2000-01-01T00:00:00.000Z' WHERE id = '${run?.id}'`,
      );
      const inspect = cairn(ws.dir, ["agents", "inspect", name, "--json"], { env }).json as {
        last_runs: { status: string; reason: string }[];
      };
      expect(inspect.last_runs[0]).toMatchObject({
        status: "interrupted",
        reason: expect.stringMatching(/on laptop-gone .* no end by its deadline/),
      });
      const refused = cairn(ws.dir, ["whoami"], { env: { ...env, CAIRN_AGENT: token } });
      expect(refused.code, refused.stderr).toBe(3);
      expect(refused.stderr).toMatch(/supervisor on laptop-gone recorded no end by its deadline/);

      // A sweep from this machine records it lost, retires its token and gives its claim back.
      const swept = cairn(ws.dir, ["sweep", "--json"], { env });
      expect(swept.json).toMatchObject({ runs_interrupted: [run?.id] });
      expect(cairn(ws.dir, ["task", "show", task, "--json"], { env }).json).toMatchObject({
        task: { status: "open", owner: null },
      });
      const journal = cairn(ws.dir, ["activity", "--action", "agent.run.interrupted", "--json"], { env });
      expect(journal.stdout).toContain('"lost": true');
      expect(journal.stdout).toContain('"supervisor_host": "laptop-gone"');

      // The agent, still running somewhere, acts no more; its supervisor's late end changes nothing.
      writeFileSync(go, "");
      await waitFor(() => existsSync(after), 15_000, after);
      expect(readFileSync(after, "utf8").trim()).toBe("3");
      await exited;
      const ended = cairn(ws.dir, ["agents", "inspect", name, "--json"], { env }).json as {
        last_runs: { status: string; reason: string }[];
      };
      expect(ended.last_runs[0]).toMatchObject({
        status: "interrupted",
        reason: expect.stringMatching(/no end by its deadline, 2000-01-01/),
      });
      // The journal keeps how it really ended, marked as written after the board took it for lost.
      const finish = cairn(
        ws.dir,
        ["activity", "--action", "agent.run.finish", "--subject", run?.id ?? "", "--json"],
        {
          env,
        },
      );
      expect(finish.stdout).toContain('"late": true');
      // And its log, on the machine that ran it, is found by the run's row.
      const logs = cairn(ws.dir, ["agents", "logs", name, "--run", run?.id ?? "", "--json"], { env });
      expect((logs.json as { lines: string[] }).lines).toContain("woke up, refused");
    } finally {
      // A failed test stops the run through its supervisor (SIGTERM kills the run's group): killed
      // outright, it left the agent waiting for good once the folder it polls was removed.
      writeFileSync(go, "");
      supervisor.kill("SIGTERM");
      await exited;
    }
  });
});

describe("what a cairn killed outright left running", () => {
  it.skipIf(process.platform !== "linux")(
    "a leftover that leaves its group when the sweep asks it to stop (SIGTERM) is stopped all the same",
    async () => {
      const ws = initWorkspace();
      const pidFile = join(ws.dir, "leftover.pid");
      const escapedPid = join(ws.dir, "escaped.pid");
      const ranAfter = join(ws.dir, "ran-after-the-sweep");
      // On SIGTERM it starts a child in a session of its own (setsid), which acts later.
      const escapee = `require("fs").writeFileSync(${JSON.stringify(escapedPid)}, process.pid + "\\n"); setTimeout(() => require("fs").writeFileSync(${JSON.stringify(ranAfter)}, "ran"), 3000);`;
      const leftover = `const { spawn } = require("node:child_process");
        require("fs").writeFileSync(${JSON.stringify(pidFile)}, process.pid + "\\n");
        process.on("SIGTERM", () => {
          spawn(process.execPath, ["-e", ${JSON.stringify(escapee)}], { detached: true, stdio: "ignore" }).unref();
          setTimeout(() => process.exit(0), 100);
        });
        setInterval(() => {}, 1000);`;
      writeFileSync(
        join(ws.dir, ".cairn", "cairn.toml"),
        `\n[shortcuts.lingers]\neffect = "read"\nargv = ${JSON.stringify([process.execPath, "-e", leftover])}\n`,
        { flag: "a" },
      );
      const supervisor = spawn(process.execPath, [CAIRN_BIN, "shortcut", "run", "lingers"], {
        cwd: ws.dir,
        env: cleanEnv(),
        stdio: "ignore",
      });
      const exited = new Promise((resolve) => supervisor.on("exit", resolve));
      let escaped: number | undefined;
      try {
        const pid = await pidFrom(pidFile);
        supervisor.kill("SIGKILL");
        await exited;
        expect(alive(pid)).toBe(true);
        expect(cairn(ws.dir, ["sweep"]).code).toBe(0);
        await waitFor(() => !alive(pid), 5_000, "the leftover to be stopped");
        if (existsSync(escapedPid)) escaped = Number(readFileSync(escapedPid, "utf8"));
        await new Promise((resolve) => setTimeout(resolve, 3_500));
        expect(existsSync(ranAfter)).toBe(false);
      } finally {
        if (escaped !== undefined && alive(escaped)) process.kill(escaped, "SIGKILL");
        ws.cleanup();
      }
    },
    30_000,
  );
});
