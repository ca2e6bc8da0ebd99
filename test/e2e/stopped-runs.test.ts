import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  cairnJson,
  contractWith,
  evalInBackground,
  evaluatorToml,
  freezeRun,
  gitWorkspace,
  openAttempt,
  writePack,
} from "../helpers/goals.js";
import { rawServer, startToolCall } from "../helpers/mcp.js";
import { pidFrom, processGone, waitFor } from "../helpers/processes.js";
import { CAIRN_BIN, cairn, cleanEnv, initWorkspace, runSync, scratchDir } from "../helpers/workspace.js";

/**
 * A cairn stopped mid-run (kill -9, SIGTERM, its client gone) leaves no process behind, at once
 * or at the next sweep, and leaves a record of the run that never reads as a success.
 */
let ws: { dir: string; cleanup: () => void };
let seq = 0;
const leftovers: number[] = [];
beforeAll(() => {
  ws = initWorkspace();
});
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

/** A shortcut whose command writes its pid to a file and sleeps; its name and the file. */
function sleeperShortcut(): { name: string; pidFile: string } {
  seq += 1;
  const name = `sleeper-${seq}`;
  const pidFile = join(ws.dir, `${name}.pid`);
  const args = ["shortcut", "add", name, "--effect", "write"];
  for (const word of ["sh", "-c", `echo $$ > ${pidFile}; exec sleep 120`]) args.push("--argv", word);
  expect(cairn(ws.dir, args).code).toBe(0);
  return { name, pidFile };
}

describe.skipIf(process.platform !== "linux")("a cairn killed outright", () => {
  it("is dead to the sweep while it waits, a zombie, for a parent that has not collected it", async () => {
    const { name, pidFile } = sleeperShortcut();
    const cairnPidFile = join(ws.dir, `${name}.cairn.pid`);
    // The parent starts cairn, then becomes a sleep that never waits for its children.
    const parent = spawn(
      "sh",
      [
        "-c",
        `"$0" "$1" shortcut run ${name} & echo $! > ${cairnPidFile}; exec sleep 60`,
        process.execPath,
        CAIRN_BIN,
      ],
      { cwd: ws.dir, env: cleanEnv(), stdio: "ignore" },
    );
    leftovers.push(parent.pid as number);
    const commandPid = await pidFrom(pidFile);
    leftovers.push(commandPid);
    const cairnPid = await pidFrom(cairnPidFile);
    process.kill(cairnPid, "SIGKILL");
    await waitFor(() => processGone(cairnPid), 5_000, "cairn to die");
    expect(processGone(commandPid)).toBe(false);
    expect(cairn(ws.dir, ["sweep"]).code).toBe(0);
    await waitFor(() => processGone(commandPid), 5_000, "the shortcut's command to be killed");
  });
});

interface Event {
  action: string;
  subject: string;
  data: Record<string, unknown>;
}

/** The journal's shortcut events of `name`, oldest first, and the audit's lines for `shortcut run`. */
function recordsOf(name: string): { events: Event[]; audited: Record<string, unknown>[] } {
  const activity = cairn(ws.dir, ["activity", "--limit", "200", "--json"]).json as { events: Event[] };
  const audit = cairn(ws.dir, ["audit", "tail", "--json"]).json as {
    entries: { data: Record<string, unknown> }[];
  };
  return {
    events: activity.events
      .filter((event) => event.subject === name && event.action !== "shortcut.add")
      .reverse(),
    audited: audit.entries
      .map((entry) => entry.data)
      .filter((data) => data.command === "shortcut run" && (data.input as { name?: string }).name === name),
  };
}

/** A run's end that says it was stopped: recorded, cancelled, never a success. */
function expectStoppedRecord(name: string): void {
  const { events, audited } = recordsOf(name);
  expect(events.map((event) => event.action)).toEqual(["shortcut.start", "shortcut.run"]);
  expect(events[1]?.data).toMatchObject({ exit_code: null, cancelled: true });
  expect(audited).toEqual([expect.objectContaining({ outcome: "operational" })]);
}

describe.skipIf(process.platform !== "linux")("a cairn stopped mid-run records the run's end", () => {
  it("SIGTERM of cairn shortcut run: the command is killed, and its run ends cancelled in the journal and the audit", async () => {
    const { name, pidFile } = sleeperShortcut();
    const child = spawn(process.execPath, [CAIRN_BIN, "shortcut", "run", name], {
      cwd: ws.dir,
      env: cleanEnv(),
    });
    const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    const pid = await pidFrom(pidFile);
    leftovers.push(pid);
    child.kill("SIGTERM");
    expect(await exited).toBe(143);
    await waitFor(() => processGone(pid), 5_000, "the shortcut's command to die");
    expectStoppedRecord(name);
  });

  it("a client that disconnects mid run_shortcut: the command is killed, and its run ends cancelled", async () => {
    const { name, pidFile } = sleeperShortcut();
    const server = rawServer(ws.dir);
    await startToolCall(server, "run_shortcut", { name });
    const pid = await pidFrom(pidFile);
    leftovers.push(pid);
    await server.close();
    await waitFor(() => processGone(pid), 5_000, "the shortcut's command to die");
    expectStoppedRecord(name);
  });
});

