import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { enableIdentities, shellAgent, until, writeAgent } from "../helpers/agents.js";
import { checkRun, gitRepo, nodeArgv } from "../helpers/goals.js";
import { CAIRN_BIN, cairn, cleanEnv, runSync, scratchDir, testPgUrl } from "../helpers/workspace.js";

/**
 * Two machines of one name on one shared board: a laptop and a CI runner both called by their
 * image's default host name. The second machine is this one seen through a mount namespace with
 * a boot id and a machine id of its own (as another kernel and another install would show), so it
 * needs root and unshare; elsewhere the suite is skipped.
 */
const canUnshare =
  process.getuid?.() === 0 &&
  // What the suite does, tried as it does it: a bind over this install's id in a mount namespace
  // of its own (a machine without /etc/machine-id has nothing to bind over), and a pid namespace.
  spawnSync("unshare", ["--mount", "sh", "-c", "mount --bind /etc/hostname /etc/machine-id"], {
    stdio: "ignore",
  }).status === 0 &&
  spawnSync("unshare", ["--pid", "--fork", "--mount-proc", "true"], { stdio: "ignore" }).status === 0;

let root: { dir: string; cleanup: () => void };
let laptop: string;
let runner: string;
const schema = `machines-${Date.now().toString(36)}`;
const env = { CAIRN_STORE_URL: undefined };

beforeAll(() => {
  root = scratchDir();
  laptop = join(root.dir, "laptop", "repo");
  runner = join(root.dir, "runner", "repo");
  mkdirSync(laptop, { recursive: true });
  mkdirSync(runner, { recursive: true });
  const url = `${testPgUrl()}?schema=${schema}`;
  expect(cairn(laptop, ["init", "--store", url], { env }).code).toBe(0);
  expect(cairn(runner, ["init", "--store", url], { env }).code).toBe(0);
});
afterAll(() => root?.cleanup());

/**
 * `cairn ARGS` on the other machine: same host name, another boot and install. `binds`
 * mount its own folders where this machine has others (a clone at the same path).
 */
function otherMachine(args: string[], binds: [string, string][] = []) {
  const ids = join(root.dir, "other-machine");
  mkdirSync(ids, { recursive: true });
  writeFileSync(join(ids, "boot_id"), "0b0e7a11-0000-4000-8000-000000000001\n");
  writeFileSync(join(ids, "machine-id"), "0b0e7a1100004000800000000000000a\n");
  const script = [
    `mount --bind ${ids}/boot_id /proc/sys/kernel/random/boot_id`,
    `mount --bind ${ids}/machine-id /etc/machine-id`,
    ...binds.map(([from, to]) => `mount --bind ${from} ${to}`),
    'cd "$PWD"',
    'exec "$@"',
  ].join(" && ");
  return ["unshare", ["--mount", "sh", "-c", script, "sh", process.execPath, CAIRN_BIN, ...args]] as const;
}

function onTheOtherMachine(cwd: string, args: string[], extra: Record<string, string>) {
  const [command, argv] = otherMachine(args);
  return spawn(command, argv, {
    cwd,
    env: cleanEnv({ ...env, ...extra }),
    stdio: ["ignore", "pipe", "pipe"],
  });
}

describe.runIf(canUnshare)("PostgreSQL: two machines of one host name", () => {
  it("a sweep on one leaves the other's live run alone: its minted token still acts", async () => {
    expect(cairn(runner, ["task", "add", "nightly triage"], { env }).code).toBe(0);
    expect(cairn(runner, ["agent", "add", "triage-bot", "--role", "builder"], { env }).code).toBe(0);
    const go = join(root.dir, "go");
    const claimed = join(root.dir, "claimed");
    // The run waits for a go, then claims with the token minted for it.
    const script = `while [ ! -e ${go} ]; do sleep 0.1; done; "${process.execPath}" "${CAIRN_BIN}" task claim T-1 > /dev/null 2>&1; echo $? > ${claimed}`;
    writeAgent(runner, "triage", shellAgent("triage", script, { rest: '[cairn]\nidentity = "triage-bot"' }));
    const machine = enableIdentities(runner, ["triage"], env);
    const run = onTheOtherMachine(runner, ["agents", "run", "triage", "--json"], machine);
    let out = "";
    run.stdout.on("data", (chunk) => {
      out += chunk;
    });
    const ended = new Promise<number | null>((resolve) => run.on("close", resolve));
    try {
      // The run has started: its minted agent is on the board.
      await until(() => {
        const agents = cairn(laptop, ["agent", "list", "--all", "--json"], { env }).json as {
          agents: { name: string }[];
        };
        return agents.agents.some((agent) => agent.name.startsWith("triage-bot-run-"));
      }, 20_000);

      // On the laptop, the run is another machine's: running, never read as interrupted.
      const status = cairn(laptop, ["agents", "status", "--json"], { env }).stdout;
      expect(status).not.toContain("interrupted");
      const swept = cairn(laptop, ["sweep", "--json"], { env });
      expect(swept.code, swept.stderr).toBe(0);
      expect(swept.json).toMatchObject({ runs_interrupted: [] });
      const agents = cairn(laptop, ["agent", "list", "--all", "--json"], { env }).json as {
        agents: { name: string; retired_at: string | null }[];
      };
      expect(agents.agents.find((agent) => agent.name.startsWith("triage-bot-run-"))?.retired_at).toBeNull();

      writeFileSync(go, "");
      await until(() => existsSync(claimed), 20_000);
      expect(readFileSync(claimed, "utf8").trim()).toBe("0");
      expect(await ended).toBe(0);
      expect(out).toContain('"status": "ok"');
    } finally {
      writeFileSync(go, "");
      run.kill("SIGKILL");
    }
  }, 90_000);
});

