import { execFileSync, spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { shellAgent, writeAgent } from "../helpers/agents.js";
import { cairnJson, gitWorkspace } from "../helpers/goals.js";
import { CAIRN_BIN, cleanEnv, initWorkspace, STORE_UNDER_TEST } from "../helpers/workspace.js";

/**
 * Files an agent that can write the checkout may put a FIFO in the place of: each is read only
 * if it is a regular file. A blocking read of a FIFO holds the whole process (and SIGTERM with
 * it, since a handler cannot run), so each command here gets SIGKILL past its deadline.
 */
const DEADLINE_MS = 20_000;

function cairnWithin(cwd: string, args: string[], env: Record<string, string> = {}) {
  const started = Date.now();
  const run = spawnSync(process.execPath, [CAIRN_BIN, ...args], {
    cwd,
    env: cleanEnv(env),
    encoding: "utf8",
    timeout: DEADLINE_MS,
    killSignal: "SIGKILL",
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr, ms: Date.now() - started };
}

const mkfifo = (path: string) => execFileSync("mkfifo", [path]);

describe.skipIf(process.platform === "win32")("a FIFO in the place of a file cairn reads", () => {
  const cleanups: (() => void)[] = [];
  afterEach(() => {
    for (const cleanup of cleanups.splice(0)) cleanup();
  });
  const workspace = (make: () => { dir: string; cleanup: () => void }) => {
    const ws = make();
    cleanups.push(ws.cleanup);
    return ws.dir;
  };

  it("a local agent's run log: agents logs says so, and a run whose log path is taken still runs, writing nowhere else", () => {
    const dir = workspace(initWorkspace);
    const env = { DOTAGENT_HOME: join(dir, "no-dotagent") };
    writeAgent(dir, "talker", shellAgent("talker", "echo hello"));
    const ran = () => {
      const run = cairnWithin(dir, ["agents", "run", "talker", "--json"], env);
      expect(run.ms).toBeLessThan(DEADLINE_MS);
      expect(run.code, run.stderr).toBe(0);
      return (JSON.parse(run.stdout) as { run: { id: string; log_path: string } }).run;
    };
    const first = ran();
    // The last run's log replaced by a FIFO: the read-only tool answers at once.
    rmSync(first.log_path);
    mkfifo(first.log_path);
    const logs = cairnWithin(dir, ["agents", "logs", "talker", "--json"], env);
    expect(logs.ms).toBeLessThan(DEADLINE_MS);
    expect(logs.code).toBe(1);
    expect(logs.stderr).toMatch(/not a regular file/);
    // The next runs' logs (their ids are predictable) taken by a FIFO and by a link to a file.
    const next = Number(first.id.replace(/^AR-/, "")) + 1;
    const folder = dirname(first.log_path);
    mkfifo(join(folder, `AR-${next}.log`));
    const victim = join(dir, "victim.txt");
    writeFileSync(victim, "keep\n");
    symlinkSync(victim, join(folder, `AR-${next + 1}.log`));
    ran();
    ran();
    expect(readFileSync(victim, "utf8")).toBe("keep\n");
    const latest = cairnWithin(dir, ["agents", "logs", "talker", "--json"], env);
    expect(latest.code, latest.stderr).toBe(0);
    expect(JSON.parse(latest.stdout)).toMatchObject({ run_id: `AR-${next + 1}`, lines: ["hello"] });
  });

  it("the daemon's lock file: status answers, and the next daemon takes the lock over", () => {
    const dir = workspace(initWorkspace);
    const env = { DOTAGENT_HOME: join(dir, "no-dotagent") };
    mkfifo(join(dir, ".cairn", "daemon.pid"));
    for (const args of [
      ["status", "--json"],
      ["agents", "status", "--json"],
      ["daemon", "--once", "--json"],
    ]) {
      const run = cairnWithin(dir, args, env);
      expect(run.ms, args.join(" ")).toBeLessThan(DEADLINE_MS);
      expect(run.code, `${args.join(" ")}: ${run.stderr}`).toBe(0);
    }
  });

  it("package.json, which `npm test` evaluators freeze as an input: the freeze goes on", () => {
    const dir = workspace(() =>
      gitWorkspace({ "package.json": '{"name":"x","scripts":{"test":"node t.mjs"}}\n', "t.mjs": "\n" }),
    );
    const goal = cairnJson<{ goal: { id: string } }>(dir, ["goal", "create", "make the tests pass"]).goal.id;
    cairnJson(dir, ["goal", "update", goal, "--outcome", "the tests pass"]);
    cairnJson(dir, ["goal", "plan", goal]);
    rmSync(join(dir, "package.json"));
    mkfifo(join(dir, "package.json"));
    const freeze = cairnWithin(dir, ["run", "freeze", goal, "--json"]);
    expect(freeze.ms).toBeLessThan(DEADLINE_MS);
    expect(freeze.code, freeze.stderr).toBe(0);
  });

  it("a nested .cairn/cairn.toml or a worktree's commondir met while finding the workspace", () => {
    const dir = workspace(initWorkspace);
    mkdirSync(join(dir, "nested", ".cairn"), { recursive: true });
    mkfifo(join(dir, "nested", ".cairn", "cairn.toml"));
    const nested = cairnWithin(join(dir, "nested"), ["status", "--json"]);
    expect(nested.ms).toBeLessThan(DEADLINE_MS);
    if (STORE_UNDER_TEST === "sqlite") {
      expect(nested.code, nested.stderr).toBe(0);
    } else {
      // With CAIRN_STORE_URL naming the server, any .cairn/cairn.toml marks a workspace: this one
      // has no schema there yet, and says so at once.
      expect(nested.code).toBe(1);
      expect(nested.stderr).toContain("no cairn workspace on postgres");
    }

    mkdirSync(join(dir, "linked"));
    mkdirSync(join(dir, "gitdir"));
    writeFileSync(join(dir, "linked", ".git"), "gitdir: ../gitdir\n");
    mkfifo(join(dir, "gitdir", "commondir"));
    const linked = cairnWithin(join(dir, "linked"), ["status", "--json"]);
    expect(linked.ms).toBeLessThan(DEADLINE_MS);
    expect(linked.code, linked.stderr).toBe(0);
  });

  it("the file `cairn import` restores: refused at once, as a file that is missing is not found", () => {
    const dir = mkdtempSync(join(tmpdir(), "cairn-import-fifo-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    mkfifo(join(dir, "backup.jsonl"));
    // Blocked opening it, the process could not even exit on SIGTERM: its exit waits for the open.
    const fifo = cairnWithin(dir, ["import", "backup.jsonl", "--json"]);
    expect(fifo.ms).toBeLessThan(DEADLINE_MS);
    expect(fifo.code, fifo.stderr).toBe(2);
    expect(fifo.stderr).toMatch(/not a regular file/);
    const missing = cairnWithin(dir, ["import", "missing.jsonl", "--json"]);
    expect(missing.code, missing.stderr).toBe(4);
    expect(existsSync(join(dir, ".cairn"))).toBe(false);
  });

  it("cairn.toml itself: commands read defaults, role add and export refuse to go on", () => {
    const dir = workspace(initWorkspace);
    const config = join(dir, ".cairn", "cairn.toml");
    rmSync(config);
    mkfifo(config);
    const status = cairnWithin(dir, ["status", "--json"]);
    expect(status.ms).toBeLessThan(DEADLINE_MS);
    expect(status.code, status.stderr).toBe(0);
    const role = cairnWithin(dir, ["role", "add", "reviewer", "--json"]);
    expect(role.ms).toBeLessThan(DEADLINE_MS);
    expect(role.code).toBe(1);
    expect(role.stderr).toMatch(/not a regular file/);
    const exported = cairnWithin(dir, ["export", "--json"]);
    expect(exported.ms).toBeLessThan(DEADLINE_MS);
    expect(exported.code).toBe(1);
    expect(exported.stderr).toMatch(/not a regular file/);
  });

  it("the audit log: a write is not done, verify reports the chain broken, tail refuses", () => {
    const dir = workspace(initWorkspace);
    const log = join(dir, ".cairn", "audit.jsonl");
    rmSync(log, { force: true });
    mkfifo(log);
    const added = cairnWithin(dir, ["task", "add", "not recorded, so not done", "--json"]);
    expect(added.ms).toBeLessThan(DEADLINE_MS);
    expect(added.code, added.stderr).toBe(1);
    expect(added.stderr).toMatch(/audit\.jsonl cannot be appended to \(not a regular file\)/);
    expect(cairnJson<{ tasks: unknown[] }>(dir, ["task", "list"]).tasks).toEqual([]);
    const verify = cairnWithin(dir, ["audit", "verify", "--json"]);
    expect(verify.ms).toBeLessThan(DEADLINE_MS);
    expect(verify.code).toBe(5);
    expect(verify.stderr).toMatch(/audit chain broken at audit\.jsonl line 1: not a regular file/);
    const tail = cairnWithin(dir, ["audit", "tail", "--json"]);
    expect(tail.ms).toBeLessThan(DEADLINE_MS);
    expect(tail.code).toBe(1);
    expect(tail.stderr).toMatch(/not a regular file/);
  });
});