describe.skipIf(process.platform !== "linux")("an evaluation killed outright", () => {
  it("leaves its base's checkout only until the next evaluation, which removes it and has git forget it", async () => {
    const repo = gitWorkspace({ "score.txt": "90\n" });
    const outside = scratchDir("cairn-hold-");
    try {
      const hold = join(outside.dir, "hold");
      const cwds = join(outside.dir, "cwds");
      const goal = contractWith(repo.dir, [{ name: "quality", threshold: 50, direction: "higher" }]);
      // A noisy evaluator is measured on the base too; it holds while `hold` exists.
      const script = `pwd >> ${cwds}; if [ -e ${hold} ]; then sleep 120; fi; echo score $(cat score.txt)`;
      writePack(
        repo.dir,
        "fixture",
        evaluatorToml({
          name: "quality",
          proof: "quality",
          argv: ["sh", "-c", script],
          read: "regex",
          pattern: "score (\\d+)",
          direction: "higher",
          threshold: 50,
          noisy: true,
        }),
      );
      const attempt = openAttempt(repo.dir, freezeRun(repo.dir, goal));
      writeFileSync(hold, "");
      const { child: evaluation, exited } = evalInBackground(repo.dir, attempt);
      const inBase = () =>
        existsSync(cwds)
          ? readFileSync(cwds, "utf8")
              .split("\n")
              .find((line) => line.includes("cairn-base-"))
          : undefined;
      await waitFor(() => inBase() !== undefined, 15_000, "a sample in the base's checkout");
      const base = (inBase() as string).trim();
      evaluation.kill("SIGKILL");
      await exited;
      expect(cairn(repo.dir, ["sweep"]).code).toBe(0);
      expect(existsSync(base)).toBe(true);
      expect(runSync("git", ["worktree", "list"], repo.dir)).toContain(base);

      rmSync(hold);
      cairnJson(repo.dir, ["attempt", "eval", attempt]);
      expect(existsSync(base)).toBe(false);
      expect(runSync("git", ["worktree", "list"], repo.dir)).not.toContain("cairn-base-");
    } finally {
      outside.cleanup();
      repo.cleanup();
    }
  });
});

describe.skipIf(process.platform !== "linux")(
  "a skill script or an OS tool whose cairn is killed outright",
  () => {
    it("leaves its start in the audit log, and the next sweep kills it", async () => {
      const home = join(ws.dir, "machine");
      const skill = join(ws.dir, ".cairn", "skills", "sleepy");
      mkdirSync(join(skill, "scripts"), { recursive: true });
      mkdirSync(home, { recursive: true });
      writeFileSync(join(skill, "SKILL.md"), "---\nname: sleepy\ndescription: sleeps\n---\nSleeps.\n");
      const scriptPid = join(ws.dir, "script.pid");
      writeFileSync(
        join(skill, "scripts", "sleep.sh"),
        `#!/bin/sh\necho $$ > ${scriptPid}\nexec sleep 120\n`,
      );
      chmodSync(join(skill, "scripts", "sleep.sh"), 0o755);
      const env = { CAIRN_HOME: home };
      const digest = cairn(ws.dir, ["skill", "digest", "sleepy", "--json"], { env }).json as {
        enable_line: string;
      };
      // A shell needs a person's confirmation as an OS tool: the sleep is found by its argv.
      const seconds = String(100 + Math.floor(Math.random() * 900));
      const osPid = join(ws.dir, "os.pid");
      const findSleep = () => {
        for (const entry of readdirSync("/proc")) {
          if (!/^\d+$/.test(entry)) continue;
          try {
            const [program, ...rest] = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0");
            // The sleep itself, not the cairn whose arguments end the same way.
            if (program?.endsWith("sleep") && rest[0] === seconds) {
              writeFileSync(osPid, `${entry}\n`);
              return;
            }
          } catch {
            // Gone while we looked.
          }
        }
      };
      writeFileSync(
        join(home, "cairn.toml"),
        `[skills.run]\n${digest.enable_line}\n\n[os]\nenabled = true\nallow = ["sleep"]\n`,
      );
      const runs: [string[], string, string][] = [
        [["skill", "run", "sleepy", "scripts/sleep.sh"], scriptPid, "skill_run_start"],
        [["os", "run", "sleep", seconds], osPid, "os_run_start"],
      ];
      for (const [args, pidFile, started] of runs) {
        const child = spawn(process.execPath, [CAIRN_BIN, ...args], {
          cwd: ws.dir,
          env: cleanEnv(env),
          stdio: "ignore",
        });
        const exited = new Promise((resolve) => child.on("close", resolve));
        if (args[0] === "os")
          await waitFor(() => (findSleep(), existsSync(osPid)), 15_000, "the OS tool to start");
        const pid = await pidFrom(pidFile);
        leftovers.push(pid);
        child.kill("SIGKILL");
        await exited;
        const audit = cairn(ws.dir, ["audit", "tail", "--json"], { env }).json as {
          entries: { event: string }[];
        };
        expect(audit.entries.map((entry) => entry.event)).toContain(started);
        expect(processGone(pid)).toBe(false);
        expect(cairn(ws.dir, ["sweep"], { env }).code).toBe(0);
        await waitFor(() => processGone(pid), 5_000, `${args[0]} run's process to be killed`);
      }
    });
  },
);
