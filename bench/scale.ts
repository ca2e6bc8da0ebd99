import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/client";
import { OWNER } from "../src/domains/identity/actor.js";
import { buildBrief } from "../src/domains/knowledge/brief/gather.js";
import { boardBriefSource } from "../src/domains/tasks/brief-source.js";
import { loadConfig } from "../src/domains/workspace/config.js";
import { openStore } from "../src/store/open.js";
import { MIGRATIONS } from "../src/store/sqlite/migrations/index.js";
import { header, ms, percentile, report } from "./report.js";
import { RECALL_WORDS, sameAnswers } from "./scale-answers.js";
import { briefedTasks } from "./scale-notes.js";
import { boardShape, scaleSizes, schemaOf, seededWorkspace, workingCopy } from "./scale-seed.js";
import { baseEnv, CAIRN, cairnServer, connect, minimalServer } from "./servers.js";

/**
 * Ten times the scale of the tasks bench: 200,000 tasks and 1,000,000 facts (smaller with
 * `--tasks=N --facts=N`), seeded through the store in bulk and cached between runs
 * (bench/scale-seed.ts), then read over MCP stdio. Each read is set against the `whoami` round
 * trip of the same server, called in the same rounds: the floor no read can go under. With
 * `--vs=<path of another build's bin/cairn.mjs>` that build serves the same board too, called in
 * the same rounds, so a change is measured against what it replaces. Each build serves its own copy
 * of the board, after running its own maintenance (`cairn sweep`) on it: a board is read in the
 * state the product keeps it in, and a change to that upkeep is measured too.
 */
const CALLS = 300;

/** A read, and its arguments: one set, or a rotation of sets taken in turn, round by round. */
type Read = [name: string, tool: string, args: Record<string, unknown> | readonly Record<string, unknown>[]];

const argsOf = (args: Read[2], round: number): Record<string, unknown> =>
  Array.isArray(args)
    ? (args[round % args.length] as Record<string, unknown>)
    : (args as Record<string, unknown>);

/** CPU time a process has used so far, in ms (Linux clock ticks of 10 ms: summed over many calls). */
function cpuMs(pid: number | null): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

interface Timings {
  /** Round trips in ms, per read. */
  wall: number[][];
  /** Server CPU ms per call, per read: a busy machine stretches round trips far more than this. */
  cpu: number[];
}

/** A server under measurement and what it is asked, read by read (null: not asked that one). */
interface Lane {
  client: Client;
  pid: number | null;
  reads: readonly (Read | null)[];
}

/**
 * Every read of every server, the floor among them, called in turn round after round: a busy
 * machine slows them all alike, so each stands beside a floor measured in the same moments.
 */
async function timedInTurn(lanes: readonly Lane[]): Promise<Timings[]> {
  const call = async (client: Client, [name, tool, args]: Read, round: number) => {
    const result = await client.callTool({
      name: tool,
      arguments: { schema_version: 1, ...argsOf(args, round) },
    });
    if (result.isError) throw new Error(`${name}: ${JSON.stringify(result.content)}`);
  };
  const width = Math.max(...lanes.map((lane) => lane.reads.length));
  for (let round = 0; round < 20; round++)
    for (let index = 0; index < width; index++)
      for (const lane of lanes) {
        const read = lane.reads[index];
        if (read) await call(lane.client, read, round);
      }
  const timings: Timings[] = lanes.map(() => ({
    wall: Array.from({ length: width }, () => []),
    cpu: Array.from({ length: width }, () => 0),
  }));
  for (let round = 0; round < CALLS; round++) {
    for (let index = 0; index < width; index++) {
      // Each server takes its turn first in as many rounds as the others: a call right after a
      // heavier one (another server's brief) runs slower, and a fixed order gave that to one build.
      for (let turn = 0; turn < lanes.length; turn++) {
        const which = (turn + round) % lanes.length;
        const lane = lanes[which] as Lane;
        const read = lane.reads[index];
        if (!read) continue;
        const spent = cpuMs(lane.pid);
        const started = performance.now();
        await call(lane.client, read, round);
        const timing = timings[which] as Timings;
        timing.wall[index]?.push(performance.now() - started);
        timing.cpu[index] = (timing.cpu[index] ?? 0) + (cpuMs(lane.pid) - spent) / CALLS;
      }
    }
  }
  return timings;
}

