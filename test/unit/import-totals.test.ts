import { describe, expect, it } from "vitest";
import { ARGV_TOTAL_CHARS } from "../../src/domains/limits/limits.js";
import { MAX_QUEUE_CHARS } from "../../src/domains/tasks/queues.js";
import { checkRecordLimits, recordCounts } from "../../src/domains/transfer/limits.js";

/** Words each within their own limit (4 KiB), `count` of them. */
const words = (count: number, size = 4_000) =>
  Array.from({ length: count }, (_, i) => `${i}`.padEnd(size, "w"));

/**
 * An import holds a list to the total the commands hold it to, not only each item to its own: a
 * hand-edited export could otherwise store the 1 MiB shortcut `shortcut add` refuses, which every
 * `shortcut list` and brief then read whole.
 */
describe("an import holds lists to the commands' totals", () => {
  const cases = [
    {
      table: "shortcuts",
      row: (argv: string[]) => ({ name: "huge", argv: JSON.stringify(argv) }),
      over: words(5),
      within: words(4),
      message: `shortcuts "huge"): argv: a shortcut's command holds at most ${ARGV_TOTAL_CHARS} characters in all (this one has 20000)`,
    },
    {
      table: "task_criteria",
      row: (argv: string[]) => ({ task_id: "T-1", n: 1, text: "runs", verify: JSON.stringify(argv) }),
      over: words(5),
      within: words(4),
      message: `task_criteria "T-1"): verify: a verify command holds at most ${ARGV_TOTAL_CHARS} characters in all (this one has 20000)`,
    },
    {
      table: "task_criteria",
      // Counted as the NAME=VALUE words `task criterion --params` took: `k0=` and 3,997 more each.
      row: (values: string[]) => ({
        task_id: "T-1",
        n: 1,
        text: "greets",
        params: JSON.stringify(Object.fromEntries(values.map((value, i) => [`k${i}`, value.slice(3)]))),
      }),
      over: words(5),
      within: words(4),
      message: `task_criteria "T-1"): params: a criterion's params hold at most ${ARGV_TOTAL_CHARS} characters in all (this one has 20000)`,
    },
    {
      table: "queues",
      row: (steps: string[]) => ({ name: "long", steps: JSON.stringify(steps), cursor: 0 }),
      over: words(66),
      within: words(65),
      message: `queues "long"): steps: a queue's steps hold at most ${MAX_QUEUE_CHARS} characters in all (this one has 264000)`,
    },
  ];
  it.each(cases)("$table: refused past the total, naming line, record and total; taken within it", (c) => {
    expect(() => checkRecordLimits({ table: c.table, row: c.row(c.over) }, 7)).toThrow(
      expect.objectContaining({ errorKind: "usage", message: `import: line 7 (${c.message}` }),
    );
    expect(() => checkRecordLimits({ table: c.table, row: c.row(c.within) }, 7)).not.toThrow();
  });
});

describe("an import holds a task to the criteria the commands let it hold", () => {
  it("refuses a task's 1,001st criterion row, naming the line and the task; others count apart", () => {
    const count = recordCounts();
    const criterion = (task: string, n: number) => ({
      table: "task_criteria",
      row: { task_id: task, n, text: "t" },
    });
    for (let n = 1; n <= 1_000; n++) count(criterion("T-1", n), n + 1);
    // Another task's criteria, and other tables, are counted apart.
    count(criterion("T-2", 1), 1_002);
    count({ table: "tasks", row: { id: "T-1" } }, 1_003);
    expect(() => count(criterion("T-1", 1_001), 1_004)).toThrow(
      expect.objectContaining({
        errorKind: "usage",
        message:
          'import: line 1004 (task_criteria "T-1"): a task holds at most 1000 criteria (this file gives it 1001 so far)',
      }),
    );
  });
});

describe("an import holds a column to the field the command took it as", () => {
  it("takes a closed risk's reason as long as `risk close --because` took it, and no longer", () => {
    const row = (because: string) => ({ id: "RK-1", closed_because: because });
    // Past a column's default (64 KiB), within the 256 KiB a reason may hold.
    expect(() => checkRecordLimits({ table: "risks", row: row("r".repeat(100_000)) }, 2)).not.toThrow();
    expect(() => checkRecordLimits({ table: "risks", row: row("r".repeat(300_000)) }, 2)).toThrow(
      /closed_because/,
    );
  });
});
