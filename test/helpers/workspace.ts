import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { inject } from "vitest";
import { cairnInThread } from "./arrange.js";
import { hangReporting } from "./hang-report.js";

export const REPO_ROOT = resolve(import.meta.dirname, "../..");
// The package's `cairn` (package.json `bin`), as an installed command starts; bin/cairn.mjs, which
// only loads it, is covered in startup-fallbacks.
export const CAIRN_BIN = join(REPO_ROOT, "bin", "cairn.cjs");

/** A scratch directory, removed by `cleanup()`. Paths are real so they compare equal to cairn's. */
export function scratchDir(prefix = "cairn-test-"): { dir: string; cleanup: () => void } {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * The store the suites run against: SQLite, or (in the `pg` test project, CAIRN_TEST_STORE=
 * postgres) the run's PostgreSQL server, where every test workspace gets a schema of its own.
 */
export const STORE_UNDER_TEST: "sqlite" | "postgres" =
  process.env.CAIRN_TEST_STORE === "postgres" ? "postgres" : "sqlite";

/**
 * A directory name no other test uses. On PostgreSQL a workspace's schema is named after its
 * directory and one server serves the whole run, so two tests importing into a `target` of their
 * own would meet on one schema, and the second be refused (rightly: two projects, one board).
 */
export const uniqueName = (prefix: string) => `${prefix}-${randomBytes(4).toString("hex")}`;

/** The run's PostgreSQL server (test/helpers/pg-global.ts), with no password in the URL. */
export function testPgUrl(): string {
  return inject("pgUrl");
}

/** The environment a test process gets: no inherited identity or workspace overrides. */
export function cleanEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.CAIRN_AGENT;
  delete env.CAIRN_DIR;
  delete env.CAIRN_STORE_URL;
  if (STORE_UNDER_TEST === "postgres") env.CAIRN_STORE_URL = testPgUrl();
  env.CAIRN_HOME = join(tmpdir(), "cairn-test-no-home");
  for (const [key, value] of Object.entries(extra)) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  return env;
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON when it is JSON, else undefined. */
  json: unknown;
}

function toResult(code: number, stdout: string, stderr: string): CliResult {
  let json: unknown;
  try {
    json = JSON.parse(stdout);
  } catch {
    json = undefined;
  }
  return { code, stdout, stderr, json };
}

/** Run the built `cairn` as a subprocess, exactly as a user or a shell-using agent would. */
export function cairn(
  cwd: string,
  args: string[],
  options: { env?: Record<string, string | undefined>; input?: string; timeoutMs?: number } = {},
): CliResult {
  const run = spawnSync(process.execPath, [CAIRN_BIN, ...args], {
    cwd,
    env: cleanEnv(options.env),
    input: options.input,
    encoding: "utf8",
    timeout: options.timeoutMs ?? 30_000,
    // SIGTERM waits for cairn's event loop, which a runaway synchronous step never yields: the
    // test would then hang the whole run instead of failing.
    killSignal: "SIGKILL",
    maxBuffer: 256 * 1024 * 1024,
  });
  return toResult(run.status ?? -1, run.stdout, run.stderr);
}

/**
 * `cairn` for setting a test up: the same command run in a thread of this process
 * (helpers/arrange.ts) rather than a process of its own. Never for what the test checks.
 */
export function arrange(
  cwd: string,
  args: string[],
  options: { env?: Record<string, string | undefined> } = {},
): CliResult {
  const reply = cairnInThread(cwd, args, cleanEnv(options.env), cleanEnv());
  return toResult(reply.code, reply.stdout, reply.stderr);
}

/** Same as `cairn`, but without blocking the test's event loop: for parallel processes. */
export function cairnAsync(
  cwd: string,
  args: string[],
  options: {
    env?: Record<string, string | undefined>;
    /**
     * A process still running this long after it started is taken to hang: it is asked what it
     * waits on (test/helpers/hang-report.ts), then killed, and the promise rejects with that.
     */
    overstayMs?: number;
  } = {},
): Promise<CliResult> {
  const reporting =
    options.overstayMs === undefined
      ? null
      : hangReporting(STORE_UNDER_TEST === "postgres" ? testPgUrl() : null);
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [...(reporting?.nodeFlags ?? []), CAIRN_BIN, ...args], {
      cwd,
      env: cleanEnv(options.env),
    });
    let stdout = "";
    let stderr = "";
    let overstayed = false;
    const watch =
      reporting &&
      setTimeout(() => {
        overstayed = true;
        void reporting.describeAndKill(child.pid as number).then((described) => {
          reject(new Error(`cairn ${args.join(" ")} hung.\n\n${described}\n\nits stderr:\n${stderr}`));
        });
      }, options.overstayMs);
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (watch) clearTimeout(watch);
      if (overstayed) return;
      resolvePromise(toResult(code ?? -1, stdout, stderr));
    });
  });
}

/** A fresh workspace with `cairn init` run in it. */
export function initWorkspace(): { dir: string; cleanup: () => void } {
  const scratch = scratchDir();
  const init = arrange(scratch.dir, ["init"]);
  if (init.code !== 0) throw new Error(`cairn init failed: ${init.stderr}`);
  return scratch;
}

/**
 * The machine a server under test runs on, inside `dir`: a HOME, and a CAIRN_HOME whose cairn.toml
 * holds `toml` (an `[os]` section, say). The environment to start cairn with, and that file.
 */
export function machineHome(dir: string, toml: string): { env: Record<string, string>; config: string } {
  const env = { HOME: join(dir, "home"), CAIRN_HOME: join(dir, "cairn-home") };
  mkdirSync(env.CAIRN_HOME, { recursive: true });
  const config = join(env.CAIRN_HOME, "cairn.toml");
  writeFileSync(config, toml);
  return { env, config };
}

/** Add an agent through the CLI and return its token. */
export function addAgent(
  dir: string,
  name: string,
  role: string,
  extra: string[] = [],
): { id: string; token: string } {
  const added = arrange(dir, ["agent", "add", name, "--role", role, ...extra, "--json"]);
  if (added.code !== 0) throw new Error(`agent add failed (${added.code}): ${added.stderr}`);
  const out = added.json as { agent: { id: string }; token: string };
  return { id: out.agent.id, token: out.token };
}

export function runSync(command: string, args: string[], cwd: string): string {
  const run = spawnSync(command, args, { cwd, encoding: "utf8" });
  if (run.status !== 0) throw new Error(`${command} ${args.join(" ")} failed: ${run.stderr}`);
  return run.stdout;
}

/**
 * A FIFO at `path` whose one writer opens it two seconds from now: a reading that waits on it
 * takes that long, one that does not returns at once. Call the result to end the writer.
 */
export function fifoOpenedLate(path: string): () => void {
  runSync("mkfifo", [path], tmpdir());
  const writer = spawn("sh", ["-c", 'sleep 2; exec 3> "$1"', "sh", path], { stdio: "ignore" });
  return () => writer.kill("SIGKILL");
}
