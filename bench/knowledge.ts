import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/client";
import { type Actor, OWNER } from "../src/domains/identity/actor.js";
import { buildBrief } from "../src/domains/knowledge/brief/gather.js";
import { recall, remember } from "../src/domains/knowledge/memory.js";
import { normaliseFact } from "../src/domains/knowledge/text.js";
import { boardBriefSource } from "../src/domains/tasks/brief-source.js";
import { WorkspaceConfig } from "../src/domains/workspace/config.js";
import { tempDir } from "../src/kernel/temp-dir.js";
import type { NoteBody } from "../src/store/knowledge.js";
import { openStore } from "../src/store/open.js";
import type { Store } from "../src/store/store.js";
import { newTask } from "../test/helpers/new-task.js";
import { generatedFacts, RECALL_PAIRS, rng } from "./knowledge-corpus.js";
import { header, ms, percentile, report } from "./report.js";
import { baseEnv, CAIRN, cairnServer, connect, memoryServer } from "./servers.js";

const FACTS = 100_000;
const QUALITY_CORPUS = 5_000;
const NOTES = 10_000;
const TIMED_QUERIES = 300;

function scratchWorkspace(): { dir: string; db: string } {
  const dir = tempDir("cairn-bench-knowledge-");
  const init = spawnSync(process.execPath, [CAIRN, "init"], { cwd: dir, env: baseEnv(), encoding: "utf8" });
  if (init.status !== 0) throw new Error(`cairn init failed: ${init.stderr}`);
  return { dir, db: join(dir, ".cairn", "cairn.db") };
}

/** Bulk load through the store API: one journaled write per batch, duplicates skipped. */
async function loadFacts(store: Store, facts: { text: string; topics: string[] }[]): Promise<number> {
  let loaded = 0;
  const at = new Date(Date.UTC(2026, 9, 1)).toISOString();
  for (let start = 0; start < facts.length; start += 10_000) {
    loaded += await store.write(async (tx) => {
      let count = 0;
      for (const fact of facts.slice(start, start + 10_000)) {
        const norm = normaliseFact(fact.text);
        if (await tx.facts.liveByNorm(norm)) continue;
        await tx.facts.insert({ text: fact.text, norm, topics: fact.topics, author: "owner" }, at);
        count++;
      }
      await tx.journal.append({
        at,
        actor: "owner",
        action: "bench.load",
        subject: "facts",
        data: { count },
      });
      return count;
    });
  }
  return loaded;
}

const WORD_QUERIES = [
  "redis",
  "staging",
  "thursday",
  "canary",
  "billing",
  "kafka",
  "runbook",
  "latency",
  "connections",
  "flag",
  "checkout",
  "clickhouse",
  "memcached",
  "audit",
  "port",
  "incident",
  "reviews",
  "upload",
  "grace",
  "cluster",
];

async function timeCalls(
  client: Client,
  name: string,
  args: (i: number) => Record<string, unknown>,
  n: number,
) {
  for (let i = 0; i < 5; i++) await client.callTool({ name, arguments: args(i) });
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    const result = await client.callTool({ name, arguments: args(i) });
    samples.push(performance.now() - started);
    if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
  }
  return samples;
}

