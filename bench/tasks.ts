import { spawnSync } from "node:child_process";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/client";
import { OWNER } from "../src/domains/identity/actor.js";
import { addTask } from "../src/domains/tasks/board.js";
import { tempDir } from "../src/kernel/temp-dir.js";
import { openStore } from "../src/store/open.js";
import type { Priority } from "../src/store/tasks.js";
import { header, ms, percentile, report } from "./report.js";
import { baseEnv, CAIRN, cairnServer, connect } from "./servers.js";

const CLAIMERS = 16;
const ATTEMPTS = 200;
const CLAIM_TASKS = 300;
const BOARD_SIZE = 20_000;
const READ_CALLS = 400;

function cairnCli(dir: string, args: string[]): Record<string, unknown> {
  const run = spawnSync(process.execPath, [CAIRN, ...args, "--json"], {
    cwd: dir,
    env: baseEnv(),
    encoding: "utf8",
  });
  if (run.status !== 0) throw new Error(`cairn ${args.join(" ")} failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as Record<string, unknown>;
}

function workspace(): string {
  const dir = tempDir("cairn-bench-tasks-");
  cairnCli(dir, ["init"]);
  return dir;
}

async function agentClient(dir: string, name: string): Promise<{ client: Client; id: string }> {
  const added = cairnCli(dir, ["agent", "add", name, "--role", "builder"]) as {
    token: string;
    agent: { id: string };
  };
  const { client } = await connect(cairnServer(dir, [], { CAIRN_AGENT: added.token }));
  return { client, id: added.agent.id };
}

const refused = (result: { structuredContent?: unknown }) =>
  typeof result.structuredContent === "object" &&
  result.structuredContent !== null &&
  "refused" in result.structuredContent;

/** 16 agents, each its own server process, each trying 200 claims on random tasks of 300. */
async function claimStorm(): Promise<void> {
  const dir = workspace();
  const store = openStore(join(dir, ".cairn", "cairn.db"));
  const now = new Date().toISOString();
  for (let i = 0; i < CLAIM_TASKS; i++) await addTask(store, OWNER, { title: `task ${i + 1}` }, now, {});
  await store.close();
  const agents = await Promise.all(
    Array.from({ length: CLAIMERS }, (_, i) => agentClient(dir, `claimer${i}`)),
  );
  const wins = new Map<string, string[]>();
  let errors = 0;
  const started = performance.now();
  await Promise.all(
    agents.map(async ({ client, id }) => {
      for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
        const task = `T-${1 + Math.floor(Math.random() * CLAIM_TASKS)}`;
        const result = await client.callTool({ name: "claim_task", arguments: { schema_version: 1, task } });
        if (result.isError) errors++;
        else if (!refused(result) && !(result.structuredContent as { already: boolean }).already) {
          wins.set(task, [...(wins.get(task) ?? []), id]);
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  for (const { client } of agents) await client.close();
  const doubleClaims = [...wins.values()].filter((owners) => owners.length > 1).length;
  // Every win a client saw must be on the board, and every claim on the board must be a win someone saw.
  const exported = (cairnCli(dir, ["export"]) as { jsonl: string }).jsonl.trim().split("\n").slice(1);
  const board = new Map<string, string | null>();
  let claimEvents = 0;
  for (const line of exported) {
    const { table, row } = JSON.parse(line) as { table: string; row: Record<string, unknown> };
    if (table === "tasks") board.set(String(row.id), (row.owner as string | null) ?? null);
    if (table === "events" && row.action === "task.claim") claimEvents++;
  }
  let lost = 0;
  for (const [task, owners] of wins) if (board.get(task) !== owners[0]) lost++;
  for (const [task, owner] of board) if (owner !== null && !wins.has(task)) lost++;
  lost += Math.abs(claimEvents - wins.size);
  const attempts = CLAIMERS * ATTEMPTS;
  header(`tasks: ${CLAIMERS} processes × ${ATTEMPTS} claim attempts on ${CLAIM_TASKS} tasks`);
  report({ name: "double claims", figure: String(doubleClaims), goal: "must be 0", met: doubleClaims === 0 });
  report({
    name: "lost writes",
    figure: String(lost),
    baseline: `${wins.size} wins, ${claimEvents} claim events`,
    goal: "must be 0",
    met: lost === 0,
  });
  report({
    name: "claim attempts per second",
    figure: `${Math.round(attempts / seconds)}/s`,
    baseline: `${attempts} attempts in ${seconds.toFixed(1)} s`,
  });
  report({
    name: "claims won (each task once)",
    figure: String(wins.size),
    baseline: `of ${CLAIM_TASKS} tasks; errors ${errors}`,
  });
}

const PRIORITIES: Priority[] = ["must", "should", "could", "wont"];

async function bigBoard(): Promise<void> {
  const dir = workspace();
  const store = openStore(join(dir, ".cairn", "cairn.db"));
  const now = new Date().toISOString();
  const seeded = performance.now();
  // 200 epics of 99 tasks each; every tenth task waits on its predecessor.
  for (let epic = 0; epic < BOARD_SIZE / 100; epic++) {
    const parent = await addTask(store, OWNER, { title: `epic ${epic}`, priority: "should" }, now, {});
    let previous = parent.id;
    for (let i = 1; i < 100; i++) {
      const task = await addTask(
        store,
        OWNER,
        {
          title: `epic ${epic} task ${i}`,
          parent: parent.id,
          priority: PRIORITIES[(epic + i) % 4],
          labels: i % 7 === 0 ? ["api"] : [],
          depends_on: i % 10 === 0 ? [previous] : [],
        },
        now,
        {},
      );
      previous = task.id;
    }
  }
  const seedSeconds = (performance.now() - seeded) / 1000;
  await store.close();
  const { client } = await agentClient(dir, "reader");
  const time = async (name: string, args: Record<string, unknown>) => {
    for (let i = 0; i < 20; i++) await client.callTool({ name, arguments: { schema_version: 1, ...args } });
    const samples: number[] = [];
    for (let i = 0; i < READ_CALLS; i++) {
      const started = performance.now();
      await client.callTool({ name, arguments: { schema_version: 1, ...args } });
      samples.push(performance.now() - started);
    }
    return samples;
  };
  const floor = await time("whoami", {});
  const next = await time("next_task", {});
  const list = await time("list_tasks", {});
  const filtered = await time("list_tasks", { label: "api", status: ["open"], limit: 20 });
  await client.close();
  header(`tasks: a board of ${BOARD_SIZE.toLocaleString("en")} tasks, over MCP stdio`);
  const floorText = `whoami p50 ${ms(percentile(floor, 50))} (round-trip floor)`;
  report({
    name: "next_task p50",
    figure: ms(percentile(next, 50)),
    baseline: floorText,
    goal: "≤ 10 ms",
    met: percentile(next, 50) <= 10,
  });
  report({
    name: "next_task p99",
    figure: ms(percentile(next, 99)),
    baseline: `whoami p99 ${ms(percentile(floor, 99))}`,
  });
  report({
    name: "list_tasks (first page of 50) p50",
    figure: ms(percentile(list, 50)),
    baseline: floorText,
    goal: "≤ 10 ms",
    met: percentile(list, 50) <= 10,
  });
  report({ name: "list_tasks p99", figure: ms(percentile(list, 99)) });
  report({
    name: "list_tasks label+status filter p50",
    figure: ms(percentile(filtered, 50)),
    goal: "≤ 10 ms",
    met: percentile(filtered, 50) <= 10,
  });
  report({ name: "list_tasks label+status filter p99", figure: ms(percentile(filtered, 99)) });
  report({ name: "seeding through the domain", figure: `${Math.round(BOARD_SIZE / seedSeconds)} tasks/s` });
}

export async function benchTasks(): Promise<void> {
  await claimStorm();
  await bigBoard();
}
