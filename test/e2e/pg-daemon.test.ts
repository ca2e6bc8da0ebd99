import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { alive, shellAgent, until, writeAgent } from "../helpers/agents.js";
import { holdWorkspaceLock } from "../helpers/pg-lock.js";
import { CAIRN_BIN, cairn, cleanEnv, scratchDir, testPgUrl } from "../helpers/workspace.js";

/**
 * `cairn daemon` on a shared store, where every read and write of a pass waits on the network:
 * a signal can arrive while a pass runs, not only while the daemon sleeps. Here each pass is
 * held at its heartbeat by another session holding the workspace lock.
 */
let root: { dir: string; cleanup: () => void };
let dir: string;
let reader: pg.Client;
const schema = `daemon-${Date.now().toString(36)}`;
const env = { CAIRN_STORE_URL: undefined };

beforeAll(async () => {
  root = scratchDir();
  dir = join(root.dir, "repo");
  mkdirSync(dir, { recursive: true });
  expect(cairn(dir, ["init", "--store", `${testPgUrl()}?schema=${schema}`], { env }).code).toBe(0);
  reader = new pg.Client({ connectionString: testPgUrl() });
  await reader.connect();
});
afterAll(async () => {
  await reader.end();
  root.cleanup();
});

const beats = async () =>
  Number(
    (
      await reader.query(
        `SELECT count(*) AS n FROM ${pg.escapeIdentifier(schema)}.events WHERE action = 'agent.daemon.beat'`,
      )
    ).rows[0]?.n,
  );

/** Hold the workspace lock, as a writer in another process would: the daemon's writes queue behind it. */
async function holdingTheWorkspace<T>(work: () => Promise<T>): Promise<T> {
  const lock = await holdWorkspaceLock(schema);
  try {
    return await work();
  } finally {
    await lock.end();
  }
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("PostgreSQL: the daemon signalled in the middle of a pass", () => {
  it("a SIGHUP during a pass brings one more pass; a SIGTERM during one stops the daemon at once", async () => {
    const child = spawn(process.execPath, [CAIRN_BIN, "daemon"], { cwd: dir, env: cleanEnv(env) });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    try {
      // The first pass beats; with no agent there is no next event, so the daemon sleeps long.
      await until(() => stderr.includes("started"));
      await waitForBeats(1);
      const first = await beats();

      // A SIGHUP wakes it; the pass it starts waits at its heartbeat; a second SIGHUP comes then.
      await holdingTheWorkspace(async () => {
        child.kill("SIGHUP");
        await until(() => stderr.split("SIGHUP: reloading").length === 2);
        await pause(500);
        child.kill("SIGHUP");
        await until(() => stderr.split("SIGHUP: reloading").length === 3);
        await pause(200);
      });
      // The pass that was waiting beats, and the SIGHUP it missed brings one more.
      await waitForBeats(first + 2);

      // A SIGTERM while a pass waits: once the pass ends, the daemon stops rather than sleep.
      await holdingTheWorkspace(async () => {
        child.kill("SIGHUP");
        await until(() => stderr.split("SIGHUP: reloading").length === 4);
        await pause(500);
        child.kill("SIGTERM");
        await until(() => stderr.includes("stopping"));
        await pause(200);
      });
      const stopped = await Promise.race([exited, pause(8_000).then(() => "still running")]);
      expect(stopped, stderr).toBe(0);
    } finally {
      child.kill("SIGKILL");
      await exited;
    }
  });
});

describe("PostgreSQL: a daemon killed outright in one checkout of a board", () => {
  it("a sweep in another checkout on the same machine kills the run it left, not only marks it interrupted", async () => {
    const shared = `${testPgUrl()}?schema=${schema}-clones`;
    const [mine, theirs] = ["mine", "theirs"].map((name) => join(root.dir, name));
    const pidFile = join(root.dir, "clones-agent.pid");
    writeFileSync(pidFile, "");
    const agentEnv = { ...env, DOTAGENT_HOME: join(root.dir, "no-dotagent") };
    for (const checkout of [mine, theirs] as string[]) {
      mkdirSync(checkout, { recursive: true });
      expect(cairn(checkout, ["init", "--store", shared], { env }).code).toBe(0);
      writeAgent(
        checkout,
        "slow",
        shellAgent("slow", `echo $$ > ${pidFile}; exec sleep 120`, {
          rest: '[[schedules]]\nid = "hourly"\ntype = "interval"\ninterval_minutes = 60\n',
        }),
      );
    }
    const daemon = spawn(process.execPath, [CAIRN_BIN, "daemon"], { cwd: theirs, env: cleanEnv(agentEnv) });
    const exited = new Promise((resolve) => daemon.on("close", resolve));
    let pid = 0;
    try {
      await until(() => readFileSync(pidFile, "utf8").trim() !== "");
      pid = Number(readFileSync(pidFile, "utf8"));
      daemon.kill("SIGKILL");
      await exited;
      // Its run is recorded running, its supervisor gone: the sweep here ends it, processes and all.
      // Left alive, it ran on unseen for good (its row no longer running, no reaper looked again),
      // and the window, now interrupted, was run a second time beside it.
      const swept = cairn(mine as string, ["sweep", "--json"], { env: agentEnv });
      expect(swept.code, swept.stderr).toBe(0);
      expect(swept.json).toMatchObject({ runs_interrupted: ["AR-1"] });
      await until(() => !alive(pid), 5_000);
    } finally {
      daemon.kill("SIGKILL");
      if (pid > 0 && alive(pid)) process.kill(pid, "SIGKILL");
    }
  });
});

async function waitForBeats(count: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (let seen = await beats(); seen < count; seen = await beats()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${count} beats (saw ${seen})`);
    await pause(50);
  }
}
