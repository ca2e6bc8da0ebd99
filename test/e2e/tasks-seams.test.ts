import { writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cairn, initWorkspace, scratchDir } from "../helpers/workspace.js";

let ws: { dir: string; cleanup: () => void };
beforeEach(() => {
  ws = initWorkspace();
});
afterEach(() => ws.cleanup());

describe("the board's seams", () => {
  it("accepts [done] note_kinds before a notes table exists, and enforces them once one does", () => {
    writeFileSync(join(ws.dir, ".cairn", "cairn.toml"), '[done]\nnote_kinds = ["decision"]\n');
    cairn(ws.dir, ["task", "add", "a", "--criteria", "c"]);
    cairn(ws.dir, ["task", "add", "b", "--criteria", "c"]);
    for (const id of ["T-1", "T-2"]) {
      cairn(ws.dir, ["task", "claim", id]);
      cairn(ws.dir, ["task", "check", id, "--all"]);
    }
    expect(cairn(ws.dir, ["task", "finish", "T-1"]).code).toBe(0);
    // The knowledge domain's notes table, as it will arrive: notes scoped to a task id, with a kind.
    const db = new Database(join(ws.dir, ".cairn", "cairn.db"));
    db.exec("CREATE TABLE notes (scope TEXT NOT NULL, kind TEXT NOT NULL)");
    db.close();
    const refused = cairn(ws.dir, ["task", "finish", "T-2", "--json"]);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain("no decision note on T-2");
    const again = new Database(join(ws.dir, ".cairn", "cairn.db"));
    again.prepare("INSERT INTO notes (scope, kind) VALUES ('T-2', 'decision')").run();
    again.close();
    expect(cairn(ws.dir, ["task", "finish", "T-2"]).code).toBe(0);
  });

  it("exports and imports the whole board: tasks, criteria, dependencies, asks, queues, shortcuts", () => {
    cairn(ws.dir, ["task", "add", "a", "--criteria", "c"]);
    cairn(ws.dir, ["task", "add", "b", "--depends-on", "T-1", "--parent", "T-1"]);
    cairn(ws.dir, ["ask", "T-2", "why?"]);
    cairn(ws.dir, ["queue", "add", "q", "--step", "one"]);
    cairn(ws.dir, ["shortcut", "add", "s", "--argv", "true", "--effect", "read"]);
    const file = join(ws.dir, "backup.jsonl");
    expect(cairn(ws.dir, ["export", "--out", file]).code).toBe(0);
    const target = scratchDir();
    try {
      expect(cairn(target.dir, ["import", file]).code).toBe(0);
      const shown = cairn(target.dir, ["task", "show", "T-2", "--json"]).json as Record<string, unknown>;
      expect(shown).toMatchObject({
        task: { parent: "T-1", status: "blocked" },
        depends_on: [{ id: "T-1" }],
      });
      expect(cairn(target.dir, ["task", "add", "c", "--json"]).json).toMatchObject({ task: { id: "T-3" } });
    } finally {
      target.cleanup();
    }
  });
});