async function benchRecallAtScale(): Promise<void> {
  const workspace = scratchWorkspace();
  const facts = generatedFacts(FACTS);
  const store = openStore(workspace.db);
  const loadStarted = performance.now();
  const loaded = await loadFacts(store, facts);
  const loadMs = performance.now() - loadStarted;
  const now = new Date().toISOString();

  // In process: the domain call an MCP tool makes, without the transport.
  const inProcess: number[] = [];
  const naturalQueries = RECALL_PAIRS.map((pair) => pair.query);
  for (let i = 0; i < TIMED_QUERIES; i++) {
    const query =
      i % 2 === 0
        ? (WORD_QUERIES[i % WORD_QUERIES.length] as string)
        : (naturalQueries[i % naturalQueries.length] as string);
    const started = performance.now();
    await recall(store, { query, limit: 10 }, now);
    inProcess.push(performance.now() - started);
  }

  // Over MCP stdio, side by side with the reference memory server on the same facts.
  const cairn = await connect(cairnServer(workspace.dir));
  const overMcp = await timeCalls(
    cairn.client,
    "recall",
    (i) => ({ schema_version: 1, query: WORD_QUERIES[i % WORD_QUERIES.length], limit: 10 }),
    TIMED_QUERIES,
  );
  const roundTrip = await timeCalls(cairn.client, "whoami", () => ({ schema_version: 1 }), TIMED_QUERIES);
  await cairn.client.close();

  // The reference server keeps its graph in a JSONL file it rereads on every call; writing that
  // file directly loads the same facts, one entity per fact, each fact its observation.
  const memoryUnderTest = memoryServer();
  const lines = facts.map((fact, i) =>
    JSON.stringify({ type: "entity", name: `fact-${i}`, entityType: "fact", observations: [fact.text] }),
  );
  writeFileSync(memoryUnderTest.env?.MEMORY_FILE_PATH as string, `${lines.join("\n")}\n`);
  const memory = await connect(memoryUnderTest);
  const memorySamples = await timeCalls(
    memory.client,
    "search_nodes",
    (i) => ({ query: WORD_QUERIES[i % WORD_QUERIES.length] }),
    40,
  );

  header(`knowledge: recall over ${loaded.toLocaleString("en")} facts`);
  report({
    name: "bulk load through the store",
    figure: `${Math.round(loaded / (loadMs / 1000))} facts/s`,
    baseline: `${(loadMs / 1000).toFixed(1)} s`,
  });
  report({
    name: `recall in process, ${TIMED_QUERIES} queries, p50`,
    figure: `p50 ${ms(percentile(inProcess, 50))}`,
    baseline: "",
    goal: "p50 ≤ 5 ms",
    met: percentile(inProcess, 50) <= 5,
  });
  report({ name: "  … p99", figure: `p99 ${ms(percentile(inProcess, 99))}` });
  report({
    name: "MCP round trip alone (whoami), p50",
    figure: `p50 ${ms(percentile(roundTrip, 50))}`,
  });
  report({
    name: "recall over MCP stdio (top 10), p50",
    figure: `p50 ${ms(percentile(overMcp, 50))}`,
    baseline: `memory search_nodes p50 ${ms(percentile(memorySamples, 50))}`,
    goal: "p50 ≤ 5 ms",
    met: percentile(overMcp, 50) <= 5,
  });
  report({
    name: "  … p99",
    figure: `p99 ${ms(percentile(overMcp, 99))}`,
    baseline: `memory search_nodes p99 ${ms(percentile(memorySamples, 99))}`,
  });

  // Remember throughput: each call its own journaled transaction, into the loaded workspace.
  const writes = 2_000;
  const started = performance.now();
  for (let i = 0; i < writes; i++) {
    await remember(
      store,
      OWNER,
      { text: `Throughput fact ${i}: the ${WORD_QUERIES[i % 20]} check passed`, topics: ["bench"] },
      now,
    );
  }
  const perSecond = writes / ((performance.now() - started) / 1000);
  const memoryWrites: number[] = [];
  for (let i = 0; i < 10; i++) {
    const begin = performance.now();
    await memory.client.callTool({
      name: "add_observations",
      arguments: { observations: [{ entityName: `fact-${i}`, contents: [`extra observation ${i}`] }] },
    });
    memoryWrites.push(performance.now() - begin);
  }
  await memory.client.close();
  report({
    name: `remember in process, ${writes} facts`,
    figure: `${Math.round(perSecond)} facts/s`,
    baseline: `memory add_observations ${Math.round(1000 / percentile(memoryWrites, 50))}/s (p50 ${ms(percentile(memoryWrites, 50))})`,
  });
  await store.close();
}

async function benchRecallQuality(): Promise<void> {
  const workspace = scratchWorkspace();
  const store = openStore(workspace.db);
  const distractors = generatedFacts(QUALITY_CORPUS - RECALL_PAIRS.length, 7);
  await loadFacts(store, distractors);
  const ids = new Map<string, string>();
  for (const pair of RECALL_PAIRS) {
    const { fact } = await remember(store, OWNER, { text: pair.fact }, new Date().toISOString());
    ids.set(pair.fact, fact.id);
  }
  let hit1 = 0;
  let hit5 = 0;
  const misses: string[] = [];
  for (const pair of RECALL_PAIRS) {
    const hits = await recall(store, { query: pair.query, limit: 5 }, new Date().toISOString());
    const rank = hits.findIndex((hit) => hit.fact.id === ids.get(pair.fact));
    if (rank === 0) hit1++;
    if (rank >= 0) hit5++;
    else misses.push(pair.query);
  }
  await store.close();
  header(
    `knowledge: recall quality, ${RECALL_PAIRS.length} questions over ${QUALITY_CORPUS.toLocaleString("en")} facts`,
  );
  report({ name: "hit@1", figure: (hit1 / RECALL_PAIRS.length).toFixed(2) });
  report({
    name: "hit@5",
    figure: (hit5 / RECALL_PAIRS.length).toFixed(2),
    goal: "≥ 0.90",
    met: hit5 / RECALL_PAIRS.length >= 0.9,
  });
  if (misses.length > 0) report({ name: "  missed", figure: misses.join(" | ") });
}

