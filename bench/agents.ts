import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { buildCatalog, catalogToolSchemas } from "../src/commands/catalog-build.js";
import { Session } from "../src/commands/context.js";
import { RACY_MS } from "../src/kernel/stamp-cache.js";
import { header, ms, percentile, report } from "./report.js";
import { baseEnv, CAIRN, cairnServer, connect, minimalServer, type ServerUnderTest } from "./servers.js";

const ONLY = new Set((process.env.BENCH_AGENTS_ONLY ?? "").split(",").filter(Boolean));
const wanted = (part: string) => ONLY.size === 0 || ONLY.has(part);

const median = (samples: number[]) => percentile(samples, 50);

function workspaceWith(agents: number, toml: (i: number) => string): string {
  const dir = mkdtempSync(join(tmpdir(), "cairn-bench-agents-"));
  const init = spawnSync(process.execPath, [CAIRN, "init"], {
    cwd: dir,
    env: benchEnv(dir),
    encoding: "utf8",
  });
  if (init.status !== 0) throw new Error(`cairn init failed: ${init.stderr}`);
  for (let i = 0; i < agents; i++) {
    const folder = join(dir, ".cairn", "agents", `agent-${String(i).padStart(3, "0")}`);
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, "agent.toml"), toml(i));
  }
  return dir;
}

const benchEnv = (dir: string) =>
  baseEnv({ DOTAGENT_HOME: join(dir, "no-dotagent"), CAIRN_HOME: join(dir, "no-home") });

const plain = (i: number) =>
  `[agent]\nname = "agent-${i}"\ndescription = "Benchmark agent ${i}: runs true."\n[run]\ncommand = "true"\n[[schedules]]\nid = "hourly"\ntype = "interval"\ninterval_minutes = 600\n`;

async function catalogBuild(): Promise<void> {
  const dir = workspaceWith(500, plain);
  // Manifests changed within the last RACY_MS are parsed again on every build (stamp-cache.ts): let
  // the fresh workspace settle so the rebuild figure shows a server's steady state.
  await new Promise((resolve) => setTimeout(resolve, RACY_MS));
  const session = new Session({ cwd: dir, env: benchEnv(dir), profile: "operator" });
  const ctx = await session.context();
  const samples: number[] = [];
  const reads: number[] = [];
  for (let round = 0; round < 15; round++) {
    let started = performance.now();
    const built = await buildCatalog(ctx, "operator");
    for (const tool of built.tools) catalogToolSchemas(tool);
    samples.push(performance.now() - started);
    started = performance.now();
    const root = join(dir, ".cairn", "agents");
    for (const entry of readdirSync(root)) readFileSync(join(root, entry, "agent.toml"), "utf8");
    reads.push(performance.now() - started);
  }
  await session.close();
  report({
    name: "catalog build, 500 manifests, first (parses all)",
    figure: ms(samples[0] ?? Number.NaN),
    baseline: `reading the 500 files: ${ms(reads[0] ?? Number.NaN)}`,
    goal: "≤ 100 ms",
    met: (samples[0] ?? Number.NaN) <= 100,
  });
  report({
    name: "catalog rebuild, 500 unchanged (median of 15)",
    figure: ms(median(samples)),
    baseline: `reading the 500 files: ${ms(median(reads))}`,
    goal: "≤ 100 ms",
    met: median(samples) <= 100,
  });
}

/**
 * Spawn → initialize → tools/list answered, over raw JSON-RPC lines: what the server costs, not
 * what an SDK client spends compiling each tool's output schema afterwards.
 */
function rawListOnce(server: ServerUnderTest): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, server.args, {
    cwd: server.cwd,
    env: baseEnv(server.env),
    stdio: ["pipe", "pipe", "ignore"],
  });
  return new Promise((resolve, reject) => {
    let buffer = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      buffer += chunk;
      for (let newline = buffer.indexOf("\n"); newline !== -1; newline = buffer.indexOf("\n")) {
        const message = JSON.parse(buffer.slice(0, newline)) as { id?: number; error?: unknown };
        buffer = buffer.slice(newline + 1);
        if (message.id === 1) {
          child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
          child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" })}\n`);
        } else if (message.id === 2) {
          const elapsed = performance.now() - started;
          child.kill();
          if (message.error) reject(new Error(JSON.stringify(message.error)));
          else resolve(elapsed);
        }
      }
    });
    child.stdin.write(
      `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bench", version: "1" } } })}\n`,
    );
  });
}

async function coldStart(server: ServerUnderTest): Promise<number> {
  const samples: number[] = [];
  for (let run = 0; run < 5; run++) samples.push(await rawListOnce(server));
  return median(samples);
}

