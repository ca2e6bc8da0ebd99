/**
 * `npm run bench -- pg`: the PostgreSQL store beside the SQLite one, in the same run, on the same
 * data: claims/s at 1, 8 and 32 writers and round trips per write (beside the same store sending
 * each journal append on its own), ready and list on 20,000 tasks, remember/s, recall and hit@5
 * on 100,000 facts loaded by `rememberAll`, the 20,000-task board restored from its export into
 * each, and the cold start of `cairn mcp` on each store
 * beside the minimal SDK server. PostgreSQL is an embedded 18 server on loopback with its
 * durable defaults (fsync on).
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { OWNER } from "../src/domains/identity/actor.js";
import { buildBrief } from "../src/domains/knowledge/brief/gather.js";
import { boardBriefSource } from "../src/domains/tasks/brief-source.js";
import { exportWorkspace, importWorkspace } from "../src/domains/transfer/transfer.js";
import { WorkspaceConfig } from "../src/domains/workspace/config.js";
import { openStore, type StoreLocation } from "../src/store/open.js";
import { newTask } from "../test/helpers/new-task.js";
import { startPostgres } from "../test/helpers/pg-server.js";
import { benchColdStart } from "./pg-cold.js";
import { benchRecall, type RecallFigures, reportRecall } from "./pg-recall.js";
import { benchWrites } from "./pg-writes.js";
import { header, ms, percentile, report } from "./report.js";

const TASKS = 20_000;
const at = "2026-10-01T00:00:00.000Z";
const event = { at, actor: "owner", action: "bench", subject: "bench", data: {} };

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

async function benchBoard(boardAt: StoreLocation, url: string | undefined, name: string): Promise<void> {
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
          newTask(`task ${i}`, { priority: i % 3 ? "should" : "could", labels: [i % 7 ? "x" : "y"] }),
          at,
        );
      await tx.journal.append(event);
    });
  }
  const ready = await timed(100, () => board.read((tx) => tx.tasks.ready(() => true, 1)));
  const list = await timed(100, (i) =>
    board.read((tx) => tx.tasks.list({ limit: 50, offset: (i % 10) * 50 })),
  );
  report({ name: `next_task (ready) on ${TASKS.toLocaleString("en")} tasks, ${name}`, figure: p(ready) });
  report({ name: `list_tasks (50) on ${TASKS.toLocaleString("en")} tasks, ${name}`, figure: p(list) });
  // The brief a worker asks for first: gathered from the store and assembled at the default budget.
  const config = WorkspaceConfig.parse({});
  const source = boardBriefSource(config);
  const now = new Date().toISOString();
  const brief = await timed(100, (i) =>
    buildBrief(board, source, {
      actor: OWNER,
      config,
      taskId: `T-${1 + ((i * 197) % TASKS)}`,
      now,
      budget: 4_000,
    }),
  );
  report({
    name: `brief (gather + assemble) on ${TASKS.toLocaleString("en")} tasks, ${name}`,
    figure: p(brief),
  });
  await board.close();
}

/**
 * The board exported and restored (`cairn import`'s work, in process) into a new SQLite file and
 * a new PostgreSQL schema: one transaction of every row on each.
 */
async function benchRestore(from: StoreLocation, toSqlite: StoreLocation, toPostgres: StoreLocation) {
  const source = openStore(from);
  const jsonl = await exportWorkspace(source, OWNER, true).finally(() => source.close());
  const seconds: number[] = [];
  for (const location of [toSqlite, toPostgres]) {
    const store = openStore(location, { create: true });
    try {
      const started = performance.now();
      await importWorkspace(store, OWNER, jsonl, new Date().toISOString());
      seconds.push((performance.now() - started) / 1000);
    } finally {
      await store.close();
    }
  }
  report({
    name: `restore an export of ${(jsonl.split("\n").length - 2).toLocaleString("en")} rows, postgres`,
    figure: `${seconds[1]?.toFixed(1)} s`,
    baseline: `sqlite ${seconds[0]?.toFixed(1)} s`,
  });
}

const uptime = () => execFileSync("uptime", { encoding: "utf8" }).trim();

export async function benchPostgres(): Promise<void> {
  const server = await startPostgres({ durable: true });
  const run = Date.now().toString(36);
  const scratch = mkdtempSync(join(tmpdir(), "cairn-bench-stores-"));
  const sqliteAt = (label: string): StoreLocation => ({ kind: "sqlite", path: join(scratch, `${label}.db`) });
  const pgAt = (label: string): StoreLocation => ({
    kind: "postgres",
    url: server.url,
    schema: `${label}-${run}`,
  });
  try {
    header("pg suite: PostgreSQL beside SQLite");
    process.stdout.write(`load before: ${uptime()}\n`);
    await benchWrites((mode, label) => (mode === "sqlite" ? sqliteAt(label) : pgAt(`${mode}-${label}`)));
    await benchBoard(sqliteAt("board"), undefined, "sqlite");
    await benchBoard(pgAt("board"), server.url, "postgres");
    await benchRestore(sqliteAt("board"), sqliteAt("restored"), pgAt("restored"));
    const figures: RecallFigures[] = [];
    for (const location of [sqliteAt("memory"), pgAt("memory")]) {
      const store = openStore(location, { create: true });
      try {
        figures.push(await benchRecall(store));
      } finally {
        await store.close();
      }
    }
    reportRecall(figures[0] as RecallFigures, figures[1] as RecallFigures);
    await benchColdStart({ CAIRN_STORE_URL: `${server.url}?schema=cold-${run}` });
    process.stdout.write(`load after: ${uptime()}\n`);
  } finally {
    await server.stop();
  }
}
