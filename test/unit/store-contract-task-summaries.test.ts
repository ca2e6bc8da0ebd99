import { beforeAll, describe, expect, it } from "vitest";
import { TITLE_CHARS } from "../../src/domains/limits/limits.js";
import { previewOfHead, previewText } from "../../src/kernel/text.js";
import type { Tx } from "../../src/store/store.js";
import {
  type HeldTaskRecord,
  REASON_HEAD_CHARS,
  TASK_ORDERS,
  type TaskFilter,
  type TaskRecord,
  type TaskStatus,
} from "../../src/store/tasks.js";
import { contractStores, journaledWrite, storeForSuite } from "../helpers/contract-stores.js";
import { newTask } from "../helpers/new-task.js";
import { previewTexts } from "../helpers/preview-texts.js";

const AT = "2026-06-01T00:00:00.000Z";

const summary = ({ id, title, status, priority, owner }: TaskRecord) => ({
  id,
  title,
  status,
  priority,
  owner,
});

/** Blocked reasons as status previews them (previewTexts), and none at all. */
const REASONS: (string | null)[] = [null, "", ...previewTexts(40_000)];

/** What status, now and review show of a task, from the whole task... */
const shownOfWhole = (tasks: TaskRecord[]) =>
  tasks.map((task) => ({
    ...summary(task),
    claimedAt: task.claimedAt,
    leaseAt: task.leaseAt,
    unverified: task.unverified,
    why: previewText(task.blockedReason ?? "", TITLE_CHARS),
    reasonLength: task.blockedReason?.length ?? null,
  }));
/** ...and from the held task. */
const shownOfHeld = (tasks: HeldTaskRecord[]) =>
  tasks.map(({ blockedReason, ...task }) => ({
    ...task,
    why: blockedReason ? previewOfHead(blockedReason, TITLE_CHARS) : "",
    reasonLength: blockedReason?.length ?? null,
  }));

