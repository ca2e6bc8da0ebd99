import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/open.js";
import { COUNTED_BEYOND_PAGE } from "../../src/store/sqlite/task-pages.js";
import type { Store } from "../../src/store/store.js";
import type { TaskFilter, TaskRecord, TaskStatus } from "../../src/store/tasks.js";
import { newTask } from "../helpers/new-task.js";
import { scratchDir } from "../helpers/workspace.js";

/** A board big enough to cap the count, with statuses and labels interleaved through the tree. */
const TASKS = 1_300;
const STATUSES: TaskStatus[] = ["open", "done", "blocked", "open", "dropped", "done"];

describe("task pages: one status run per index walk, merged in tree order", () => {
  const scratch = scratchDir();
  let store: Store;
  let all: TaskRecord[];

  beforeAll(async () => {
    store = openStore(join(scratch.dir, "cairn.db"), { create: true });
    const at = "2026-12-01T00:00:00.000Z";
    await store.write(async (tx) => {
      let parent: string | null = null;
      for (let i = 0; i < TASKS; i++) {
        const task = await tx.tasks.insert(
          newTask(`task ${i}`, {
            // Every tenth task starts a subtree, so tree order differs from insertion order.
            parentId: i % 10 === 0 ? null : parent,
            priority: "should",
            labels: i % 3 === 0 ? ["api"] : [],
          }),
          at,
        );
        if (i % 10 === 0) parent = task.id;
        const status = STATUSES[i % STATUSES.length] as TaskStatus;
        if (status !== "open") await tx.tasks.update(task.id, { status }, at);
      }
      await tx.journal.append({ at, actor: "owner", action: "test.seed", subject: "tasks", data: {} });
    });
    all = await store.read(async (tx) => (await tx.tasks.list({ limit: TASKS, offset: 0 })).tasks);
  });
  afterAll(async () => {
    await store.close();
    scratch.cleanup();
  });

  const expected = (filter: Partial<TaskFilter>) =>
    all
      .filter((task) => !filter.status || filter.status.includes(task.status))
      .filter((task) => filter.label === undefined || task.labels.includes(filter.label));

  it("lists in tree order across statuses, at any offset, exactly as a full sort would", async () => {
    expect(all.map((task) => task.sortPath)).toEqual([...all.map((task) => task.sortPath)].sort());
    for (const status of [["open"], ["open", "blocked"], ["done", "open", "dropped"]] as TaskStatus[][]) {
      for (const [offset, limit, label] of [
        [0, 20, undefined],
        [35, 50, "api"],
        [400, 7, undefined],
      ] as const) {
        const page = await store.read((tx) => tx.tasks.list({ status, label, limit, offset }));
        const want = expected({ status, label });
        expect(
          page.tasks.map((task) => task.id),
          `${status} ${offset}`,
        ).toEqual(want.slice(offset, offset + limit).map((task) => task.id));
        const cap = offset + limit + COUNTED_BEYOND_PAGE;
        expect(page.total).toBe(Math.min(want.length, cap));
        expect(page.capped ?? false).toBe(want.length >= cap);
      }
    }
  });

  it("counts exactly up to a thousand past the page, then says the count is capped", async () => {
    const small = await store.read((tx) => tx.tasks.list({ status: ["open"], limit: 10, offset: 0 }));
    expect(small).toMatchObject({ total: expected({ status: ["open"] }).length });
    expect(small.capped).toBeUndefined();
    const broad = await store.read((tx) => tx.tasks.list({ limit: 10, offset: 0 }));
    expect(broad).toMatchObject({ total: 10 + COUNTED_BEYOND_PAGE, capped: true });
    const deep = await store.read((tx) => tx.tasks.list({ limit: 10, offset: 200 }));
    expect(deep.total).toBeGreaterThan(210);
  });
});
