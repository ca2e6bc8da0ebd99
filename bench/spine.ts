import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { tempDir } from "../src/kernel/temp-dir.js";
import { header, ms, percentile, report } from "./report.js";
import {
  baseEnv,
  CAIRN,
  cairnServer,
  connect,
  memoryServer,
  minimalServer,
  type ServerUnderTest,
} from "./servers.js";

const COLD_RUNS = 20;
const WARM_CALLS = 2_000;

function scratchWorkspace(): string {
  const dir = tempDir("cairn-bench-");
  const init = spawnSync(process.execPath, [CAIRN, "init"], { cwd: dir, env: baseEnv(), encoding: "utf8" });
  if (init.status !== 0) throw new Error(`cairn init failed: ${init.stderr}`);
  return dir;
}

/** Spawn → initialize → tools/list → one call → exit, wall clock. */
async function coldStart(server: ServerUnderTest): Promise<number> {
  const started = performance.now();
  const { client } = await connect(server);
  await client.listTools();
  await client.callTool(server.call);
  await client.close();
  return performance.now() - started;
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

export async function benchSpine(): Promise<void> {
  const workspace = scratchWorkspace();
  const cairn = cairnServer(workspace);
  const minimal = minimalServer();
  const memory = memoryServer();

  header("spine: start-up, round trip, memory, catalog");
  const cold: Record<string, number[]> = { cairn: [], minimal: [], memory: [] };
  // Interleaved, so drift on a busy machine hits all three alike.
  for (let run = 0; run < COLD_RUNS; run++) {
    cold.cairn?.push(await coldStart(cairn));
    cold.minimal?.push(await coldStart(minimal));
    cold.memory?.push(await coldStart(memory));
  }
  const median = (samples: number[] | undefined) => percentile(samples ?? [], 50);
  const ratio = median(cold.cairn) / median(cold.minimal);
  report({
    name: `cold start, median of ${COLD_RUNS}`,
    figure: ms(median(cold.cairn)),
    baseline: `minimal ${ms(median(cold.minimal))}, memory ${ms(median(cold.memory))}`,
    goal: `ratio to minimal ${ratio.toFixed(2)} (goal ≤ 1.00)`,
  });

  const warm = await warmRoundTrips(cairn);
  const warmMinimal = await warmRoundTrips(minimal);
  report({
    name: `whoami round trip over stdio, ${WARM_CALLS} calls`,
    figure: `p50 ${ms(percentile(warm, 50))}`,
    baseline: `minimal p50 ${ms(percentile(warmMinimal, 50))}`,
    goal: "p50 ≤ 1 ms",
  });
  report({
    name: "  … p99",
    figure: `p99 ${ms(percentile(warm, 99))}`,
    baseline: `minimal p99 ${ms(percentile(warmMinimal, 99))}`,
  });

  report({
    name: "idle resident memory",
    figure: `${(await idleRssMb(cairn)).toFixed(1)} MB`,
    baseline: `minimal ${(await idleRssMb(minimal)).toFixed(1)} MB, memory ${(await idleRssMb(memory)).toFixed(1)} MB`,
    goal: "≤ 60 MB",
  });

  for (const profile of ["worker", "planner", "operator", "all"]) {
    const { client } = await connect(cairnServer(workspace, ["--profile", profile]));
    const listed = await client.listTools();
    await client.close();
    const tokens = Math.round(JSON.stringify(listed).length / 4);
    report({
      name: `catalog cost, profile ${profile}`,
      figure: `${tokens} tokens`,
      baseline: `${listed.tools.length} tools`,
      goal: profile === "worker" ? "≤ 4,000" : "",
    });
  }
}
