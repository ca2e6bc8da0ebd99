import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { enableIdentities, shellAgent, until, writeAgent } from "../helpers/agents.js";
import { CAIRN_BIN, cairn, cleanEnv, scratchDir, testPgUrl } from "../helpers/workspace.js";

/**
 * Two machines of one name on one shared board: a laptop and a CI runner both called by their
 * image's default host name. The second machine is this one seen through a mount namespace with
 * a boot id and a machine id of its own (as another kernel and another install would show), so it
 * needs root and unshare; elsewhere the suite is skipped.
 */
const canUnshare =
  process.getuid?.() === 0 && spawnSync("unshare", ["--mount", "true"], { stdio: "ignore" }).status === 0;

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

/** Start `cairn ARGS` in `cwd` on the other machine: same host name, another boot and install. */
function onTheOtherMachine(cwd: string, args: string[], extra: Record<string, string>) {
  const ids = join(root.dir, "other-machine");
  mkdirSync(ids, { recursive: true });
  writeFileSync(join(ids, "boot_id"), "0b0e7a11-0000-4000-8000-000000000001\n");
  writeFileSync(join(ids, "machine-id"), "0b0e7a1100004000800000000000000a\n");
  const script = [
    `mount --bind ${ids}/boot_id /proc/sys/kernel/random/boot_id`,
    `mount --bind ${ids}/machine-id /etc/machine-id`,
    'exec "$@"',
  ].join(" && ");
  return spawn("unshare", ["--mount", "sh", "-c", script, "sh", process.execPath, CAIRN_BIN, ...args], {
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
