import { beforeAll, describe, expect, it } from "vitest";
import { TASK_ORDERS, type TaskFilter, type TaskRecord, type TaskStatus } from "../../src/store/tasks.js";
import { contractStores, journaledWrite, storeForSuite } from "../helpers/contract-stores.js";
import { newTask } from "../helpers/new-task.js";

const AT = "2026-06-01T00:00:00.000Z";

const summary = ({ id, title, status, priority, owner }: TaskRecord) => ({
  id,
  title,
  status,
  priority,
  owner,
});

/**
 * `task list` reads each task's summary, not its whole row (a task holds up to 256 KiB of context
 * and 64 KiB of traces); both stores page the summaries exactly as they page whole tasks: the same
 * tasks in the same order, the same fields, the same count.
 */
describe.each(contractStores("summaries"))("task summaries store contract: $name", ({ create }) => {
  const store = storeForSuite(create);
  const write = journaledWrite(store, AT);

  const statuses: TaskStatus[] = ["open", "active", "blocked", "done", "dropped"];
  beforeAll(async () => {
    await write(async (tx) => {
      const roots: string[] = [];
      for (let i = 0; i < 24; i++) {
        const parentId = i % 4 === 3 ? (roots.at(-1) ?? null) : null;
        const task = await tx.tasks.insert(
          newTask(`${i % 3 === 0 ? "Alpha" : "beta"} task ${i}`, {
            parentId,
            priority: (["must", "should", "could", "wont"] as const)[i % 4],
            context: `context ${i} ${"x".repeat(2_000)}${i % 5 === 0 ? " needle" : ""}`,
            traces: [`src/${i}.ts`],
            labels: i % 2 === 0 ? ["even"] : ["odd"],
          }),
          `2026-06-01T00:00:${String(i).padStart(2, "0")}.000Z`,
        );
        if (parentId === null) roots.push(task.id);
        const status = statuses[i % statuses.length] as TaskStatus;
        const held = status === "active" || status === "blocked";
        await tx.tasks.update(
          task.id,
          { status, owner: held ? `A-${i % 2}` : null },
          `2026-06-02T00:00:${String(23 - i).padStart(2, "0")}.000Z`,
        );
      }
      // T-1 (open) waits on T-2 (active): not ready.
      await tx.tasks.addDependency("T-1", "T-2");
    });
  });

  it("a page of summaries is the page of whole tasks, field for field, in every order and filter", async () => {
    const page = { limit: 5, offset: 3 };
    const filters: Omit<TaskFilter, "limit" | "offset">[] = [
      {},
      { status: ["open", "active", "blocked"] },
      { status: ["done"] },
      { owner: "A-1" },
      { label: "even" },
      { parent: "T-3" },
      { text: "needle" },
      { text: "alpha", status: ["open", "dropped"] },
      ...TASK_ORDERS.map((order) => ({ order })),
      ...TASK_ORDERS.map((order) => ({ order, status: ["open", "active"] as TaskStatus[] })),
    ];
    for (const filter of filters)
      for (const window of [page, { limit: 50, offset: 0 }, { limit: 1, offset: 1 }]) {
        const asked = { ...filter, ...window };
        const whole = await store.read((tx) => tx.tasks.list(asked));
        const summaries = await store.read((tx) => tx.tasks.listSummaries(asked));
        expect({ ...summaries, asked }).toEqual({ ...whole, tasks: whole.tasks.map(summary), asked });
      }
    // Every task, listed: the filters above reached each status.
    const all = await store.read((tx) => tx.tasks.listSummaries({ limit: 50, offset: 0 }));
    expect(all.total).toBe(24);
    expect(new Set(all.tasks.map((task) => task.status))).toEqual(new Set(statuses));
  });

  it("ready tasks are read as their summary and traces, as the whole tasks hold them", async () => {
    const whole = await store.read((tx) =>
      tx.tasks.list({ status: ["open"], order: "priority", limit: 50, offset: 0 }),
    );
    const expected = whole.tasks
      .filter((task) => task.id !== "T-1" && task.priority !== "wont")
      .map((task) => ({ ...summary(task), traces: task.traces }));
    expect(expected.map((task) => task.id)).toEqual(["T-21", "T-6", "T-11"]);
    expect(await store.read((tx) => tx.tasks.ready(() => true, 10))).toEqual(expected);
    // `accept` judges by the traces; `excluding` leaves one out; `limit` stops the read.
    const even = await store.read((tx) =>
      tx.tasks.ready((task) => task.traces[0] !== "src/5.ts", 10, "T-21"),
    );
    expect(even.map((task) => task.id)).toEqual(["T-11"]);
    expect(await store.read((tx) => tx.tasks.ready(() => true, 1))).toEqual(expected.slice(0, 1));
  });
});