const REPLAYED = (briefs: readonly { task: string }[]): Read => ["get_context, replayed", "replay", briefs];

/**
 * The minimal SDK server (bench/fixtures/minimal-server.mjs) holding the results cairn gave for
 * these briefs: what a result of that size costs a bare server that has it in memory.
 */
async function replayServer(cairn: Client, briefs: readonly { task: string }[]) {
  const dir = mkdtempSync(join(tmpdir(), "cairn-bench-replay-"));
  const results: Record<string, unknown> = {};
  for (const { task } of briefs) {
    results[task] = await cairn.callTool({ name: "get_context", arguments: { schema_version: 1, task } });
  }
  const file = join(dir, "results.json");
  writeFileSync(file, JSON.stringify(results));
  const server = await connect({ ...minimalServer(), env: { REPLAY_RESULTS: file } });
  return { server, dir, contents: briefContents(Object.values(results)) };
}

type BriefSection = { name: string; items: number; included: boolean };

/**
 * What the measured briefs hold, section by section: items shown (fewest to most) and in how many
 * briefs. A brief is only as costly as what it finds, so the report says what was found.
 */
function briefContents(results: readonly unknown[]): string {
  const counts = new Map<string, number[]>();
  let bytes = 0;
  for (const result of results) {
    bytes += JSON.stringify(result).length;
    const sections = (result as { structuredContent?: { sections?: BriefSection[] } }).structuredContent
      ?.sections;
    for (const section of sections ?? [])
      counts.set(section.name, [...(counts.get(section.name) ?? []), section.included ? section.items : 0]);
  }
  const parts = [...counts].map(([name, items]) => {
    const found = items.filter((n) => n > 0).length;
    const [least, most] = [Math.min(...items), Math.max(...items)];
    return `${name} ${least === most ? least : `${least}-${most}`} (${found}/${items.length})`;
  });
  return `${parts.join(", ")}; ${(bytes / results.length / 1024).toFixed(1)} KB a result`;
}

const IDLE_MS = 2;

/**
 * The briefs built in this process, with no protocol around them: one right after another, and
 * each after a short pause, as a server's calls arrive. The pause is enough for the caches of the
 * processor (and, on a virtual machine, of its host) to lose what the last brief warmed, and the
 * gap between the two figures is what every call over stdio pays for touching that much again.
 */
async function briefsInProcess(dir: string, briefs: readonly { task: string }[]) {
  const store = openStore(join(dir, ".cairn", "cairn.db"), { readonly: true });
  const config = loadConfig(join(dir, ".cairn", "cairn.toml"));
  const source = boardBriefSource(config);
  const now = new Date().toISOString();
  const brief = async (task: string) => {
    const started = performance.now();
    await buildBrief(store, source, { actor: OWNER, config, taskId: task, now });
    return performance.now() - started;
  };
  const backToBack: number[] = [];
  const afterIdle: number[] = [];
  try {
    for (let round = 0; round < 12; round++) {
      for (const { task } of briefs) {
        const sample = await brief(task);
        if (round >= 2) backToBack.push(sample);
      }
      for (const { task } of briefs) {
        await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
        const sample = await brief(task);
        if (round >= 2) afterIdle.push(sample);
      }
    }
  } finally {
    await store.close();
  }
  return { backToBack: percentile(backToBack, 50), afterIdle: percentile(afterIdle, 50) };
}

/** A working copy of the seeded board, kept up by this build's own maintenance; seconds it took. */
function maintainedCopy(seeded: Parameters<typeof workingCopy>[0], bin: string) {
  const dir = workingCopy(seeded, mkdtempSync(join(tmpdir(), "cairn-bench-scale-run-")));
  const started = performance.now();
  const sweep = spawnSync(process.execPath, [bin, "sweep", "--json"], {
    cwd: dir,
    env: baseEnv(),
    encoding: "utf8",
  });
  if (sweep.status !== 0) throw new Error(`cairn sweep failed: ${sweep.stderr}`);
  return { dir, seconds: (performance.now() - started) / 1000 };
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

const residentBytes = (pid: number | null) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? Number.NaN) * 1024;

const p50p99 = (samples: number[]) => `p50 ${ms(percentile(samples, 50))} p99 ${ms(percentile(samples, 99))}`;

