import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/client";
import { normaliseFact } from "../src/domains/knowledge/text.js";
import { openStore } from "../src/store/open.js";
import type { Store } from "../src/store/store.js";
import type { Priority } from "../src/store/tasks.js";
import { generatedFacts } from "./knowledge-corpus.js";
import { header, ms, percentile, report } from "./report.js";
import { baseEnv, CAIRN, cairnServer, connect } from "./servers.js";

/**
 * Ten times the scale of the tasks bench: 200,000 tasks and 1,000,000 facts, seeded through the
 * store in bulk (one journaled write per batch), then read over MCP stdio. Each read is set
 * against the `whoami` round trip of the same server: the floor no read can go under.
 */
const EPICS = 2_000;
const PER_EPIC = 100;
const TASKS = EPICS * PER_EPIC;
const FACTS = 1_000_000;
const BATCH = 10_000;
const CALLS = 300;
const PRIORITIES: Priority[] = ["must", "should", "could", "wont"];
/** Most of a mature board is finished work; the rest is what agents read every minute. */
const DONE_SHARE = 0.7;

/**
 * A fresh workspace, or with CAIRN_BENCH_SCALE_DIR the one named there, kept after the run
 * and reused when already seeded: seeding takes minutes, a read measured again takes seconds.
 */
function workspace(): { dir: string; keep: boolean; seeded: boolean } {
  const kept = process.env.CAIRN_BENCH_SCALE_DIR;
  if (kept && existsSync(join(kept, ".cairn", SEEDED))) return { dir: kept, keep: true, seeded: true };
  const dir = kept ?? mkdtempSync(join(tmpdir(), "cairn-bench-scale-"));
  if (kept) mkdirSync(kept, { recursive: true });
  const init = spawnSync(process.execPath, [CAIRN, "init"], { cwd: dir, env: baseEnv(), encoding: "utf8" });
  if (init.status !== 0) throw new Error(`cairn init failed: ${init.stderr}`);
  return { dir, keep: kept !== undefined, seeded: false };
}

const SEEDED = "bench-seeded";

const journaled = (count: number, subject: string, at: string) => ({
  at,
  actor: "owner",
  action: "bench.seed",
  subject,
  data: { count },
});

/** Epics of 100 tasks; a tenth of each epic waits on its predecessor; labels on some. */
async function seedBoard(store: Store, at: string): Promise<void> {
  const epicsPerBatch = BATCH / PER_EPIC;
  for (let first = 0; first < EPICS; first += epicsPerBatch) {
    await store.write(async (tx) => {
      for (let epic = first; epic < first + epicsPerBatch; epic++) {
        const done = epic < EPICS * DONE_SHARE;
        const parent = await tx.tasks.insert(
          {
            title: `epic ${epic}: ${["billing", "search", "auth", "ingest"][epic % 4]} rework`,
            soThat: "the service stays fast at scale",
            context: "",
            parentId: null,
            priority: "should",
            estimate: null,
            traces: [],
            labels: ["epic"],
            createdBy: "owner",
          },
          at,
        );
        let previous = parent.id;
        for (let i = 1; i < PER_EPIC; i++) {
          const task = await tx.tasks.insert(
            {
              title: `epic ${epic} task ${i}: ${["tune", "test", "document", "measure"][i % 4]} the ${["cache", "index", "queue", "parser"][epic % 4]}`,
              soThat: "",
              context: "",
              parentId: parent.id,
              priority: PRIORITIES[(epic + i) % 4] as Priority,
              estimate: null,
              traces: [],
              labels: i % 7 === 0 ? ["api"] : i % 5 === 0 ? ["ui", "api"] : [],
              createdBy: "owner",
            },
            at,
          );
          await tx.tasks.addCriterion(task.id, {
            text: "tests pass",
            verify: null,
            shortcut: null,
            params: {},
            timeoutSeconds: null,
          });
          if (i % 10 === 0) await tx.tasks.addDependency(task.id, previous);
          if (done) await tx.tasks.update(task.id, { status: "done" }, at);
          else if (i % 25 === 0)
            await tx.tasks.update(task.id, { status: "blocked", blockedReason: "waits" }, at);
          previous = task.id;
        }
        if (done) await tx.tasks.update(parent.id, { status: "done" }, at);
      }
      await tx.journal.append(journaled(BATCH, "tasks", at));
    });
  }
}

async function seedFacts(store: Store, at: string): Promise<number> {
  const facts = generatedFacts(FACTS, 7);
  let loaded = 0;
  for (let start = 0; start < facts.length; start += BATCH) {
    loaded += await store.write(async (tx) => {
      let count = 0;
      for (const fact of facts.slice(start, start + BATCH)) {
        await tx.facts.insert(
          { text: fact.text, norm: normaliseFact(fact.text), topics: fact.topics, author: "owner" },
          at,
        );
        count++;
      }
      await tx.journal.append(journaled(count, "facts", at));
      return count;
    });
  }
  return loaded;
}

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
  const { dir, keep, seeded } = workspace();
  const db = join(dir, ".cairn", "cairn.db");
  const seedFile = join(dir, ".cairn", SEEDED);
  if (!seeded) {
    const store = openStore(db);
    const at = new Date().toISOString();
    const started = performance.now();
    await seedBoard(store, at);
    const board = (performance.now() - started) / 1000;
    const facts = await seedFacts(store, at);
    await store.close();
    writeFileSync(seedFile, JSON.stringify({ board, total: (performance.now() - started) / 1000, facts }));
  }
  const seed = JSON.parse(readFileSync(seedFile, "utf8")) as { board: number; total: number; facts: number };

  const { client, pid } = await connect(cairnServer(dir));
  const openEpic = Math.ceil(EPICS * DONE_SHARE) + 3;
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

  header(
    `scale: ${TASKS.toLocaleString("en")} tasks, ${seed.facts.toLocaleString("en")} facts, over MCP stdio`,
  );
  const floor50 = percentile(floor, 50);
  report({
    name: "seed through the store, in bulk",
    figure: `${seed.total.toFixed(0)} s${seeded ? " (earlier run)" : ""}`,
    baseline: `board ${seed.board.toFixed(0)} s, facts ${(seed.total - seed.board).toFixed(0)} s`,
    goal: "minutes at most",
  });
  report({ name: "database size", figure: megabytes(databaseBytes(db)), baseline: "file and WAL" });
  report({ name: "server resident memory after the reads", figure: megabytes(rss) });
  report({
    name: "whoami round trip (the floor)",
    figure: `p50 ${ms(floor50)}`,
    baseline: `p99 ${ms(percentile(floor, 99))}`,
  });
  for (const [index, samples] of timings.entries()) {
    const name = reads[index + 1]?.[0] ?? "";
    const p50 = percentile(samples, 50);
    report({
      name,
      figure: `p50 ${ms(p50)} p99 ${ms(percentile(samples, 99))}`,
      baseline: `${(p50 / floor50).toFixed(1)} × whoami`,
      goal: "p50 ≤ 2 × whoami, p99 ≤ 15 ms",
    });
  }
  if (!keep) rmSync(dir, { recursive: true, force: true });
}
