import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/client";
import { header, ms, percentile, report } from "./report.js";
import { DONE_SHARE, PER_EPIC, scaleSizes, seededWorkspace, workingCopy } from "./scale-seed.js";
import { cairnServer, connect } from "./servers.js";

/**
 * Ten times the scale of the tasks bench: 200,000 tasks and 1,000,000 facts (smaller with
 * `--tasks=N --facts=N`), seeded through the store in bulk and cached between runs
 * (bench/scale-seed.ts), then read over MCP stdio. Each read is set against the `whoami` round
 * trip of the same server, called in the same rounds: the floor no read can go under.
 */
const CALLS = 300;

type Read = [name: string, tool: string, args: Record<string, unknown>];

/**
 * Every read, the floor among them, called in turn round after round: a busy machine slows
 * them all alike, so each stands beside a floor measured in the same moments.
 */
async function timedInTurn(client: Client, reads: readonly Read[]): Promise<number[][]> {
  const call = async ([name, tool, args]: Read) => {
    const result = await client.callTool({ name: tool, arguments: { schema_version: 1, ...args } });
    if (result.isError) throw new Error(`${name}: ${JSON.stringify(result.content)}`);
  };
  for (let round = 0; round < 20; round++) for (const read of reads) await call(read);
  const samples: number[][] = reads.map(() => []);
  for (let round = 0; round < CALLS; round++) {
    for (const [index, read] of reads.entries()) {
      const started = performance.now();
      await call(read);
      samples[index]?.push(performance.now() - started);
    }
  }
  return samples;
}

const megabytes = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

function databaseBytes(db: string): number {
  return ["", "-wal"].reduce((sum, suffix) => {
    try {
      return sum + statSync(`${db}${suffix}`).size;
    } catch {
      return sum;
    }
  }, 0);
}

export async function benchScale(): Promise<void> {
  const { reseed, ...sizes } = scaleSizes();
  const seeded = await seededWorkspace(sizes, reseed);
  const dir = workingCopy(seeded, mkdtempSync(join(tmpdir(), "cairn-bench-scale-run-")));
  const db = join(dir, ".cairn", "cairn.db");
  const bytes = databaseBytes(db);

  const { client, pid } = await connect(cairnServer(dir));
  const openEpic = Math.ceil((sizes.tasks / PER_EPIC) * DONE_SHARE) + 3;
  const briefTask = `T-${openEpic * PER_EPIC + 2}`;
  const reads: Read[] = [
    ["whoami", "whoami", {}],
    ["next_task", "next_task", {}],
    ["list_tasks, first page", "list_tasks", {}],
    ["list_tasks, label + status", "list_tasks", { label: "api", status: ["open"], limit: 20 }],
    ["recall, top 10", "recall", { query: "redis connections staging", limit: 10 }],
    ["get_context", "get_context", { task: briefTask }],
  ];
  const [floor = [], ...timings] = await timedInTurn(client, reads);
  const rss =
    Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? Number.NaN) * 1024;
  await client.close();
  rmSync(dir, { recursive: true, force: true });

  header(
    `scale: ${sizes.tasks.toLocaleString("en")} tasks, ${seeded.facts.toLocaleString("en")} facts, over MCP stdio`,
  );
  const floor50 = percentile(floor, 50);
  const floor99 = percentile(floor, 99);
  report({
    name: "seed through the store, in bulk",
    figure: `${(seeded.board + seeded.factsSeconds).toFixed(0)} s${seeded.cached ? " (cached)" : ""}`,
    baseline: `board ${seeded.board.toFixed(0)} s, facts ${seeded.factsSeconds.toFixed(0)} s`,
    goal: "≤ 120 s",
  });
  report({ name: "database size", figure: megabytes(bytes), baseline: seeded.dir });
  report({ name: "server resident memory after the reads", figure: megabytes(rss) });
  report({
    name: "whoami round trip (the floor)",
    figure: `p50 ${ms(floor50)} p99 ${ms(floor99)}`,
  });
  for (const [index, samples] of timings.entries()) {
    const name = reads[index + 1]?.[0] ?? "";
    const p50 = percentile(samples, 50);
    const p99 = percentile(samples, 99);
    report({
      name,
      figure: `p50 ${ms(p50)} p99 ${ms(p99)}`,
      baseline: `${(p50 / floor50).toFixed(1)} × whoami p50, ${(p99 / floor99).toFixed(1)} × p99`,
      goal: "p50 ≤ 2 × whoami, p99 ≤ 15 ms",
    });
  }
}
