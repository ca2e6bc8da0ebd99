/**
 * `npm run bench -- pg`: the PostgreSQL store beside the SQLite one, in the same run, on the same
 * data: claims/s at 1, 8 and 32 writers, ready and list on 20,000 tasks, recall on 100,000 facts,
 * recall quality, remember/s and the cold start of `cairn mcp`. PostgreSQL is an embedded 18
 * server on loopback with its durable defaults (fsync on).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { OWNER } from "../src/domains/identity/actor.js";
import { recall, remember } from "../src/domains/knowledge/memory.js";
import { normaliseFact } from "../src/domains/knowledge/text.js";
import { openStore, type StoreLocation } from "../src/store/open.js";
import type { Store } from "../src/store/store.js";
import { startPostgres } from "../test/helpers/pg-server.js";
import { generatedFacts, RECALL_PAIRS } from "./knowledge-corpus.js";
import { header, ms, percentile, report } from "./report.js";
import { baseEnv, CAIRN, cairnServer, connect } from "./servers.js";

const FACTS = 100_000;
const TASKS = 20_000;
const at = "2026-10-01T00:00:00.000Z";
const event = { at, actor: "owner", action: "bench", subject: "bench", data: {} };

interface Side {
  name: "sqlite" | "postgres";
  location: (label: string) => StoreLocation;
  env: (label: string) => Record<string, string>;
}

async function timed(n: number, call: (i: number) => Promise<unknown>): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    await call(i);
    samples.push(performance.now() - started);
  }
  return samples;
}
const p = (samples: number[]) => `p50 ${ms(percentile(samples, 50))} p99 ${ms(percentile(samples, 99))}`;

/** Rows loaded by SQL in bulk (PostgreSQL) or in one transaction (SQLite): setup, not measured. */
async function loadFacts(side: Side, store: Store, url: string | undefined, schema: string, count: number) {
  const facts = generatedFacts(count, 11);
  if (side.name === "sqlite" || !url) {
    await store.write(async (tx) => {
      for (const fact of facts) {
        const norm = normaliseFact(fact.text);
        if (!(await tx.facts.liveByNorm(norm)))
          await tx.facts.insert({ text: fact.text, norm, topics: fact.topics, author: "owner" }, at);
      }
      await tx.journal.append(event);
    });
    return;
  }
  await store.read(async () => undefined);
  const client = new pg.Client({ connectionString: url });
  client.on("error", () => {});
  await client.connect();
  const unique = new Map(facts.map((fact) => [normaliseFact(fact.text), fact]));
  await client.query(`SET search_path TO "${schema}"`);
  await client.query(
    `INSERT INTO facts (seq, id, text, norm, topics, author, created_at, last_seen_at, seen_count)
     SELECT s, 'F-' || s, t, n, tp, 'owner', $4, $4, 1
     FROM (SELECT cairn_next('facts', NULL) AS s, u.* FROM unnest($1::text[], $2::text[], $3::text[]) AS u(t, n, tp)
           WHERE NOT EXISTS (SELECT 1 FROM facts f WHERE f.norm = u.n AND f.superseded_by IS NULL)) AS rows`,
    [
      [...unique.values()].map((f) => f.text),
      [...unique.keys()],
      [...unique.values()].map((f) => JSON.stringify(f.topics)),
      at,
    ],
  );
  await client.query("ANALYZE facts");
  await client.end();
}