async function coldStarts(): Promise<void> {
  const baseline = await coldStart(minimalServer());
  for (const count of [0, 50, 500]) {
    const dir = workspaceWith(count, plain);
    const figure = await coldStart({ ...cairnServer(dir, ["--profile", "operator"], benchEnv(dir)) });
    report({
      name: `cold start + tools/list, ${count} agents`,
      figure: ms(figure),
      baseline: `minimal SDK server: ${ms(baseline)}`,
    });
  }
}

async function runOverhead(): Promise<void> {
  const dir = workspaceWith(1, () => '[agent]\nname = "truth"\n[run]\ncommand = "true"\n');
  const { client } = await connect(cairnServer(dir, ["--profile", "operator"], benchEnv(dir)));
  const call = { name: "run-truth", arguments: { schema_version: 1 } };
  for (let i = 0; i < 5; i++) await client.callTool(call);
  const calls: number[] = [];
  for (let i = 0; i < 40; i++) {
    const started = performance.now();
    await client.callTool(call);
    calls.push(performance.now() - started);
  }
  await client.close();
  const spawns: number[] = [];
  for (let i = 0; i < 40; i++) {
    const started = performance.now();
    await new Promise((resolve) => spawn("true").on("close", resolve));
    spawns.push(performance.now() - started);
  }
  report({
    name: "run-<agent> call around `true` (median of 40)",
    figure: ms(median(calls)),
    baseline: `spawning true: ${ms(median(spawns))}; overhead ${ms(median(calls) - median(spawns))}`,
    goal: "overhead ≤ 20 ms",
    met: median(calls) - median(spawns) <= 20,
  });
}

const cpuSeconds = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  return (Number(fields[11]) + Number(fields[12])) / 100;
};

async function startDaemon(dir: string): Promise<{ pid: number; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, [CAIRN, "daemon"], {
    cwd: dir,
    env: benchEnv(dir),
    stdio: ["ignore", "ignore", "pipe"],
  });
  await new Promise<void>((resolve) =>
    child.stderr.on("data", (chunk: Buffer) => chunk.toString().includes("started") && resolve()),
  );
  return {
    pid: child.pid as number,
    stop: () =>
      new Promise((resolve) => {
        child.on("close", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function daemonIdle(): Promise<void> {
  const seconds = Number(process.env.BENCH_IDLE_SECONDS ?? 60);
  const dir = workspaceWith(100, plain);
  const daemon = await startDaemon(dir);
  // The first tick dispatches all 100 windows; idle starts once they are done.
  await sleep(5_000);
  const before = cpuSeconds(daemon.pid);
  await sleep(seconds * 1000);
  const used = cpuSeconds(daemon.pid) - before;
  await daemon.stop();
  const idle = spawn(process.execPath, ["-e", "setInterval(() => {}, 1e9)"]);
  await sleep(1_000);
  const idleBefore = cpuSeconds(idle.pid as number);
  await sleep(Math.min(seconds, 10) * 1000);
  const idleUsed = ((cpuSeconds(idle.pid as number) - idleBefore) * seconds) / Math.min(seconds, 10);
  idle.kill();
  report({
    name: `daemon CPU idle ${seconds} s, 100 schedules`,
    figure: `${used.toFixed(2)} s`,
    baseline: `an idle node process: ${idleUsed.toFixed(2)} s`,
    goal: "< 0.5 s",
    met: used < 0.5,
  });
}

async function dispatchLateness(): Promise<void> {
  const dir = workspaceWith(
    20,
    (i) =>
      `[agent]\nname = "minute-${i}"\n[run]\ncommand = "true"\n[[schedules]]\nid = "m"\ntype = "expression"\nexpression = "* * * * *"\n`,
  );
  const daemon = await startDaemon(dir);
  // The windows open at the next minute boundary; the daemon must be asleep until then.
  const boundary = Math.ceil((Date.now() + 1000) / 60_000) * 60_000;
  await sleep(boundary - Date.now() + 4_000);
  await daemon.stop();
  const db = new Database(join(dir, ".cairn", "cairn.db"), { readonly: true });
  const rows = db
    .prepare<[string], { window_at: string; started_at: string }>(
      "SELECT window_at, started_at FROM agent_runs WHERE trigger = 'schedule' AND window_at >= ?",
    )
    .all(new Date(boundary).toISOString());
  db.close();
  const late = rows.map((row) => Date.parse(row.started_at) - Date.parse(row.window_at));
  report({
    name: `dispatch lateness after a window opens (${late.length} runs)`,
    figure: `p99 ${ms(percentile(late, 99))}`,
    baseline: `p50 ${ms(percentile(late, 50))}`,
    goal: "p99 ≤ 1 s",
    met: percentile(late, 99) <= 1000,
  });
}

export async function benchAgents(): Promise<void> {
  header("local agents");
  if (wanted("catalog")) await catalogBuild();
  if (wanted("cold")) await coldStarts();
  if (wanted("run")) await runOverhead();
  if (wanted("lateness")) await dispatchLateness();
  if (wanted("idle")) await daemonIdle();
}
