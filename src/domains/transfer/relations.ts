import { findCycle } from "../../kernel/graph.js";
import { usageError } from "../../kernel/outcome.js";
import { quoteValue } from "../../kernel/text.js";
import { sortPathUnder } from "../../store/sort-path.js";
import type { DumpRecord } from "../../store/store.js";
import { recordName } from "./limits.js";

/** A column holding the key of a row of another table (or its own). */
export interface Reference {
  table: string;
  column: string;
  to: string;
  key: string;
}

/**
 * The references between content tables, as SQLite's schema declares them (a unit test holds the
 * two together). PostgreSQL's schema declares none, and SQLite's are checked only when an import
 * commits (rows come in the order they were made, and a task moved under a later one names its
 * parent before the parent's line), so an import checks them itself, on either store, and names
 * the line at fault.
 */
export const REFERENCES: readonly Reference[] = [
  { table: "agents", column: "parent_id", to: "agents", key: "id" },
  { table: "tasks", column: "parent_id", to: "tasks", key: "id" },
  { table: "task_criteria", column: "task_id", to: "tasks", key: "id" },
  { table: "task_dependencies", column: "task_id", to: "tasks", key: "id" },
  { table: "task_dependencies", column: "depends_on", to: "tasks", key: "id" },
  { table: "task_notes", column: "task_id", to: "tasks", key: "id" },
  { table: "task_asks", column: "task_id", to: "tasks", key: "id" },
  { table: "queue_keys", column: "queue", to: "queues", key: "name" },
  { table: "goal_milestones", column: "goal_id", to: "goals", key: "id" },
  { table: "goal_evaluator_proposals", column: "goal_id", to: "goals", key: "id" },
  { table: "goal_runs", column: "goal_id", to: "goals", key: "id" },
  { table: "goal_attempts", column: "run_id", to: "goal_runs", key: "id" },
  { table: "goal_attempts", column: "milestone_id", to: "goal_milestones", key: "id" },
  { table: "goal_baselines", column: "run_id", to: "goal_runs", key: "id" },
  { table: "goal_baselines", column: "attempt_id", to: "goal_attempts", key: "id" },
  { table: "goal_samples", column: "attempt_id", to: "goal_attempts", key: "id" },
  { table: "goal_score_reports", column: "attempt_id", to: "goal_attempts", key: "id" },
  { table: "goal_contract_changes", column: "goal_id", to: "goals", key: "id" },
];

const NEXT = "nothing was imported: import the file as `cairn export` wrote it";

/** A record and the line of the file it came from. */
interface Placed {
  record: DumpRecord;
  line: number;
}

/** The id of the row's parent (agents and tasks), or undefined at the root. */
function parentOf(record: DumpRecord): string | undefined {
  const parent = record.row.parent_id;
  return parent === null || parent === undefined ? undefined : String(parent);
}

const refusal = ({ record, line }: Placed, problem: string) =>
  usageError(`import: line ${line} (${recordName(record)}): ${problem}`, NEXT);

/**
 * Refuse a file whose rows refer to rows it does not hold, or that no sequence of commands could
 * have made: parents or dependencies in a cycle (`task move` and `task depend` refuse one, and
 * an imported one left its tasks never ready, or a tree without a root), a milestone plan in a
 * cycle or waiting on a milestone its goal lacks, a task's place in the tree (`sort_path`, which
 * orders the board and finds a subtree) that is not its parents'. Records are numbered from the
 * file's second line, the header being the first.
 */
export function checkRelations(records: readonly DumpRecord[]): void {
  const placed = records.map((record, index) => ({ record, line: index + 2 }));
  const byTable = new Map<string, Placed[]>();
  for (const entry of placed) {
    const table = byTable.get(entry.record.table);
    if (table) table.push(entry);
    else byTable.set(entry.record.table, [entry]);
  }
  const rows = (table: string) => byTable.get(table) ?? [];
  checkReferences(rows);
  checkParents(rows("agents"), "agents");
  const tasks = checkParents(rows("tasks"), "tasks");
  checkSortPaths(tasks);
  checkDependencies(rows("task_dependencies"), tasks);
  checkMilestonePlans(rows("goal_milestones"));
}

function checkReferences(rows: (table: string) => Placed[]): void {
  const keys = new Map<string, Set<unknown>>();
  const keysOf = (table: string, key: string) => {
    const name = `${table}.${key}`;
    let found = keys.get(name);
    if (!found) {
      found = new Set(rows(table).map(({ record }) => record.row[key]));
      keys.set(name, found);
    }
    return found;
  };
  for (const { table, column, to, key } of REFERENCES)
    for (const entry of rows(table)) {
      const value = entry.record.row[column];
      if (value === null || value === undefined) continue;
      if (!keysOf(to, key).has(value))
        throw refusal(
          entry,
          `its ${column} ${quoteValue(String(value))} names no row of ${to} the file holds`,
        );
    }
}

