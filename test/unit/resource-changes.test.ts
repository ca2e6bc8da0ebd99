import { describe, expect, it } from "vitest";
import { idsShown, mayHaveChanged, TOUCH_ALL, touchOf } from "../../src/commands/resource-changes.js";
import { previewData } from "../../src/commands/ui/activity.js";

const at = (action: string, subject: string, data: Record<string, unknown> = {}) => ({
  action,
  subject,
  data,
});

describe("what a stretch of the journal touched", () => {
  it("names a task by subject or by a value in the data, and nothing else", () => {
    const touch = touchOf([at("task.claim", "T-1"), at("task.depend", "T-4", { on: ["T-7"] })]);
    expect(mayHaveChanged("cairn://task/T-1", touch)).toBe(true);
    expect(mayHaveChanged("cairn://task/T-7", touch)).toBe(true);
    expect(mayHaveChanged("cairn://task/T-4/brief", touch)).toBe(true);
    expect(mayHaveChanged("cairn://task/T-2", touch)).toBe(false);
    // T-10 is not T-1, nor T-1 a prefix match of T-10.
    expect(mayHaveChanged("cairn://task/T-10", touch)).toBe(false);
    expect(mayHaveChanged("cairn://board", touch)).toBe(true);
    expect(touch.listChanged).toBe(false);
  });

  it("touches everything when an event's data was read as a preview with items left out", () => {
    const released = Array.from({ length: 30 }, (_, n) => ({ task: `T-${n + 1}`, why: "silent" }));
    const previewed = touchOf([at("claims.swept", "sweep", previewData({ released }))]);
    expect(previewed).toBe(TOUCH_ALL);
    expect(mayHaveChanged("cairn://task/T-30", previewed)).toBe(true);
    // Whole, the same event names each task, and only those.
    const whole = touchOf([at("claims.swept", "sweep", { released })]);
    expect(mayHaveChanged("cairn://task/T-30", whole)).toBe(true);
    expect(mayHaveChanged("cairn://task/T-31", whole)).toBe(false);
  });

  it("hears a task by any spelling of its id the resource reads: t-1, 1, percent-encoded", () => {
    const touch = touchOf([at("task.block", "T-1")]);
    for (const uri of ["cairn://task/t-1", "cairn://task/1", "cairn://task/1/brief", "cairn://task/%54-1"]) {
      expect(mayHaveChanged(uri, touch), uri).toBe(true);
    }
    expect(mayHaveChanged("cairn://task/10", touch)).toBe(false);
    expect(mayHaveChanged("cairn://task/%E0%A4%A", touch)).toBe(false);
  });

  it("treats knowledge as touching every brief but no task, and listing events as a list change", () => {
    const touch = touchOf([at("fact.remember", "F-3", { topics: ["ci"] }), at("task.add", "T-9")]);
    expect(mayHaveChanged("cairn://task/T-2/brief", touch)).toBe(true);
    expect(mayHaveChanged("cairn://task/T-2", touch)).toBe(false);
    expect(touch.listChanged).toBe(true);
    expect(mayHaveChanged("skill://demo/SKILL.md", touch)).toBe(false);
  });

  it("touches a task through the ids its last read showed: a dependency, a dependent, a child, a note", () => {
    const shown = idsShown(
      JSON.stringify({
        task: { id: "T-2" },
        depends_on: [{ id: "T-1" }],
        children: [{ id: "T-12" }],
        notes: [{ id: "N-4" }],
      }),
    );
    expect(mayHaveChanged("cairn://task/T-2", touchOf([at("task.claim", "T-1")]), shown)).toBe(true);
    expect(mayHaveChanged("cairn://task/T-2", touchOf([at("task.block", "T-12")]), shown)).toBe(true);
    expect(
      mayHaveChanged("cairn://task/T-2", touchOf([at("note.trust", "N-4", { trust: "confirmed" })]), shown),
    ).toBe(true);
    expect(mayHaveChanged("cairn://task/T-2", touchOf([at("task.claim", "T-3")]), shown)).toBe(false);
    expect(mayHaveChanged("cairn://task/T-2", touchOf([at("task.claim", "T-1")]))).toBe(false);
  });

  it("any event but a local agent's run-time bookkeeping touches briefs: shortcuts, goals, roles are quoted there", () => {
    for (const action of ["shortcut.add", "shortcut.run", "goal.update", "role.add", "task.claim"]) {
      const touch = touchOf([at(action, "x")]);
      expect(mayHaveChanged("cairn://task/T-2/brief", touch), action).toBe(true);
      expect(mayHaveChanged("cairn://task/T-2", touch), action).toBe(false);
    }
    expect(mayHaveChanged("cairn://board", touchOf([at("shortcut.add", "lint")]))).toBe(false);
    const renewed = touchOf([at("task.lease_renew", "A-2", { renewed: 3 })]);
    expect(mayHaveChanged("cairn://task/T-2/brief", renewed)).toBe(false);
    expect(mayHaveChanged("cairn://board", renewed)).toBe(true);
  });

  it("goal work touches goals; agent heartbeats touch nothing a client subscribes to", () => {
    expect(mayHaveChanged("cairn://goal/G-1", touchOf([at("attempt.open", "A-2")]))).toBe(true);
    const quiet = touchOf([at("agent.daemon.beat", "owner")]);
    for (const uri of ["cairn://board", "cairn://task/T-1", "cairn://task/T-1/brief", "cairn://goal/G-1"]) {
      expect(mayHaveChanged(uri, quiet), uri).toBe(false);
    }
    expect(mayHaveChanged("cairn://task/T-1", TOUCH_ALL)).toBe(true);
  });
});
