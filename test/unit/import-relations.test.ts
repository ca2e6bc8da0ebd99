import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { checkRelations, REFERENCES } from "../../src/domains/transfer/relations.js";
import { findCycle } from "../../src/kernel/graph.js";
import { openStore } from "../../src/store/open.js";
import { CONTENT_TABLES } from "../../src/store/sqlite/migrations/index.js";
import type { DumpRecord } from "../../src/store/store.js";
import { scratchDir } from "../helpers/workspace.js";

const task = (seq: number, parent: string | null, path?: string): DumpRecord => ({
  table: "tasks",
  row: { seq, id: `T-${seq}`, parent_id: parent, sort_path: path ?? String(seq).padStart(9, "0") },
});
const depends = (from: string, on: string): DumpRecord => ({
  table: "task_dependencies",
  row: { task_id: from, depends_on: on },
});
const milestone = (goal: string, key: string, dependsOn: string[]): DumpRecord => ({
  table: "goal_milestones",
  row: { seq: 1, id: `${goal}-${key}`, goal_id: goal, key, depends_on: JSON.stringify(dependsOn) },
});
const goal = (id: string): DumpRecord => ({ table: "goals", row: { seq: 1, id } });

/** The message an import refuses these records with (the header is line 1). */
function refusal(records: DumpRecord[]): string {
  try {
    checkRelations(records);
  } catch (error) {
    return (error as Error).message;
  }
  return "accepted";
}

describe("an import checks the rows' references and shapes across the whole file", () => {
  it("lists the references SQLite's schema declares, each of them", async () => {
    const scratch = scratchDir();
    try {
      const path = join(scratch.dir, "cairn.db");
      await openStore(path, { create: true }).close();
      const db = new Database(path, { readonly: true });
      const declared = CONTENT_TABLES.flatMap((table) =>
        (
          db.prepare(`PRAGMA foreign_key_list("${table}")`).all() as {
            from: string;
            table: string;
            to: string;
          }[]
        ).map((fk) => `${table}.${fk.from} → ${fk.table}.${fk.to}`),
      );
      db.close();
      const listed = REFERENCES.map(({ table, column, to, key }) => `${table}.${column} → ${to}.${key}`);
      expect(listed.sort()).toEqual(declared.sort());
    } finally {
      scratch.cleanup();
    }
  });

  it("takes a task whose parent comes on a later line, and a tree and a plan as commands make them", () => {
    expect(
      refusal([
        task(1, "T-2", "000000002/000000001"),
        task(2, null),
        task(3, "T-1", "000000002/000000001/000000003"),
        depends("T-1", "T-3"),
        depends("T-2", "T-1"),
        goal("G-1"),
        milestone("G-1", "build", []),
        milestone("G-1", "review", ["build"]),
      ]),
    ).toBe("accepted");
  });

  it("refuses a row naming one the file does not hold, naming its line", () => {
    expect(refusal([task(1, null), depends("T-1", "T-9")])).toBe(
      'import: line 3 (task_dependencies "T-1"): its depends_on "T-9" names no row of tasks the file holds',
    );
    expect(refusal([task(1, "T-7", "000000007/000000001")])).toMatch(
      /^import: line 2 \(tasks "T-1"\): its parent_id "T-7" names no row of tasks/,
    );
  });

  it("refuses parents in a cycle, dependencies in a cycle and a plan in a cycle", () => {
    expect(refusal([task(1, "T-2", "x"), task(2, "T-1", "y")])).toBe(
      'import: line 2 (tasks "T-1"): its parents form a cycle ("T-1" → "T-2" → "T-1"): tasks make a tree',
    );
    expect(refusal([task(1, null), task(2, null), depends("T-1", "T-2"), depends("T-2", "T-1")])).toMatch(
      /^import: line 4 \(task_dependencies "T-1"\): its tasks wait on each other in a cycle \("T-1" → "T-2" → "T-1"\)/,
    );
    expect(refusal([goal("G-1"), milestone("G-1", "a", ["b"]), milestone("G-1", "b", ["a"])])).toMatch(
      /^import: line 3 .*: its goal's milestones wait on each other in a cycle \("a" → "b" → "a"\)$/,
    );
    expect(
      refusal([goal("G-1"), goal("G-2"), milestone("G-1", "a", []), milestone("G-2", "b", ["a"])]),
    ).toMatch(/^import: line 5 .*: it waits on milestone "a", which its goal does not have$/);
  });

  it("refuses a task waiting on an epic above it, or above a task that waits on it", () => {
    const tree = [task(1, null), task(2, "T-1", "000000001/000000002"), task(3, null)];
    expect(refusal([...tree, depends("T-2", "T-1")])).toBe(
      'import: line 5 (task_dependencies "T-2"): its task waits, through "T-2" → "T-1" → "T-2", on an epic that finishes only after its parts: none of them could ever finish',
    );
    expect(refusal([...tree, depends("T-2", "T-3"), depends("T-3", "T-1")])).toMatch(
      /^import: line 5 \(task_dependencies "T-2"\): its task waits, through "T-2" → "T-3" → "T-1" → "T-2", on an epic/,
    );
    // Waiting on a part of another epic, or the epic on its own part, is a plan like any other.
    expect(refusal([...tree, depends("T-3", "T-2"), depends("T-1", "T-2")])).toBe("accepted");
  });

  it("refuses a task whose place in the tree is not its parents'", () => {
    // Filed under T-2's path while its parent is T-1: the board's order and subtree reads follow
    // the path, so the task would show under an epic that is not its parent.
    expect(refusal([task(1, null), task(2, null), task(3, "T-1", "000000002/000000003")])).toMatch(
      /^import: line 4 \(tasks "T-3"\): its sort_path "000000002\/000000003" is not its place under its parents$/,
    );
  });

  it("finds a cycle down a chain deeper than recursion goes", () => {
    const edges = new Map(Array.from({ length: 50_000 }, (_, i) => [`n${i}`, [`n${i + 1}`]]));
    expect(findCycle(edges)).toBeUndefined();
    edges.set("n50000", ["n0"]);
    expect(findCycle(edges)?.length).toBe(50_002);
  });
});
