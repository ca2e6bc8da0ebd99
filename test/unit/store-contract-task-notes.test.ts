import { describe, expect, it } from "vitest";
import { contractStores, journaledWrite, storeForSuite } from "../helpers/contract-stores.js";
import { newTask } from "../helpers/new-task.js";

const AT = "2026-06-01T00:00:00.000Z";

/**
 * A task's detail reads a page of its notes and counts the rest: any agent that answers a question
 * or records a finding adds one, so neither read may take them all. Both stores page and count alike.
 */
describe.each(contractStores("task-notes"))("a task's notes paged and counted: $name", ({ create }) => {
  const store = storeForSuite(create);
  const write = journaledWrite(store, AT);

  it("reads a task's newest notes, oldest first, and counts them all", async () => {
    const [task, other] = await write(async (tx) => [
      await tx.tasks.insert(newTask("noted"), AT),
      await tx.tasks.insert(newTask("other"), AT),
    ]);
    if (!task || !other) throw new Error("no tasks");
    expect(await store.read((tx) => tx.tasks.notes(task.id, 3))).toEqual([]);
    expect(await store.read((tx) => tx.tasks.countNotes(task.id))).toBe(0);
    await write(async (tx) => {
      // One time for all: the order is the order they were added, not their times.
      for (let i = 0; i < 5; i++)
        await tx.tasks.addNote({
          taskId: task.id,
          at: AT,
          author: "owner",
          kind: "answer",
          text: `note ${i}`,
        });
      await tx.tasks.addNote({
        taskId: other.id,
        at: AT,
        author: "owner",
        kind: "answer",
        text: "elsewhere",
      });
    });
    const texts = async (limit: number) =>
      (await store.read((tx) => tx.tasks.notes(task.id, limit))).map((note) => note.text);
    expect(await texts(3)).toEqual(["note 2", "note 3", "note 4"]);
    expect(await texts(10)).toEqual(["note 0", "note 1", "note 2", "note 3", "note 4"]);
    expect((await store.read((tx) => tx.tasks.notes(task.id, 1)))[0]).toEqual({
      taskId: task.id,
      at: AT,
      author: "owner",
      kind: "answer",
      text: "note 4",
    });
    expect(await store.read((tx) => tx.tasks.countNotes(task.id))).toBe(5);
    expect(await store.read((tx) => tx.tasks.countNotes(other.id))).toBe(1);
  });

  it("counts the knowledge notes of one scope, of every kind", async () => {
    expect(await store.read((tx) => tx.notes.countInScope("task:T-9"))).toBe(0);
    await write(async (tx) => {
      for (let i = 0; i < 3; i++) {
        await tx.notes.insert(
          {
            scope: "task:T-9",
            author: "owner",
            body: { kind: "finding", text: `finding ${i}`, severity: "minor", trust: "unverified" },
          },
          AT,
        );
      }
      await tx.notes.insert(
        { scope: "task:T-9", author: "owner", body: { kind: "ref", target: "docs/x.md", summary: "" } },
        AT,
      );
      await tx.notes.insert(
        { scope: "workspace", author: "owner", body: { kind: "ref", target: "docs/y.md", summary: "" } },
        AT,
      );
    });
    expect(await store.read((tx) => tx.notes.countInScope("task:T-9"))).toBe(4);
    expect(await store.read((tx) => tx.notes.countInScope("task:T-90"))).toBe(0);
  });
});
