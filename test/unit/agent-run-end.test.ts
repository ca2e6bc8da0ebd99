import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { agentCatalog } from "../../src/domains/agents/catalog.js";
import { DAEMON_META_KEY, Daemon } from "../../src/domains/agents/daemon-loop.js";
import { agentDigest, enableLine } from "../../src/domains/agents/identity-enabling.js";
import { isProblem, loadManifest } from "../../src/domains/agents/manifest.js";
import { remediate } from "../../src/domains/agents/remediate.js";
import { runAgent } from "../../src/domains/agents/runner.js";
import { OWNER } from "../../src/domains/identity/actor.js";
import { addAgent } from "../../src/domains/identity/agents.js";
import { WorkspaceConfig } from "../../src/domains/workspace/config.js";
import { projectWorkspace } from "../../src/domains/workspace/discover.js";
import { openStore } from "../../src/store/open.js";
import type { Store, Tx } from "../../src/store/store.js";
import { scratchDir } from "../helpers/workspace.js";

let scratch: { dir: string; cleanup: () => void };
let store: Store;
const now = () => new Date().toISOString();

/** A daemon of the scratch workspace on `over`, with no agents of the home folders. */
const daemonOf = (over: Store, log: (line: string) => void = () => {}) =>
  new Daemon({
    store: over,
    workspace: projectWorkspace(scratch.dir),
    env: { ...process.env, CAIRN_HOME: join(scratch.dir, "home"), DOTAGENT_HOME: join(scratch.dir, "no") },
    actorId: "owner",
    log,
  });

beforeEach(() => {
  scratch = scratchDir();
  mkdirSync(join(scratch.dir, ".cairn"));
  store = openStore(join(scratch.dir, ".cairn", "cairn.db"), { create: true });
});
afterEach(async () => {
  await store.close();
  scratch.cleanup();
});

/** The store, except that the first `times` calls to `part` inside a write fail, as a full disk would. */
function failing(
  part: (tx: Tx) => (...args: never[]) => Promise<unknown>,
  owner: keyof Tx,
  times: number,
): Store {
  let failures = 0;
  const wrap = (tx: Tx): Tx =>
    new Proxy(tx, {
      get(target, key) {
        const repo = Reflect.get(target, key);
        if (key !== owner || failures >= times) return repo;
        const doomed = part(target);
        return new Proxy(repo, {
          get(inner, name) {
            const member = Reflect.get(inner, name);
            if (member !== doomed || failures >= times)
              return typeof member === "function" ? member.bind(inner) : member;
            return async () => {
              failures++;
              throw new Error("disk I/O error");
            };
          },
        });
      },
    });
  return { ...store, read: store.read.bind(store), write: (work) => store.write((tx) => work(wrap(tx))) };
}

/** Write the workspace's manifest of agent `name` (`.cairn/agents/NAME/agent.toml`); its path. */
function writeManifest(name: string, toml: string): string {
  const dir = join(scratch.dir, ".cairn", "agents", name);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, "agent.toml");
  writeFileSync(file, toml);
  return file;
}

/** The manifest at `file`, loaded; one that does not load fails the test. */
function loadedAgent(file: string) {
  const agent = loadManifest(file);
  if (isProblem(agent)) throw new Error(agent.reason);
  return agent;
}

/** A local agent that acts on the board as `nightly-bot` (a token minted per run). */
async function agentWithIdentity() {
  await addAgent(store, WorkspaceConfig.parse({}), OWNER, { name: "nightly-bot", role: "builder" }, now());
  const agent = loadedAgent(
    writeManifest(
      "nightly",
      ['[agent]\nname = "nightly"', '[run]\ncommand = "true"', '[cairn]\nidentity = "nightly-bot"', ""].join(
        "\n",
      ),
    ),
  );
  // The machine's operator enabled it to act as nightly-bot, at its folder's digest now.
  const home = join(scratch.dir, "home");
  mkdirSync(home, { recursive: true });
  const { digest } = agentDigest(agent, projectWorkspace(scratch.dir));
  writeFileSync(join(home, "cairn.toml"), `[agents.identities]\n${enableLine("nightly", digest)}\n`);
  return { agent, env: { ...process.env, CAIRN_HOME: home } };
}

const runTokens = (s: Store) =>
  s.read(async (tx) =>
    (await tx.agents.list({ includeRetired: true })).filter((agent) =>
      agent.name.startsWith("nightly-bot-run-"),
    ),
  );