describe.runIf(canUnshare)("PostgreSQL: two machines of one host name, clones at one path", () => {
  it("an attempt opened in the other machine's clone is not evaluated in this one's", () => {
    const url = `${testPgUrl()}?schema=${schema}-attempts`;
    const clones = ["laptop-clone", "runner-clone"].map((name) => {
      const clone = gitRepo(`cairn-${name}-`);
      writeFileSync(join(clone.dir, "README.md"), `${name}\n`);
      runSync("git", ["add", "-A"], clone.dir);
      runSync("git", ["commit", "-qm", "base"], clone.dir);
      expect(cairn(clone.dir, ["init", "--store", url], { env }).code).toBe(0);
      return clone;
    });
    const [mine, theirs] = clones as [(typeof clones)[0], (typeof clones)[0]];
    try {
      const run = checkRun(mine.dir, { argv: nodeArgv("process.exit(0)") });
      // On the other machine its clone sits where this machine's does.
      const [command, argv] = otherMachine(["attempt", "open", run, "--json"], [[theirs.dir, mine.dir]]);
      const opened = spawnSync(command, argv, { cwd: mine.dir, env: cleanEnv(env), encoding: "utf8" });
      expect(opened.status, opened.stderr).toBe(0);
      const attempt = (JSON.parse(opened.stdout) as { attempt: { id: string; checkout: string } }).attempt;
      expect(attempt.checkout).toBe(mine.dir);

      const evaluated = cairn(mine.dir, ["attempt", "eval", attempt.id, "--json"], { env });
      expect(evaluated.code, evaluated.stdout + evaluated.stderr).toBe(3);
      expect((evaluated.json as { refused: { policy: string } }).refused.policy).toBe("checkout");
      // This machine opens its own attempt in its own clone: the other's is not in it.
      const own = cairn(mine.dir, ["attempt", "open", run, "--json"], { env });
      expect(own.code, own.stdout + own.stderr).toBe(0);
    } finally {
      for (const clone of clones) clone.cleanup();
    }
  });
});

describe.runIf(canUnshare)("PostgreSQL: a container on this machine serving the same board", () => {
  it("a sweep here leaves the container's running check alone", async () => {
    const box = join(root.dir, "box", "repo");
    mkdirSync(box, { recursive: true });
    expect(cairn(box, ["init", "--store", `${testPgUrl()}?schema=${schema}`], { env }).code).toBe(0);
    const done = join(root.dir, "box-check-done");
    const verify = ["sh", "-c", `sleep 4; echo finished > ${done}`];
    const added = cairn(
      laptop,
      ["task", "add", "slow check", "--criteria", JSON.stringify({ text: "slow", verify }), "--json"],
      {
        env,
      },
    );
    const task = (added.json as { task: { id: string } }).task.id;
    expect(cairn(laptop, ["task", "claim", task], { env }).code).toBe(0);
    // A pid namespace of its own, where cairn's pid is one this machine's namespace has free.
    const script = `i=0; while [ $i -lt 2000 ]; do /bin/true; i=$((i+1)); done; "$0" "$@"`;
    const check = spawn(
      "unshare",
      [
        "--pid",
        "--fork",
        "--mount-proc",
        "sh",
        "-c",
        script,
        process.execPath,
        CAIRN_BIN,
        "task",
        "check",
        task,
        "--n",
        "1",
      ],
      { cwd: box, env: cleanEnv(env), stdio: ["ignore", "pipe", "pipe"] },
    );
    let out = "";
    check.stdout.on("data", (chunk) => {
      out += chunk;
    });
    const ended = new Promise<number | null>((resolve) => check.on("close", resolve));
    // Its verify command is running.
    await until(() => spawnSync("pgrep", ["-f", `echo finished > ${done}`]).status === 0, 30_000);
    const swept = cairn(laptop, ["sweep", "--json"], { env });
    expect(swept.code, swept.stderr).toBe(0);
    expect(await ended, out).toBe(0);
    expect(existsSync(done)).toBe(true);
    expect(out).toContain("every criterion is checked");
  }, 90_000);
});
