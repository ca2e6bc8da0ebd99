import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/open.js";
import { roundTrips } from "../../src/store/postgres/db.js";
import { openPostgresStore } from "../../src/store/postgres/pg-store.js";
import type { Store } from "../../src/store/store.js";
import { newTask } from "../helpers/new-task.js";
import { testPgUrl } from "../helpers/workspace.js";

/**
 * The PostgreSQL store folds a write's round trips (BEGIN with the first statement, journal
 * appends with COMMIT) without giving up what each one guaranteed: ids known before the insert,
 * gapless after a rollback, right after an import that wrote events itself.
 */
const location = () => ({ kind: "postgres" as const, url: testPgUrl(), schema: `trips-${randomUUID()}` });
const event = (action: string, subject = "s") => ({
  at: "2026-01-01T00:00:00.000Z",
  actor: "owner",
  action,
  subject,
  data: { n: action },
});
const TASK = newTask("t");

const stores: Store[] = [];
const open = (at = location(), baseline = false): Store => {
  const store = baseline
    ? openPostgresStore(at, { create: true, baselineWrites: true })
    : openStore(at, { create: true });
  stores.push(store);
  return store;
};
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
});

async function trips(work: () => Promise<unknown>): Promise<number> {
  const before = roundTrips.count;
  await work();
  return roundTrips.count - before;
}

describe("PostgreSQL write round trips", () => {
  it("a claim costs 3 round trips (5 on the baseline path) and a read 2", async () => {
    for (const baseline of [false, true]) {
      const store = open(location(), baseline);
      const id = await store.write(async (tx) => {
        const made = await tx.tasks.insert(TASK, "2026-01-01T00:00:00.000Z");
        await tx.journal.append(event("task.add", made.id));
        return made.id;
      });
      const claim = () =>
        store.write(async (tx) => {
          await tx.tasks.byId(id);
          await tx.tasks.update(id, { status: "active", owner: "A-1" }, "2026-01-01T00:00:01.000Z");
          await tx.journal.append(event("task.claim", id));
        });
      expect(await trips(claim)).toBe(baseline ? 5 : 3);
      expect(await trips(() => store.read((tx) => tx.tasks.byId(id)))).toBe(baseline ? 3 : 2);
    }
  });

  it("held appends get the ids the journal gives them, with no gap after a rollback", async () => {
    const store = open();
    const first = await store.write(async (tx) => [
      await tx.journal.append(event("a")),
      await tx.journal.append(event("b")),
    ]);
    expect(first).toEqual([1, 2]);
    await expect(
      store.write(async (tx) => {
        await tx.journal.append(event("lost"));
        throw new Error("changed my mind");
      }),
    ).rejects.toThrow(/changed my mind/);
    // A statement after an append sees it (the held append is sent first).
    const seen = await store.write(async (tx) => {
      const id = await tx.journal.append(event("c"));
      return { id, recent: (await tx.journal.recent(1))[0] };
    });
    expect(seen).toMatchObject({ id: 3, recent: { id: 3, action: "c", data: { n: "c" } } });
    const all = await store.read((tx) => tx.journal.recent(10));
    expect(all.map((e) => [e.id, e.action])).toEqual([
      [3, "c"],
      [2, "b"],
      [1, "a"],
    ]);
  });

  it("an import that writes events itself is followed by an append with the next id", async () => {
    const source = open();
    for (const action of ["x", "y", "z"]) await source.write((tx) => tx.journal.append(event(action)));
    const records = (await source.read((tx) => tx.transfer.dump())).filter((r) => r.table === "events");
    const target = open();
    const id = await target.write(async (tx) => {
      await tx.transfer.restore(records);
      return tx.journal.append(event("workspace.import"));
    });
    expect(id).toBe(4);
    const next = await target.write((tx) => tx.journal.append(event("after")));
    expect(next).toBe(5);
  });

  it("a bulk write of 2,500 appends flushes in slices and keeps every event in order", async () => {
    const store = open();
    const ids = await store.write(async (tx) => {
      const made: number[] = [];
      for (let i = 0; i < 2_500; i++) made.push(await tx.journal.append(event(`e${i}`)));
      return made;
    });
    expect(ids[0]).toBe(1);
    expect(ids.at(-1)).toBe(2_500);
    const last = await store.read((tx) => tx.journal.recent(2));
    expect(last.map((e) => [e.id, e.action])).toEqual([
      [2_500, "e2499"],
      [2_499, "e2498"],
    ]);
  });
});