describe("the end of a run that holds a minted token", () => {
  it("never records the run as over while its token still works, whichever part of the end fails", async () => {
    const { agent, env } = await agentWithIdentity();
    const workspace = projectWorkspace(scratch.dir);
    const request = { agent, trigger: "cli" as const, workspace, env, actorId: "owner", now };

    // Retiring the token fails once: the end is written again, token and row together.
    const retireFailsOnce = failing((tx) => tx.agents.retire, "agents", 1);
    expect((await runAgent({ ...request, store: retireFailsOnce })).run.status).toBe("ok");
    // Recording the run's end fails every time: the token is retired all the same, and the row
    // stays running for the reaper to end once this process is gone.
    const finishFails = failing((tx) => tx.agentRuns.finish, "agentRuns", Number.POSITIVE_INFINITY);
    await expect(runAgent({ ...request, store: finishFails })).rejects.toThrow(/disk I\/O error/);

    const minted = await runTokens(store);
    expect(minted).toHaveLength(2);
    for (const token of minted) expect(token.retiredAt).not.toBeNull();
    const runs = await store.read((tx) => tx.agentRuns.recent({ agent: "nightly", limit: 10 }));
    expect(runs.map((run) => run.status).sort()).toEqual(["ok", "running"]);
  });
});

describe("the end of a remediation", () => {
  it("is written again after a failed write, never leaving the row running under a live supervisor", async () => {
    writeManifest(
      "fixable",
      '[agent]\nname = "fixable"\n[run]\ncommand = "true"\n[[preflight]]\ncommand = "false"\nremediation = ["true"]\n',
    );
    const workspace = projectWorkspace(scratch.dir);
    const env = {
      ...process.env,
      CAIRN_HOME: join(scratch.dir, "home"),
      DOTAGENT_HOME: join(scratch.dir, "no"),
    };
    const tool = agentCatalog(workspace, env).remediations[0];
    if (!tool) throw new Error("no remediation tool");
    const finishFailsOnce = failing((tx) => tx.agentRuns.finish, "agentRuns", 1);
    const result = await remediate(finishFailsOnce, workspace, tool, env, "owner", now);
    expect(result.exit_code).toBe(0);
    const run = await store.read((tx) => tx.agentRuns.byId(result.run_id));
    expect(run?.status).toBe("ok");
  });
});

describe("the daemon with a store that fails a write", () => {
  it("logs the failed pass and goes on beating, never stopping the scheduler", async () => {
    const logs: string[] = [];
    const daemon = daemonOf(
      failing((tx) => tx.meta.set, "meta", 1),
      (line) => logs.push(line),
    );
    const running = daemon.run();
    const beat = () => store.read((tx) => tx.meta.get(DAEMON_META_KEY));
    let stopped: unknown;
    running.catch((error: unknown) => {
      stopped = error;
    });
    for (let i = 0; i < 200 && stopped === undefined && (await beat()) === undefined; i++) {
      daemon.wake();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    daemon.stop();
    await running;
    expect(await beat()).toBeDefined();
    expect(logs.join("\n")).toContain("disk I/O error");
  });
});

describe("the daemon lock", () => {
  it("is taken over from a dangling link left in its place", async () => {
    symlinkSync(join(scratch.dir, "nowhere", "daemon.pid"), join(scratch.dir, ".cairn", "daemon.pid"));
    const daemon = daemonOf(store);
    expect((await daemon.once(false)).scanned).toBe(0);
  });
});

describe("the daemon's manifest watch", () => {
  it("wakes for an agent's manifest, never for the files an agent writes in its own folder", async () => {
    const folder = join(scratch.dir, ".cairn", "agents", "writer");
    mkdirSync(folder, { recursive: true });
    const manifest = '[agent]\nname = "writer"\n[run]\ncommand = "true"\n';
    writeFileSync(join(folder, "agent.toml"), manifest);
    const daemon = daemonOf(store);
    // Every pass beats once: the beats count the passes.
    const beats = () =>
      store.read(async (tx) => (await tx.journal.list({ action: "agent.daemon.beat", limit: 100 })).length);
    const until = async (count: number) => {
      for (let i = 0; i < 500 && (await beats()) < count; i++)
        await new Promise((resolve) => setTimeout(resolve, 10));
    };
    const running = daemon.run();
    await until(1);
    expect(await beats()).toBe(1);
    for (let i = 0; i < 3; i++) writeFileSync(join(folder, "progress.txt"), `${i}\n`);
    // Past the watch's settling time (200 ms): a wake-up would have made its pass by now.
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(await beats()).toBe(1);
    writeFileSync(join(folder, "agent.toml"), `${manifest}# edited\n`);
    await until(2);
    expect(await beats()).toBe(2);
    daemon.stop();
    await running;
  });
});

describe("a run whose timeout is longer than a date reaches", () => {
  it("runs, its deadline the last one a date holds (an agent meant never to time out)", async () => {
    const agent = loadedAgent(
      writeManifest(
        "forever",
        '[agent]\nname = "forever"\ntimeout_seconds = 10000000000000\n[run]\ncommand = "true"\n',
      ),
    );
    const workspace = projectWorkspace(scratch.dir);
    const { run } = await runAgent({
      agent,
      trigger: "cli",
      workspace,
      env: process.env,
      actorId: "owner",
      store,
      now,
    });
    expect(run.status).toBe("ok");
    expect(Date.parse(run.deadlineAt as string)).toBeGreaterThan(Date.parse("9999-01-01T00:00:00Z"));
  });
});