/** The list filters both pages are held to, each at three windows. */
const FILTERS: Omit<TaskFilter, "limit" | "offset">[] = [
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
const WINDOWS = [
  { limit: 5, offset: 3 },
  { limit: 50, offset: 0 },
  { limit: 1, offset: 1 },
];

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
        // For the held reads: claim times on the held tasks, a blocked reason on most tasks
        // whatever their status (the store reads it from any), every other done task unverified.
        await tx.tasks.update(
          task.id,
          {
            status,
            owner: held ? `A-${i % 2}` : null,
            blockedReason: REASONS[i % REASONS.length] ?? null,
            ...(held
              ? { claimedAt: AT, leaseAt: `2026-06-03T00:00:${String(i).padStart(2, "0")}.000Z` }
              : {}),
            ...(status === "done" ? { unverified: i % 2 === 1 } : {}),
          },
          `2026-06-02T00:00:${String(23 - i).padStart(2, "0")}.000Z`,
        );
      }
      // T-1 (open) waits on T-2 (active): not ready.
      await tx.tasks.addDependency("T-1", "T-2");
    });
  });

  it("a page of summaries is the page of whole tasks, field for field, in every order and filter", async () => {
    for (const filter of FILTERS)
      for (const window of WINDOWS) {
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

  it("a page after a task is the rest of the tree-order list after it, counted from there", async () => {
    for (const status of [undefined, ["open", "active", "blocked"] as TaskStatus[]]) {
      const all = (await store.read((tx) => tx.tasks.listSummaries({ status, limit: 50, offset: 0 }))).tasks;
      for (const [at, task] of all.entries()) {
        const rest = all.slice(at + 1);
        const after = await store.read((tx) =>
          tx.tasks.listSummaries({ status, after: task.id, limit: 3, offset: 0 }),
        );
        expect({ after, task: task.id }).toEqual({
          after: { tasks: rest.slice(0, 3), total: rest.length },
          task: task.id,
        });
      }
    }
    // A child comes after its parent in tree order, and a task no one has is followed by nothing.
    const afterParent = await store.read((tx) =>
      tx.tasks.listSummaries({ after: "T-3", limit: 1, offset: 0 }),
    );
    expect(afterParent.tasks.map((task) => task.id)).toEqual(["T-4"]);
    expect(await store.read((tx) => tx.tasks.listSummaries({ after: "T-404", limit: 5, offset: 0 }))).toEqual(
      {
        tasks: [],
        total: 0,
      },
    );
  });

  it("a page of held tasks (board cards, a sweep) shows what the page of whole tasks does", async () => {
    for (const filter of FILTERS)
      for (const window of WINDOWS) {
        const asked = { ...filter, ...window };
        const { tasks, ...counted } = await store.read((tx) => tx.tasks.list(asked));
        const held = await store.read((tx) => tx.tasks.listHeld(asked));
        expect({ ...held, tasks: shownOfHeld(held.tasks), asked }).toEqual({
          ...counted,
          tasks: shownOfWhole(tasks),
          asked,
        });
      }
    // The page reached unverified work and long reasons read as their head alone.
    const all = await store.read((tx) => tx.tasks.listHeld({ limit: 50, offset: 0 }));
    expect(all.tasks.filter((task) => task.unverified).map((task) => task.id)).toEqual([
      "T-4",
      "T-14",
      "T-24",
    ]);
    expect(all.tasks.find((task) => task.id === "T-6")?.blockedReason).toEqual({
      head: `long ${"c".repeat(REASON_HEAD_CHARS - 5)}`,
      length: 40_005,
    });
  });

  it("a task's children, dependencies and dependents, and an owner's active tasks, are read as summaries", async () => {
    const whole = (await store.read((tx) => tx.tasks.list({ order: "created", limit: 50, offset: 0 }))).tasks;
    const oldestFirst = [...whole].reverse();
    const byId = new Map(whole.map((task) => [task.id, task]));
    const children = oldestFirst.filter((task) => task.parentId === "T-3");
    expect(children.map((task) => task.id)).toEqual(["T-4"]);
    expect(await store.read((tx) => tx.tasks.children("T-3"))).toEqual(children.map(summary));
    expect(await store.read((tx) => tx.tasks.children("T-4"))).toEqual([]);
    const dependency = byId.get("T-2") as TaskRecord;
    expect(await store.read((tx) => tx.tasks.dependencies("T-1"))).toEqual([
      { ...summary(dependency), createdBy: dependency.createdBy },
    ]);
    expect(await store.read((tx) => tx.tasks.dependencies("T-2"))).toEqual([]);
    // In the order named, the missing left out.
    expect(await store.read((tx) => tx.tasks.byIds(["T-9", "T-404", "T-1"]))).toEqual(
      ["T-9", "T-1"].map((id) => summary(byId.get(id) as TaskRecord)),
    );
    for (const owner of ["A-0", "A-1"]) {
      const active = oldestFirst.filter((task) => task.owner === owner && task.status === "active");
      expect(active.length).toBeGreaterThan(0);
      expect(await store.read((tx) => tx.tasks.activeBy(owner))).toEqual(active.map(summary));
    }
  });

  it("ready tasks are read as their summary, traces and author, as the whole tasks hold them", async () => {
    const whole = await store.read((tx) =>
      tx.tasks.list({ status: ["open"], order: "priority", limit: 50, offset: 0 }),
    );
    const expected = whole.tasks
      .filter((task) => task.id !== "T-1" && task.priority !== "wont")
      .map((task) => ({ ...summary(task), traces: task.traces, createdBy: task.createdBy }));
    expect(expected.map((task) => task.id)).toEqual(["T-21", "T-6", "T-11"]);
    expect(await store.read((tx) => tx.tasks.ready(() => true, 10))).toEqual(expected);
    // `accept` judges by the traces; `excluding` leaves one out; `limit` stops the read.
    const even = await store.read((tx) =>
      tx.tasks.ready((task) => task.traces[0] !== "src/5.ts", 10, "T-21"),
    );
    expect(even.map((task) => task.id)).toEqual(["T-11"]);
    expect(await store.read((tx) => tx.tasks.ready(() => true, 1))).toEqual(expected.slice(0, 1));
  });

  it("held tasks are read as their summary, claim and reason's head, showing what the whole tasks do", async () => {
    const newestFirst = (await store.read((tx) => tx.tasks.list({ order: "created", limit: 50, offset: 0 })))
      .tasks;
    const oldestFirst = [...newestFirst].reverse();
    const read = (work: (tx: Tx) => Promise<HeldTaskRecord[]>) => store.read(work);
    for (const status of statuses) {
      const held = await read((tx) => tx.tasks.byStatus(status, 50));
      expect(shownOfHeld(held)).toEqual(shownOfWhole(oldestFirst.filter((task) => task.status === status)));
    }
    expect((await read((tx) => tx.tasks.byStatus("open", 2))).map((task) => task.id)).toEqual(["T-1", "T-6"]);
    // The long ASCII reasons are read as their head only (the others are read whole).
    const open = await read((tx) => tx.tasks.byStatus("open", 50));
    expect(open.find((task) => task.id === "T-6")?.blockedReason).toEqual({
      head: `long ${"c".repeat(REASON_HEAD_CHARS - 5)}`,
      length: 40_005,
    });
    const dropped = await read((tx) => tx.tasks.byStatus("dropped", 50));
    expect(dropped.find((task) => task.id === "T-5")?.blockedReason?.head).toHaveLength(REASON_HEAD_CHARS);

    const unverified = newestFirst.filter((task) => task.status === "done" && task.unverified);
    expect(unverified.map((task) => task.id)).toEqual(["T-24", "T-14", "T-4"]);
    expect(shownOfHeld(await read((tx) => tx.tasks.unverifiedDone(50)))).toEqual(shownOfWhole(unverified));
    expect(shownOfHeld(await read((tx) => tx.tasks.unverifiedDone(1)))).toEqual(
      shownOfWhole(unverified.slice(0, 1)),
    );

    // Leases stamped before 00:05 or after 00:15 lie outside the window.
    const live = { from: "2026-06-03T00:00:05.000Z", to: "2026-06-03T00:00:15.000Z" };
    const stale = oldestFirst.filter(
      (task) =>
        task.status === "active" &&
        ((task.leaseAt as string) < live.from || (task.leaseAt as string) > live.to),
    );
    expect(stale.map((task) => task.id)).toEqual(["T-2", "T-17", "T-22"]);
    expect(shownOfHeld(await read((tx) => tx.tasks.staleClaims(live)))).toEqual(shownOfWhole(stale));
  });
});