export async function benchScale(): Promise<void> {
  const { reseed, ...sizes } = scaleSizes();
  const vs = process.argv.find((arg) => arg.startsWith("--vs="))?.slice("--vs=".length);
  // A --vs build from before a migration reads a board seeded at its schema; this build's
  // maintenance (the sweep below) migrates its own copy, and says so.
  const schema = vs ? schemaOf(vs) : MIGRATIONS.length;
  if (schema > MIGRATIONS.length)
    throw new Error(
      "scale bench: the --vs build's schema is newer than this build's; run the comparison from it",
    );
  const seeded = await seededWorkspace(sizes, reseed, schema);
  const copies = [maintainedCopy(seeded, CAIRN), ...(vs ? [maintainedCopy(seeded, vs)] : [])];
  const bytes = databaseBytes(join(copies[0]?.dir ?? "", ".cairn", "cairn.db"));

  const servers = [];
  for (const [index, copy] of copies.entries())
    servers.push(
      await connect({ ...cairnServer(copy.dir), args: [index === 0 ? CAIRN : (vs as string), "mcp"] }),
    );
  // Recall and briefs rotate through varied questions, so no cache of one answer's work (the
  // word counts a recall keeps, the pages of one brief) is measured at its best case alone.
  // The seed gives some of these tasks notes of their own, on their epic and their siblings, and
  // leaves others without (bench/scale-notes.ts), so every section of a brief is exercised.
  const briefs = briefedTasks(boardShape(sizes.tasks)).map(({ id }) => ({ task: id }));
  const recalls = Array.from({ length: 24 }, (_, i) => ({
    query: [0, 1, 2]
      .slice(0, 2 + (i % 2))
      .map((k) => RECALL_WORDS[(i * 5 + k * 11) % RECALL_WORDS.length])
      .join(" "),
    limit: 10,
  }));
  const reads: Read[] = [
    ["whoami", "whoami", {}],
    ["next_task", "next_task", {}],
    ["list_tasks, first page", "list_tasks", {}],
    ["list_tasks, label + status", "list_tasks", { label: "api", status: ["open"], limit: 20 }],
    [`recall, top 10 (${recalls.length} queries in turn)`, "recall", recalls],
    [`get_context (${briefs.length} open tasks in turn)`, "get_context", briefs],
  ];
  const answers = servers[1]
    ? await sameAnswers(servers[0]?.client as Client, servers[1].client, sizes.tasks)
    : null;
  // The protocol's share of a brief: the same results, served from memory by a bare SDK server.
  const replay = await replayServer(servers[0]?.client as Client, briefs);
  const lanes: Lane[] = [
    ...servers.map((server) => ({ ...server, reads })),
    {
      ...replay.server,
      reads: reads.map(([, tool]) =>
        tool === "whoami" ? (reads[0] as Read) : tool === "get_context" ? REPLAYED(briefs) : null,
      ),
    },
  ];
  const timings = await timedInTurn(lanes);
  const [now, before] = timings.slice(0, servers.length);
  const replayed = timings[servers.length];
  const rss = servers.map((server) => residentBytes(server.pid));
  for (const server of [...servers, replay.server]) await server.client.close();
  const inProcess = await briefsInProcess(copies[0]?.dir ?? "", briefs);
  for (const dir of [...copies.map((copy) => copy.dir), replay.dir])
    rmSync(dir, { recursive: true, force: true });

  const { notes } = seeded;
  header(
    `scale: ${sizes.tasks.toLocaleString("en")} tasks, ${seeded.facts.toLocaleString("en")} facts, over MCP stdio`,
  );
  report({
    name: "seed through the store, in bulk",
    figure: `${(seeded.board + seeded.factsSeconds + notes.seconds).toFixed(0)} s${seeded.cached ? " (cached)" : ""}`,
    baseline: `board ${seeded.board.toFixed(0)} s, facts ${seeded.factsSeconds.toFixed(0)} s, notes ${notes.seconds.toFixed(0)} s`,
    goal: "≤ 120 s",
    met: seeded.board + seeded.factsSeconds + notes.seconds <= 120,
  });
  report({
    name: "notes on the board",
    figure: (notes.decision + notes.finding + notes.metric + notes.ref).toLocaleString("en"),
    baseline: `${notes.decision.toLocaleString("en")} decisions, ${notes.finding.toLocaleString("en")} findings, ${notes.metric.toLocaleString("en")} metrics, ${notes.ref.toLocaleString("en")} refs; ${notes.risks} risks, ${notes.glossary} glossary terms`,
  });
  report({
    name: "maintenance after the seed (cairn sweep)",
    figure: `${copies[0]?.seconds.toFixed(1)} s${schema < MIGRATIONS.length ? ` (migrating from ${schema} migrations)` : ""}`,
    baseline: vs ? `--vs ${copies[1]?.seconds.toFixed(1)} s` : "",
  });
  report({ name: "database size", figure: megabytes(bytes), baseline: seeded.dir });
  report({
    name: "machine load during the reads",
    figure: loadavg()[0]?.toFixed(1) ?? "",
    baseline: `1-minute load average, ${availableParallelism()} CPUs`,
  });
  if (answers)
    report({
      name: "answers identical to the --vs build",
      figure: `${answers.same} of ${answers.asked}`,
      baseline: answers.first ? `first to differ: ${answers.first}` : "recall and briefs, byte for byte",
      goal: "all",
      met: answers.same === answers.asked,
    });
  report({
    name: "server resident memory after the reads",
    figure: megabytes(rss[0] ?? Number.NaN),
    baseline: vs ? `--vs ${megabytes(rss[1] ?? Number.NaN)}` : "",
  });
  const cpu = (timing: Timings | undefined, index: number) => `${ms(timing?.cpu[index] ?? Number.NaN)} CPU`;
  const [floor = [], ...rest] = now?.wall ?? [];
  const floor50 = percentile(floor, 50);
  const floor99 = percentile(floor, 99);
  report({
    name: "whoami round trip (the floor)",
    figure: p50p99(floor),
    baseline: `server ${cpu(now, 0)} per call${vs ? `; --vs ${p50p99(before?.wall[0] ?? [])}, ${cpu(before, 0)}` : ""}`,
  });
  for (const [index, samples] of rest.entries()) {
    const p50 = percentile(samples, 50);
    const p99 = percentile(samples, 99);
    report({
      name: reads[index + 1]?.[0] ?? "",
      figure: p50p99(samples),
      baseline: `${(p50 / floor50).toFixed(1)} × whoami p50, ${(p99 / floor99).toFixed(1)} × p99; ${cpu(now, index + 1)}`,
      goal: "p50 ≤ 2 × whoami, p99 ≤ 15 ms",
      met: p50 <= 2 * floor50 && p99 <= 15,
    });
    const old = before?.wall[index + 1];
    if (old) {
      const oldFloor = before?.wall[0] ?? [];
      report({
        name: "  … --vs build",
        figure: p50p99(old),
        baseline: `${(percentile(old, 50) / percentile(oldFloor, 50)).toFixed(1)} × its whoami p50; ${cpu(before, index + 1)}`,
      });
    }
    const replayedWall = replayed?.wall[index + 1] ?? [];
    if (replayedWall.length > 0) {
      const floor = percentile(replayed?.wall[0] ?? [], 50);
      const same = percentile(replayedWall, 50);
      report({
        name: "  … the same results, from memory",
        figure: p50p99(replayedWall),
        baseline: `a bare SDK server: ${(same / floor).toFixed(1)} × its whoami p50 (${ms(floor)}); cairn's reading adds ${ms(p50 - same)} at p50`,
      });
    }
    if (reads[index + 1]?.[1] === "get_context") {
      report({
        name: "  … what the briefs hold",
        figure: `${briefs.length} briefs`,
        baseline: `items shown per section (briefs with any): ${replay.contents}`,
      });
      report({
        name: "  … the same briefs in process, back to back",
        figure: `p50 ${ms(inProcess.backToBack)}`,
        baseline: `each after ${IDLE_MS} ms idle, as a server's calls come: p50 ${ms(inProcess.afterIdle)}`,
      });
      // The goal's arithmetic in this run: what 2 × whoami leaves for everything cairn does beyond
      // handing over bytes it already has, set beside the brief alone, with no protocol around it.
      if (replayedWall.length > 0)
        report({
          name: "  … left for cairn's reading at 2 × whoami",
          figure: ms(2 * floor50 - percentile(replayedWall, 50)),
          baseline: `2 × whoami p50 less the same results from memory; the brief alone, back to back, takes ${ms(inProcess.backToBack)}`,
        });
    }
  }
}