async function benchSide(side: Side, url: string | undefined): Promise<void> {
  header(`pg suite — ${side.name}`);
  // Claims: N writers (separate connections on PostgreSQL; one connection on SQLite, whose
  // writers are processes queued on one file lock) each claiming distinct tasks.
  for (const writers of side.name === "postgres" ? [1, 8, 32] : [1]) {
    const location = side.location(`claims${writers}`);
    const stores = Array.from({ length: writers }, () => openStore(location, { create: true }));
    const per = 40;
    const ids = await (stores[0] as Store).write(async (tx) => {
      const made: string[] = [];
      for (let i = 0; i < writers * per; i++)
        made.push(
          (
            await tx.tasks.insert(
              {
                title: `t${i}`,
                soThat: "",
                context: "",
                parentId: null,
                priority: "must",
                estimate: null,
                traces: [],
                labels: [],
                createdBy: "owner",
              },
              at,
            )
          ).id,
        );
      await tx.journal.append(event);
      return made;
    });
    const started = performance.now();
    await Promise.all(
      stores.map(async (store, w) => {
        for (let i = 0; i < per; i++) {
          const id = ids[w * per + i] as string;
          await store.write(async (tx) => {
            const task = await tx.tasks.byId(id);
            if (task?.owner) return;
            await tx.tasks.update(id, { status: "active", owner: `A-${w}`, claimedAt: at, leaseAt: at }, at);
            await tx.journal.append({ ...event, action: "task.claim", subject: id });
          });
        }
      }),
    );
    const perSecond = (writers * per) / ((performance.now() - started) / 1000);
    report({ name: `claims/s, ${writers} writer(s)`, figure: `${Math.round(perSecond)}/s` });
    await Promise.all(stores.map((store) => store.close()));
  }

  // The board at 20,000 tasks.
  const boardAt = side.location("board");
  const board = openStore(boardAt, { create: true });
  if (boardAt.kind === "postgres") {
    // Bulk SQL for setup only; the store's own inserts would take minutes over 20k round trips.
    await board.read(async () => undefined);
    const client = new pg.Client({ connectionString: url });
    client.on("error", () => {});
    await client.connect();
    await client.query(`SET search_path TO "${boardAt.schema}"`);
    await client.query(
      `INSERT INTO tasks (seq, id, title, sort_path, priority, priority_rank, status, labels, created_by, created_at, updated_at)
       SELECT i, 'T-' || i, 'task ' || i, lpad(i::text, 9, '0'), CASE WHEN i % 3 = 0 THEN 'could' ELSE 'should' END,
         CASE WHEN i % 3 = 0 THEN 2 ELSE 1 END, 'open', CASE WHEN i % 7 = 0 THEN '["y"]' ELSE '["x"]' END, 'owner', $1, $1
       FROM generate_series(1, ${TASKS}) AS i`,
      [at],
    );
    await client.query("ANALYZE tasks");
    await client.end();
  } else {
    await board.write(async (tx) => {
      for (let i = 0; i < TASKS; i++)
        await tx.tasks.insert(
          {
            title: `task ${i}`,
            soThat: "",
            context: "",
            parentId: null,
            priority: i % 3 ? "should" : "could",
            estimate: null,
            traces: [],
            labels: [i % 7 ? "x" : "y"],
            createdBy: "owner",
          },
          at,
        );
      await tx.journal.append(event);
    });
  }
  const ready = await timed(100, () => board.read((tx) => tx.tasks.ready(() => true, 1)));
  const list = await timed(100, (i) =>
    board.read((tx) => tx.tasks.list({ limit: 50, offset: (i % 10) * 50 })),
  );
  report({ name: `next_task (ready) on ${TASKS.toLocaleString("en")} tasks`, figure: p(ready) });
  report({ name: `list_tasks (50) on ${TASKS.toLocaleString("en")} tasks`, figure: p(list) });
  await board.close();

  // Memory: remember/s, recall at 100k, quality at 5k.
  const memory = openStore(side.location("memory"), { create: true });
  const writes = await timed(200, (i) =>
    remember(memory, OWNER, { text: `remembered fact number ${i} about leases` }, at),
  );
  report({
    name: "remember/s",
    figure: `${Math.round(1000 / percentile(writes, 50))}/s`,
    baseline: p(writes),
  });
  const location = side.location("memory");
  await loadFacts(side, memory, url, location.kind === "postgres" ? location.schema : "", FACTS);
  const queries = [
    "redis staging",
    "thursday deploy",
    "billing timeout",
    "kafka consumer lag",
    "auth token rotation",
  ];
  const recalls = await timed(100, (i) =>
    recall(memory, { query: queries[i % queries.length] as string, limit: 10 }, at),
  );
  report({
    name: `recall on ${FACTS.toLocaleString("en")} facts`,
    figure: p(recalls),
    goal: "PostgreSQL ≤ 10 ms p50",
  });
  await memory.close();

  const quality = openStore(side.location("quality"), { create: true });
  await loadFacts(side, quality, undefined, "", 5_000 - RECALL_PAIRS.length);
  const ids = new Map<string, string>();
  for (const pair of RECALL_PAIRS)
    ids.set(pair.fact, (await remember(quality, OWNER, { text: pair.fact }, at)).fact.id);
  let hit5 = 0;
  for (const pair of RECALL_PAIRS) {
    const hits = await recall(quality, { query: pair.query, limit: 5 }, at);
    if (hits.some((hit) => hit.fact.id === ids.get(pair.fact))) hit5++;
  }
  report({
    name: "recall hit@5 (5,000 facts)",
    figure: (hit5 / RECALL_PAIRS.length).toFixed(2),
    goal: "≥ 0.90",
  });
  await quality.close();

  // Cold start of `cairn mcp`: spawn, initialise, first answered call.
  const dir = mkdtempSync(join(tmpdir(), "cairn-bench-pg-"));
  spawnSync(process.execPath, [CAIRN, "init"], {
    cwd: dir,
    env: baseEnv(side.env("cold")),
    encoding: "utf8",
  });
  const starts = await timed(5, async () => {
    const server = await connect(cairnServer(dir, [], side.env("cold")));
    await server.client.callTool({ name: "whoami", arguments: { schema_version: 1 } });
    await server.client.close();
  });
  report({ name: "cairn mcp cold start to first answer", figure: p(starts) });
}

export async function benchPostgres(): Promise<void> {
  const server = await startPostgres({ durable: true });
  const run = Date.now().toString(36);
  const scratch = mkdtempSync(join(tmpdir(), "cairn-bench-stores-"));
  try {
    const sides: Side[] = [
      {
        name: "sqlite",
        location: (label) => ({ kind: "sqlite", path: join(scratch, `${label}.db`) }),
        env: () => ({}),
      },
      {
        name: "postgres",
        location: (label) => ({ kind: "postgres", url: server.url, schema: `${label}-${run}` }),
        env: (label) => ({ CAIRN_STORE_URL: `${server.url}?schema=${label}-${run}` }),
      },
    ];
    for (const side of sides) await benchSide(side, side.name === "postgres" ? server.url : undefined);
  } finally {
    await server.stop();
  }
}
