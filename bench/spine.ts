import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { CATALOG_GOALS, estimateTokens, modelVisibleTokens } from "../src/commands/catalog-cost.js";
import { tempDir } from "../src/kernel/temp-dir.js";
import { header, ms, percentile, report } from "./report.js";
import {
  baseEnv,
  CAIRN,
  cairnServer,
  coldStart,
  connect,
  memoryServer,
  minimalServer,
  type ServerUnderTest,
} from "./servers.js";

const COLD_RUNS = 20;
const WARM_CALLS = 2_000;
const CLI_RUNS = 20;

function scratchWorkspace(): string {
  const dir = tempDir("cairn-bench-");
  const init = spawnSync(process.execPath, [CAIRN, "init"], { cwd: dir, env: baseEnv(), encoding: "utf8" });
  if (init.status !== 0) throw new Error(`cairn init failed: ${init.stderr}`);
  return dir;
}

async function warmRoundTrips(server: ServerUnderTest): Promise<number[]> {
  const { client } = await connect(server);
  for (let i = 0; i < 50; i++) await client.callTool(server.call);
  const samples: number[] = [];
  for (let i = 0; i < WARM_CALLS; i++) {
    const started = performance.now();
    await client.callTool(server.call);
    samples.push(performance.now() - started);
  }
  await client.close();
  return samples;
}

async function idleRssMb(server: ServerUnderTest): Promise<number> {
  const { client, pid } = await connect(server);
  await client.listTools();
  await client.callTool(server.call);
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  await client.close();
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
  return kb / 1024;
}

/**
 * Minor page faults of this process's reaped children so far (Linux: /proc/self/stat, cminflt).
 * A start-up's cost is mostly memory touched for the first time: on a virtual machine each new
 * page costs microseconds, and the count repeats from run to run where wall clock swings with
 * the machine's load.
 */
function childPageFaults(): number {
  const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1]?.split(" ") ?? [];
  return Number(fields[8]);
}

/** One process run to completion: wall clock, and the pages it touched first. */
function processRun(args: string[], cwd: string): { ms: number; faults: number } {
  const faultsBefore = childPageFaults();
  const started = performance.now();
  const run = spawnSync(process.execPath, args, { cwd, env: baseEnv(), stdio: "ignore" });
  const elapsed = performance.now() - started;
  if (run.status !== 0) throw new Error(`${args.join(" ")} exited ${run.status}`);
  return { ms: elapsed, faults: childPageFaults() - faultsBefore };
}

const median = (samples: number[]) => percentile(samples, 50);

async function coldStarts(servers: ServerUnderTest[]): Promise<number[][]> {
  const samples: number[][] = servers.map(() => []);
  // Interleaved, so drift on a busy machine hits every server alike.
  for (let run = 0; run < COLD_RUNS; run++) {
    for (const [index, server] of servers.entries()) samples[index]?.push(await coldStart(server));
  }
  return samples;
}

export async function benchSpine(): Promise<void> {
  const workspace = scratchWorkspace();
  const cairn = cairnServer(workspace);
  const minimal = minimalServer();
  const memory = memoryServer();

  header("spine: start-up, round trip, memory, catalog");
  const [coldCairn = [], coldMinimal = [], coldMemory = []] = await coldStarts([cairn, minimal, memory]);
  report({
    name: `cold start, median of ${COLD_RUNS}`,
    figure: ms(median(coldCairn)),
    baseline: `minimal ${ms(median(coldMinimal))}, memory ${ms(median(coldMemory))}`,
    goal: `ratio ${(median(coldCairn) / median(coldMinimal)).toFixed(2)} / ${(median(coldCairn) / median(coldMemory)).toFixed(2)} (goal ≤ 1.00, stretch 0.70)`,
    met: median(coldCairn) <= median(coldMinimal),
  });

  const cli: { ms: number; faults: number }[] = [];
  const bare: { ms: number; faults: number }[] = [];
  for (let run = 0; run < CLI_RUNS; run++) {
    cli.push(processRun([CAIRN, "status"], workspace));
    bare.push(processRun(["-e", "0"], workspace));
  }
  const cliMs = median(cli.map((run) => run.ms));
  const bareMs = median(bare.map((run) => run.ms));
  report({
    name: `cairn status, median of ${CLI_RUNS}`,
    figure: ms(cliMs),
    baseline: `node -e 0 ${ms(bareMs)}`,
    goal: `+${ms(cliMs - bareMs)} (goal ≤ +60 ms)`,
    met: cliMs - bareMs <= 60,
  });
  const cliFaults = median(cli.map((run) => run.faults));
  const bareFaults = median(bare.map((run) => run.faults));
  report({
    name: "  … pages touched first (minor faults)",
    figure: cliFaults.toLocaleString("en"),
    baseline: `node -e 0 ${bareFaults.toLocaleString("en")}`,
    goal: `+${(cliFaults - bareFaults).toLocaleString("en")} (repeats where wall clock swings)`,
  });

  const warm = await warmRoundTrips(cairn);
  const warmMinimal = await warmRoundTrips(minimal);
  report({
    name: `whoami round trip over stdio, ${WARM_CALLS} calls`,
    figure: `p50 ${ms(percentile(warm, 50))}`,
    baseline: `minimal p50 ${ms(percentile(warmMinimal, 50))}`,
    goal: "p50 ≤ 1 ms",
    met: percentile(warm, 50) <= 1,
  });
  report({
    name: "  … p99",
    figure: `p99 ${ms(percentile(warm, 99))}`,
    baseline: `minimal p99 ${ms(percentile(warmMinimal, 99))}`,
  });

  const rss = await idleRssMb(cairn);
  const rssMinimal = await idleRssMb(minimal);
  const rssMemory = await idleRssMb(memory);
  report({
    name: "idle resident memory",
    figure: `${rss.toFixed(1)} MB`,
    baseline: `minimal ${rssMinimal.toFixed(1)} MB, memory ${rssMemory.toFixed(1)} MB`,
    goal: `ratio ${(rss / rssMinimal).toFixed(2)} / ${(rss / rssMemory).toFixed(2)} (goal ≤ 1.00)`,
    met: rss <= rssMinimal,
  });

  for (const profile of ["worker", "planner", "operator", "all"]) {
    const { client } = await connect(cairnServer(workspace, ["--profile", profile]));
    const listed = await client.listTools();
    await client.close();
    const goal = CATALOG_GOALS[profile];
    report({
      name: `catalog, profile ${profile} (${listed.tools.length} tools)`,
      figure: `${modelVisibleTokens(listed.tools)} tokens`,
      baseline: `full tools/list ${estimateTokens(JSON.stringify(listed).length)} tokens`,
      goal: goal ? `model-visible ≤ ${goal.toLocaleString("en")}` : "model-visible",
      met: goal ? modelVisibleTokens(listed.tools) <= goal : undefined,
    });
  }
}
