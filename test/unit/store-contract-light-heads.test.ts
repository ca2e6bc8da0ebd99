import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { SHORTCUT_HEADS_SQL } from "../../src/store/sqlite/shortcut-rows.js";
import { COUNT_UNVERIFIED_DONE_SQL, UNVERIFIED_DONE_SQL } from "../../src/store/sqlite/tasks.js";
import { contractStores, journaledWrite, storeForSuite } from "../helpers/contract-stores.js";
import { scratchDir } from "../helpers/workspace.js";

const AT = "2026-06-01T00:00:00.000Z";

/**
 * Reads of shortcuts, which any writer can add many of, each with a command of its own, that do
 * not load them all: a shortcut's head (who may run it) and a page of shortcuts. Both stores
 * answer as reading everything whole would.
 */
describe.each(contractStores("light-heads"))("heads and pages read in the store: $name", ({ create }) => {
  const store = storeForSuite(create);
  const write = journaledWrite(store, AT);

  it("shortcut heads and pages agree with the whole list, leaving out the names asked", async () => {
    const names = ["zeta", "alpha", "mid", "beta", "omega"];
    await write(async (tx) => {
      for (const [n, name] of names.entries())
        await tx.shortcuts.upsert(
          {
            name,
            argv: ["echo", `${name} ${"x".repeat(1000)}`],
            effect: n % 2 === 0 ? "read" : "destructive",
            roles: n === 1 ? ["builder", "lead"] : [],
            summary: `the ${name} one`,
            addedBy: n === 3 ? "owner" : `A-${n}`,
            version: n + 1,
          },
          AT,
        );
    });
    const all = await store.read((tx) => tx.shortcuts.list());
    const heads = await store.read((tx) => tx.shortcuts.heads());
    expect(heads).toEqual(
      all.map(({ name, effect, roles, source, addedBy }) => ({ name, effect, roles, source, addedBy })),
    );
    expect(heads.map((h) => h.name)).toEqual(["alpha", "beta", "mid", "omega", "zeta"]);

    const excluding = ["beta", "not-stored"];
    const kept = all.filter((s) => !excluding.includes(s.name));
    for (const [limit, offset] of [
      [2, 0],
      [2, 2],
      [2, 4],
      [10, 0],
      [0, 0],
      [3, 10],
    ] as const) {
      const page = await store.read((tx) => tx.shortcuts.page({ limit, offset, excluding }));
      expect(page).toEqual({ shortcuts: kept.slice(offset, offset + limit), total: kept.length });
    }
  });
});

describe("shortcut heads on SQLite", () => {
  it("are read from their index alone, never from rows that hold each command", async () => {
    const scratch = scratchDir();
    try {
      const [sqlite] = contractStores("light-heads-plan");
      await sqlite?.create(scratch.dir).close();
      const db = new Database(join(scratch.dir, "cairn.db"), { readonly: true });
      try {
        const plan = db
          .prepare(`EXPLAIN QUERY PLAN ${SHORTCUT_HEADS_SQL}`)
          .all()
          .map((row) => (row as { detail: string }).detail);
        expect(plan).toEqual(["SCAN shortcuts USING COVERING INDEX shortcuts_heads"]);
      } finally {
        db.close();
      }
    } finally {
      scratch.cleanup();
    }
  });
});

describe("tasks finished unverified on SQLite", () => {
  it("are counted and listed from their index, never by reading every done task", async () => {
    const scratch = scratchDir();
    try {
      const [sqlite] = contractStores("unverified-plan");
      await sqlite?.create(scratch.dir).close();
      const db = new Database(join(scratch.dir, "cairn.db"), { readonly: true });
      try {
        const plan = (sql: string, ...params: number[]) =>
          db
            .prepare(`EXPLAIN QUERY PLAN ${sql}`)
            .all(...params)
            .map((row) => (row as { detail: string }).detail);
        expect(plan(COUNT_UNVERIFIED_DONE_SQL)).toEqual([
          "SCAN tasks USING COVERING INDEX tasks_unverified_done",
        ]);
        expect(plan(UNVERIFIED_DONE_SQL, 200)).toEqual(["SCAN tasks USING INDEX tasks_unverified_done"]);
      } finally {
        db.close();
      }
    } finally {
      scratch.cleanup();
    }
  });
});