/** Refuse parents in a cycle; the rows by id, for the checks that follow. */
function checkParents(rows: readonly Placed[], table: string): Map<string, Placed> {
  const byId = new Map(rows.map((entry) => [String(entry.record.row.id), entry]));
  const edges = new Map<string, string[]>();
  for (const [id, { record }] of byId) {
    const parent = parentOf(record);
    edges.set(id, parent === undefined ? [] : [parent]);
  }
  const cycle = findCycle(edges);
  if (cycle)
    throw refusal(
      byId.get(cycle[0] as string) as Placed,
      `its parents form a cycle (${cycle.map((id) => quoteValue(id)).join(" → ")}): ${table} make a tree`,
    );
  return byId;
}

function checkSortPaths(tasks: ReadonlyMap<string, Placed>): void {
  const expected = new Map<string, string>();
  const pathOf = (id: string): string => {
    const known = expected.get(id);
    if (known !== undefined) return known;
    // Ancestors first, without recursion: a tree may be a thousand levels deep.
    const chain: Placed[] = [];
    for (let at: string | undefined = id; at !== undefined && !expected.has(at); ) {
      const entry = tasks.get(at) as Placed;
      chain.push(entry);
      at = parentOf(entry.record);
    }
    for (const { record } of chain.reverse()) {
      const parent = parentOf(record);
      const above = parent === undefined ? "" : (expected.get(parent) as string);
      expected.set(String(record.row.id), sortPathUnder(above, Number(record.row.seq)));
    }
    return expected.get(id) as string;
  };
  for (const [id, entry] of tasks) {
    const { sort_path: path, seq } = entry.record.row;
    // A row without them is the store's to refuse, naming the column.
    if (path === undefined || typeof seq !== "number") continue;
    if (path !== pathOf(id))
      throw refusal(entry, `its sort_path ${quoteValue(String(path))} is not its place under its parents`);
  }
}

/**
 * Dependencies never in a cycle, and never waiting on an epic above the task (or above a task
 * waiting on it): an epic finishes only after its parts, so that wait is a cycle too, through the
 * tree (`task depend` refuses both, see tasks/epic-waits.ts).
 */
function checkDependencies(rows: readonly Placed[], tasks: ReadonlyMap<string, Placed>): void {
  const waits = new Map<string, string[]>();
  const first = new Map<string, Placed>();
  for (const entry of rows) {
    const task = String(entry.record.row.task_id);
    const on = String(entry.record.row.depends_on);
    const found = waits.get(task);
    if (found) found.push(on);
    else {
      waits.set(task, [on]);
      first.set(task, entry);
    }
  }
  const cycle = findCycle(waits);
  if (cycle)
    throw refusal(
      first.get(cycle[0] as string) as Placed,
      `its tasks wait on each other in a cycle (${cycle.map((id) => quoteValue(id)).join(" → ")}), so none would ever be ready`,
    );
  // Each epic waits on its parts, besides what each task waits on.
  const finishAfter = new Map([...waits].map(([task, on]) => [task, [...on]]));
  for (const [id, { record }] of tasks) {
    const parent = parentOf(record);
    if (parent === undefined) continue;
    const parts = finishAfter.get(parent);
    if (parts) parts.push(id);
    else finishAfter.set(parent, [id]);
  }
  const through = findCycle(finishAfter);
  if (!through) return;
  // Named from a task that waits (a dependency line), as `task depend` names the one it refuses.
  const start = through.findIndex((id, index) => index < through.length - 1 && first.has(id));
  const path = [...through.slice(start, -1), ...through.slice(0, start), through[start] as string];
  throw refusal(
    first.get(path[0] as string) as Placed,
    `its task waits, through ${path.map((id) => quoteValue(id)).join(" → ")}, on an epic that finishes only after its parts: none of them could ever finish`,
  );
}

/** Each goal's milestones wait only on milestones of that goal, and never in a cycle. */
function checkMilestonePlans(rows: readonly Placed[]): void {
  const plans = new Map<string, Map<string, { entry: Placed; dependsOn: string[] }>>();
  for (const entry of rows) {
    const goal = String(entry.record.row.goal_id);
    const plan = plans.get(goal) ?? new Map();
    plans.set(goal, plan);
    let dependsOn: unknown;
    try {
      dependsOn = JSON.parse(String(entry.record.row.depends_on ?? "[]"));
    } catch {
      dependsOn = [];
    }
    plan.set(String(entry.record.row.key), {
      entry,
      dependsOn: Array.isArray(dependsOn) ? dependsOn.map(String) : [],
    });
  }
  for (const plan of plans.values()) {
    for (const { entry, dependsOn } of plan.values()) {
      const missing = dependsOn.find((key) => !plan.has(key));
      if (missing !== undefined)
        throw refusal(entry, `it waits on milestone ${quoteValue(missing)}, which its goal does not have`);
    }
    const cycle = findCycle(new Map([...plan].map(([key, { dependsOn }]) => [key, dependsOn])));
    if (cycle)
      throw refusal(
        plan.get(cycle[0] as string)?.entry as Placed,
        `its goal's milestones wait on each other in a cycle (${cycle.map((key) => quoteValue(key)).join(" → ")})`,
      );
  }
}
