import { spawnSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { normaliseFact } from "../src/domains/knowledge/text.js";
import { openStore } from "../src/store/open.js";
import { MIGRATIONS } from "../src/store/sqlite/migrations/index.js";
import type { Store } from "../src/store/store.js";
import type { Priority } from "../src/store/tasks.js";
import { newTask } from "../test/helpers/new-task.js";
import { generatedFacts } from "./knowledge-corpus.js";
import { type BoardShape, type SeededNotes, seedEvent, seedNotes } from "./scale-notes.js";
import { baseEnv, CAIRN } from "./servers.js";

/**
 * The scale bench's board, seeded through the store's own repositories (the rows are exactly
 * what the product writes), in a few large journaled transactions, and kept under the system's
 * temporary folder so a rerun measures in seconds (`--reseed` or CAIRN_BENCH_SCALE_RESEED=1
 * seeds afresh). Bump SEED_FORMAT whenever what is seeded changes.
 */
const SEED_FORMAT = 4;
export const PER_EPIC = 100;
/** Most of a mature board is finished work; the rest is what agents read every minute. */
export const DONE_SHARE = 0.7;
const PRIORITIES: Priority[] = ["must", "should", "could", "wont"];
/** The part of the system each epic reworks, in turn. */
const AREAS = ["billing", "search", "auth", "ingest"];
/** Rows per write transaction: large enough that commits cost nothing, small enough to journal. */
const BATCH = 50_000;

export interface ScaleSizes {
  tasks: number;
  facts: number;
}

export interface Seeded {
  dir: string;
  db: string;
  /** Seconds the seed took (board, facts, then notes), and whether it was this run that took them. */
  board: number;
  factsSeconds: number;
  facts: number;
  /** The notes, risks and glossary entries seeded (bench/scale-notes.ts), and their seconds. */
  notes: SeededNotes;
  cached: boolean;
}

/** Where the epics, their tasks and the open ones sit on a board of this many tasks. */
export const boardShape = (tasks: number): BoardShape => {
  const epics = tasks / PER_EPIC;
  return { epics, firstOpen: Math.ceil(epics * DONE_SHARE), perEpic: PER_EPIC };
};

/** Sizes from `--tasks=N --facts=N` or CAIRN_BENCH_SCALE_TASKS / _FACTS; 200,000 and 1,000,000 by default. */
export function scaleSizes(argv: readonly string[] = process.argv): ScaleSizes & { reseed: boolean } {
  const flag = (name: string) => argv.find((arg) => arg.startsWith(`--${name}=`))?.split("=")[1];
  const size = (name: string, fallback: number) => {
    const text = flag(name) ?? process.env[`CAIRN_BENCH_SCALE_${name.toUpperCase()}`];
    const value = text === undefined ? fallback : Number(text.replaceAll("_", ""));
    if (!Number.isInteger(value) || value <= 0)
      throw new Error(`scale bench: --${name} must be a positive integer`);
    return value;
  };
  const tasks = Math.max(PER_EPIC * 10, Math.round(size("tasks", 200_000) / PER_EPIC) * PER_EPIC);
  return {
    tasks,
    facts: size("facts", 1_000_000),
    reseed: argv.includes("--reseed") || process.env.CAIRN_BENCH_SCALE_RESEED === "1",
  };
}

/**
 * How many migrations a build's schema holds, counted in an empty workspace that build makes: an
 * older build refuses a board a newer one has migrated, so a comparison must read an older board.
 */
export function schemaOf(bin: string): number {
  const dir = mkdtempSync(join(tmpdir(), "cairn-bench-schema-"));
  try {
    const init = spawnSync(process.execPath, [bin, "init"], { cwd: dir, env: baseEnv(), encoding: "utf8" });
    if (init.status !== 0) throw new Error(`${bin} init failed: ${init.stderr}`);
    const db = new Database(join(dir, ".cairn", "cairn.db"), { readonly: true });
    try {
      return (db.prepare("SELECT count(*) AS n FROM schema_migrations").get() as { n: number }).n;
    } finally {
      db.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The cached workspace for these sizes, seeded now if missing, stale or asked to be redone. At an
 * older `schema` (a `--vs` build from before a migration) only a board seeded by that build's own
 * bench will do, since this one seeds through today's repositories: both builds then read it,
 * and this build's maintenance migrates its copy first.
 */
export async function seededWorkspace(
  sizes: ScaleSizes,
  reseed: boolean,
  schema: number = MIGRATIONS.length,
): Promise<Seeded> {
  const root = join(tmpdir(), "cairn-bench-scale");
  // The schema is part of the key: a cached board from before a migration is seeded afresh.
  const dir = join(root, `v${SEED_FORMAT}.${schema}-${sizes.tasks}-tasks-${sizes.facts}-facts`);
  const db = join(dir, ".cairn", "cairn.db");
  const record = join(dir, "seed.json");
  if (!reseed && existsSync(record)) {
    const kept = JSON.parse(readFileSync(record, "utf8")) as Omit<Seeded, "dir" | "db" | "cached">;
    return { ...kept, dir, db, cached: true };
  }
  if (schema !== MIGRATIONS.length) {
    throw new Error(
      `scale bench: the --vs build's schema has ${schema} migrations and this build's ${MIGRATIONS.length}; ` +
        `no board is cached at ${dir}. Run \`npm run bench -- scale\` once in the older build's checkout ` +
        "(with the same sizes), which seeds it, then run this comparison again.",
    );
  }
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const init = spawnSync(process.execPath, [CAIRN, "init"], { cwd: dir, env: baseEnv(), encoding: "utf8" });
  if (init.status !== 0) throw new Error(`cairn init failed: ${init.stderr}`);
  const store = openStore(db, { bulk: true });
  const at = new Date().toISOString();
  const started = performance.now();
  await seedBoard(store, sizes.tasks, at);
  const board = (performance.now() - started) / 1000;
  const facts = await seedFacts(store, sizes.facts, at);
  const factsSeconds = (performance.now() - started) / 1000 - board;
  const notes = await seedNotes(store, boardShape(sizes.tasks), at);
  await store.close();
  const seeded = { board, factsSeconds, facts, notes };
  // Written last and atomically: a seed interrupted half-way is never taken for a finished one.
  writeFileSync(`${record}.tmp`, JSON.stringify(seeded));
  renameSync(`${record}.tmp`, record);
  return { ...seeded, dir, db, cached: false };
}

/** Copy the cached database aside so a run that writes (get_context, recall) never ages the cache. */
export function workingCopy(seeded: Seeded, into: string): string {
  mkdirSync(join(into, ".cairn"), { recursive: true });
  // The store was closed cleanly after seeding, so the database file holds everything (no WAL).
  for (const name of readdirSync(join(seeded.dir, ".cairn"))) {
    if (!/-(wal|shm)$/.test(name)) copyFileSync(join(seeded.dir, ".cairn", name), join(into, ".cairn", name));
  }
  return into;
}

/** Epics of 100 tasks; a tenth of each epic waits on its predecessor; labels on some. */
async function seedBoard(store: Store, tasks: number, at: string): Promise<void> {
  const epics = tasks / PER_EPIC;
  const epicsPerBatch = Math.max(1, Math.floor(BATCH / PER_EPIC));
  for (let first = 0; first < epics; first += epicsPerBatch) {
    await store.write(async (tx) => {
      const last = Math.min(epics, first + epicsPerBatch);
      for (let epic = first; epic < last; epic++) {
        const done = epic < epics * DONE_SHARE;
        const parent = await tx.tasks.insert(
          newTask(`epic ${epic}: ${AREAS[epic % 4]} rework`, {
            soThat: "the service stays fast at scale",
            priority: "should",
            labels: ["epic"],
          }),
          at,
        );
        let previous = parent.id;
        // A task names its epic's part of the system, as real titles do: a brief's memory then
        // recalls facts about that part (the facts' components include every area here), and
        // not facts that share only a lone digit with the title.
        const subject = `${AREAS[epic % 4]} ${["cache", "index", "queue", "parser"][epic % 4]}`;
        for (let i = 1; i < PER_EPIC; i++) {
          const task = await tx.tasks.insert(
            newTask(
              `epic ${epic} task ${i}: ${["tune", "test", "document", "measure"][i % 4]} the ${subject}`,
              {
                parentId: parent.id,
                priority: PRIORITIES[(epic + i) % 4] as Priority,
                labels: i % 7 === 0 ? ["api"] : i % 5 === 0 ? ["ui", "api"] : [],
              },
            ),
            at,
          );
          await tx.tasks.addCriterion(task.id, {
            text: "tests pass",
            verify: null,
            shortcut: null,
            addedBy: "owner",
            params: {},
            timeoutSeconds: null,
            setting: null,
          });
          if (i % 10 === 0) await tx.tasks.addDependency(task.id, previous);
          if (done) await tx.tasks.update(task.id, { status: "done" }, at);
          else if (i % 25 === 0)
            await tx.tasks.update(task.id, { status: "blocked", blockedReason: "waits" }, at);
          previous = task.id;
        }
        if (done) await tx.tasks.update(parent.id, { status: "done" }, at);
      }
      await tx.journal.append(seedEvent((last - first) * PER_EPIC, "tasks", at));
    });
  }
}

async function seedFacts(store: Store, count: number, at: string): Promise<number> {
  const facts = generatedFacts(count, 7);
  let loaded = 0;
  for (let start = 0; start < facts.length; start += BATCH) {
    loaded += await store.write(async (tx) => {
      const batch = facts.slice(start, start + BATCH).map((fact) => ({
        text: fact.text,
        norm: normaliseFact(fact.text),
        topics: fact.topics,
        author: "owner",
      }));
      const { length: count } = await tx.facts.insertMany(batch, at);
      await tx.journal.append(seedEvent(count, "facts", at));
      return count;
    });
  }
  return loaded;
}