async function benchBrief(): Promise<void> {
  const workspace = scratchWorkspace();
  const store = openStore(workspace.db);
  const random = rng(9);
  const at = (i: number) => new Date(Date.UTC(2026, 9, 1) + i * 60_000).toISOString();
  const TASKS = 500;
  await store.write(async (tx) => {
    for (let i = 0; i < NOTES; i++) {
      const scope = random() < 0.2 ? "workspace" : `task:T-${1 + Math.floor(random() * TASKS)}`;
      const kind = i % 3;
      const body: NoteBody =
        kind === 0
          ? {
              kind: "decision",
              chose: `option ${i} for the cache layer`,
              rejected: `alternative ${i}: too slow`,
              because: `measured ${i} ms`,
            }
          : kind === 1
            ? {
                kind: "finding",
                text: `finding ${i}: retry storm under load `.repeat(3),
                severity: (["major", "moderate", "minor"] as const)[i % 3] as "major",
                trust: "unverified",
              }
            : { kind: "ref", target: `docs/adr/${i}.md`, summary: `why the cache is sharded, part ${i}` };
      await tx.notes.insert({ scope, author: "owner", body }, at(i));
    }
    for (let i = 0; i < 30; i++) {
      await tx.risks.insert(
        {
          scope: "workspace",
          risk: `risk ${i}`,
          impact: "high",
          likelihood: i % 2 ? "high" : "medium",
          indicators: "alarms",
          action: "page",
          author: "owner",
        },
        at(i),
      );
    }
    for (let i = 0; i < 200; i++) {
      await tx.glossary.upsert({
        term: `term${i}`,
        meaning: `meaning of term ${i}`,
        author: "owner",
        updatedAt: at(i),
      });
    }
    await tx.journal.append({ at: at(0), actor: "owner", action: "bench.load", subject: "notes", data: {} });
  });
  await loadFacts(store, generatedFacts(5_000, 3));

  // A real board: 50 parents with 10 children each; every child has a criterion, a dependency
  // on its previous sibling and some journal activity.
  await store.write(async (tx) => {
    for (let p = 0; p < TASKS / 10; p++) {
      const parent = await tx.tasks.insert(
        newTask(`Checkout reliability ${p}`, { soThat: "checkout latency stays under 200 ms" }),
        at(p),
      );
      let previous: string | null = null;
      for (let c = 0; c < 9; c++) {
        const child = await tx.tasks.insert(
          newTask(`Fix the cache layer retry storm in billing (term${(p * 10 + c) % 200})`, {
            soThat: "checkout stays up",
            context: "Seen in staging under load; Redis connections run out.",
            parentId: parent.id,
            priority: "should",
          }),
          at(p),
        );
        await tx.tasks.addCriterion(child.id, {
          text: "p99 checkout < 200 ms under load",
          verify: ["npm", "run", "load"],
          shortcut: null,
          params: {},
          addedBy: "owner",
          timeoutSeconds: null,
          setting: null,
        });
        if (previous) await tx.tasks.addDependency(child.id, previous);
        await tx.journal.append({
          at: at(c),
          actor: "owner",
          action: "task.add",
          subject: child.id,
          data: {},
        });
        previous = child.id;
      }
    }
  });
  const config = WorkspaceConfig.parse({
    roles: {
      builder: { summary: "builds the product", instructions: "Keep it tidy.", shortcuts: ["npm test"] },
    },
  });
  // An agent of that role, as the brief's caller: owner is no role a cairn.toml may define.
  const builder: Actor = {
    id: "A-1",
    name: "builder",
    role: "builder",
    grant: "rw",
    isOwner: false,
    parentId: null,
  };
  const source = boardBriefSource(config);
  const now = new Date().toISOString();
  const samples: number[] = [];
  for (let i = 0; i < 300; i++) {
    const started = performance.now();
    await buildBrief(store, source, {
      actor: builder,
      config,
      taskId: `T-${1 + (i % TASKS)}`,
      now,
      budget: 4_000,
    });
    samples.push(performance.now() - started);
  }
  let worst = 0;
  let over = 0;
  let tooSmall = 0;
  let runs = 0;
  for (let i = 0; i < 400; i++) {
    const budget = 1 + Math.floor(random() * 8_000);
    const result = await buildBrief(store, source, {
      actor: builder,
      config,
      taskId: `T-${1 + (i % TASKS)}`,
      now,
      budget,
    });
    runs++;
    if (result.kind === "too_small") tooSmall++;
    else {
      worst = Math.max(worst, result.tokens / budget);
      if (result.tokens > budget) over++;
    }
  }
  await store.close();
  header(
    `knowledge: brief of real board tasks, ${NOTES.toLocaleString("en")} notes, 5,000 facts, ${TASKS} tasks`,
  );
  report({
    name: "brief (gather + assemble), budget 4,000, p50",
    figure: `p50 ${ms(percentile(samples, 50))}`,
    goal: "p50 ≤ 20 ms",
    met: percentile(samples, 50) <= 20,
  });
  report({ name: "  … p99", figure: `p99 ${ms(percentile(samples, 99))}` });
  report({
    name: `budget sweep, ${runs} briefs, budgets 1–8,000`,
    figure: `${over} over budget`,
    baseline: `fullest ${(Math.floor(worst * 10_000) / 100).toFixed(2)}% of budget; ${tooSmall} too small`,
    goal: "0 over budget",
    met: over === 0,
  });
}

export async function benchKnowledge(): Promise<void> {
  const only = process.env.CAIRN_BENCH_KNOWLEDGE;
  if (!only || only === "quality") await benchRecallQuality();
  if (!only || only === "brief") await benchBrief();
  if (!only || only === "recall") await benchRecallAtScale();
}
