/**
 * Writes on PostgreSQL beside SQLite: claims/s at 1, 8 and 32 connections, remember/s, and the
 * round trips each write costs. The PostgreSQL baseline in the same run is the same store with
 * `baselineWrites` (BEGIN awaited alone, every journal append sent on its own: the write path
 * before its round trips were folded).
 */
import { OWNER } from "../src/domains/identity/actor.js";
import { remember } from "../src/domains/knowledge/memory.js";
import { openStore, type StoreLocation } from "../src/store/open.js";
import { roundTrips } from "../src/store/postgres/db.js";
import { openPostgresStore } from "../src/store/postgres/pg-store.js";
import type { Store } from "../src/store/store.js";
import { newTask } from "../test/helpers/new-task.js";
import { ms, percentile, report } from "./report.js";

const at = "2026-10-01T00:00:00.000Z";
const event = { at, actor: "owner", action: "bench", subject: "bench", data: {} };
const PER_WRITER = 40;
/** Alternated rounds of baseline and new per figure. */
const ROUNDS = 3;

export type Mode = "sqlite" | "pg" | "pg-baseline";
const openMode = (mode: Mode, location: StoreLocation): Store =>
  mode === "pg-baseline" && location.kind === "postgres"
    ? openPostgresStore(location, { create: true, baselineWrites: true })
    : openStore(location, { create: true });

/** Claims/s with `writers` handles each claiming its own tasks (read, check, update, journal). */
async function claims(
  mode: Mode,
  location: StoreLocation,
  writers: number,
): Promise<{ perSecond: number; trips: number }> {
  const stores = Array.from({ length: writers }, () => openMode(mode, location));
  try {
    const ids = await (stores[0] as Store).write(async (tx) => {
      const made: string[] = [];
      for (let i = 0; i < writers * PER_WRITER; i++)
        made.push((await tx.tasks.insert(newTask(`t${i}`), at)).id);
      await tx.journal.append(event);
      return made;
    });
    await Promise.all(stores.map((store) => store.read(async () => undefined)));
    const trips = roundTrips.count;
    const started = performance.now();
    await Promise.all(
      stores.map(async (store, w) => {
        for (let i = 0; i < PER_WRITER; i++) {
          const id = ids[w * PER_WRITER + i] as string;
          await store.write(async (tx) => {
            const task = await tx.tasks.byId(id);
            if (task?.owner) throw new Error(`double claim of ${id}`);
            await tx.tasks.update(id, { status: "active", owner: `A-${w}`, claimedAt: at, leaseAt: at }, at);
            await tx.journal.append({ ...event, action: "task.claim", subject: id });
          });
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    return {
      perSecond: (writers * PER_WRITER) / seconds,
      trips: (roundTrips.count - trips) / (writers * PER_WRITER),
    };
  } finally {
    await Promise.all(stores.map((store) => store.close()));
  }
}

/** 200 remembers in a row: per-call latency and round trips. */
async function remembers(mode: Mode, location: StoreLocation): Promise<{ samples: number[]; trips: number }> {
  const store = openMode(mode, location);
  try {
    await store.read(async () => undefined);
    const trips = roundTrips.count;
    const samples: number[] = [];
    for (let i = 0; i < 200; i++) {
      const started = performance.now();
      await remember(
        store,
        OWNER,
        { text: `remembered fact number ${i} about leases`, topics: ["bench"] },
        at,
      );
      samples.push(performance.now() - started);
    }
    return { samples, trips: (roundTrips.count - trips) / 200 };
  } finally {
    await store.close();
  }
}

export async function benchWrites(location: (mode: Mode, label: string) => StoreLocation): Promise<void> {
  const sqlite = await claims("sqlite", location("sqlite", "claims1"), 1);
  report({ name: "claims/s, sqlite, 1 writer", figure: `${Math.round(sqlite.perSecond)}/s` });
  // Pairwise and alternated (baseline, new, baseline, new, …) on fresh schemas of one server, the
  // median of each side reported: on a shared machine one pass of each says little.
  const pairs = async (writers: number, label: string) => {
    const sides = { before: [] as number[], after: [] as number[] };
    let trips = { before: 0, after: 0 };
    for (let round = 0; round < ROUNDS; round++) {
      const before = await claims(
        "pg-baseline",
        location("pg-baseline", `${label}${writers}-${round}`),
        writers,
      );
      const after = await claims("pg", location("pg", `${label}${writers}-${round}`), writers);
      sides.before.push(before.perSecond);
      sides.after.push(after.perSecond);
      trips = { before: before.trips, after: after.trips };
    }
    const median = (values: number[]) => `${Math.round(percentile(values, 50))}/s`;
    return { before: median(sides.before), after: median(sides.after), trips };
  };
  for (const writers of [1, 8, 32]) {
    const { before, after, trips } = await pairs(writers, "claims");
    report({
      name: `claims/s, postgres, ${writers} connection(s)`,
      figure: after,
      baseline: `${before} baseline path`,
    });
    if (writers === 1)
      report({
        name: "round trips per claim, postgres",
        figure: trips.after.toFixed(2),
        baseline: `${trips.before.toFixed(2)} baseline path`,
      });
  }
  // The same without waiting for fsync at commit (the session setting, through PGOPTIONS): what
  // is left is the time the lock is held, which is where the round trips show.
  const options = process.env.PGOPTIONS;
  process.env.PGOPTIONS = "-c synchronous_commit=off";
  try {
    for (const writers of [1, 32]) {
      const { before, after } = await pairs(writers, "nosync");
      report({
        name: `claims/s, postgres, ${writers} conn., commit without fsync`,
        figure: after,
        baseline: `${before} baseline path`,
      });
    }
  } finally {
    if (options === undefined) delete process.env.PGOPTIONS;
    else process.env.PGOPTIONS = options;
  }
  const lite = await remembers("sqlite", location("sqlite", "remember"));
  const before = await remembers("pg-baseline", location("pg-baseline", "remember"));
  const after = await remembers("pg", location("pg", "remember"));
  const rate = (samples: number[]) => `${Math.round(1000 / percentile(samples, 50))}/s`;
  report({
    name: "remember/s, sqlite",
    figure: rate(lite.samples),
    baseline: `p50 ${ms(percentile(lite.samples, 50))}`,
  });
  report({
    name: "remember/s, postgres",
    figure: rate(after.samples),
    baseline: `${rate(before.samples)} baseline path`,
  });
  report({
    name: "round trips per remember, postgres",
    figure: after.trips.toFixed(2),
    baseline: `${before.trips.toFixed(2)} baseline path`,
  });
}
