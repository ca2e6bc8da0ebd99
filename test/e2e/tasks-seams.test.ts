import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { gitWorkspace } from "../helpers/goals.js";
import { rawExec } from "../helpers/raw-store.js";
import { arrange, cairn, initWorkspace, runSync, scratchDir } from "../helpers/workspace.js";

let ws: { dir: string; cleanup: () => void };
beforeEach(() => {
  ws = initWorkspace();
});
afterEach(() => ws.cleanup());

describe("the board's seams", () => {
  it("enforces [done] note_kinds: finish is refused until the task carries a note of each kind", () => {
    writeFileSync(join(ws.dir, ".cairn", "cairn.toml"), '[done]\nnote_kinds = ["decision"]\n');
    arrange(ws.dir, ["task", "add", "b", "--criteria", "c"]);
    cairn(ws.dir, ["task", "claim", "T-1"]);
    cairn(ws.dir, ["task", "check", "T-1", "--all"]);
    const refused = cairn(ws.dir, ["task", "finish", "T-1", "--json"]);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain("no decision note on T-1");
    const note = cairn(ws.dir, [
      "note",
      "add",
      "decision",
      "--scope",
      "T-1",
      "--chose",
      "sqlite",
      "--rejected",
      "postgres",
      "--because",
      "local-first",
    ]);
    expect(note.code, note.stderr).toBe(0);
    expect(cairn(ws.dir, ["task", "finish", "T-1"]).code).toBe(0);
  });

  it("exits with an error, not a hang, when the definition of done cannot read the owner's setting", async () => {
    writeFileSync(
      join(ws.dir, ".cairn", "cairn.toml"),
      '[done]\nshortcuts = ["gate"]\n[shortcuts.gate]\nargv = ["true"]\neffect = "read"\n',
    );
    await rawExec(ws.dir, "UPDATE meta SET value = 'not json' WHERE key = 'owner_setting'");
    arrange(ws.dir, ["task", "add", "b"]);
    cairn(ws.dir, ["task", "claim", "T-1"]);
    // Killed at the timeout (code null) when something the call started kept the process alive.
    const finished = cairn(ws.dir, ["task", "finish", "T-1", "--unverified"], { timeoutMs: 15_000 });
    expect(finished.code, finished.stderr).toBe(1);
  });

  it("runs verify commands and shortcuts in the linked worktree the caller works in, not in the main checkout", () => {
    const repo = gitWorkspace();
    const tree = `${repo.dir}-wt`;
    try {
      runSync("git", ["worktree", "add", "-q", tree], repo.dir);
      const built = '{"text":"built","verify":["test","-f","built.txt"]}';
      arrange(repo.dir, ["task", "add", "t", "--criteria", built]);
      // The work is in the worktree; the main checkout has none of it.
      writeFileSync(join(tree, "built.txt"), "");
      expect(cairn(tree, ["task", "claim", "T-1"]).code).toBe(0);
      const checked = cairn(tree, ["task", "check", "T-1", "--all", "--json"]);
      expect(checked.code, checked.stdout).toBe(0);
      // A shortcut run from the worktree runs there too.
      writeFileSync(
        join(repo.dir, ".cairn", "cairn.toml"),
        '[shortcuts.built]\nargv = ["test", "-f", "built.txt"]\neffect = "read"\n',
      );
      const ran = cairn(tree, ["shortcut", "run", "built", "--json"]);
      expect((ran.json as { exit_code: number }).exit_code, ran.stdout).toBe(0);
    } finally {
      rmSync(tree, { recursive: true, force: true });
      repo.cleanup();
    }
  });

  it("exports and imports the whole board: tasks, criteria, dependencies, asks, queues, shortcuts", () => {
    arrange(ws.dir, ["task", "add", "a", "--criteria", "c"]);
    // The epic waits on its part (a part waiting on its epic would leave neither finishable).
    arrange(ws.dir, ["task", "add", "b", "--parent", "T-1"]);
    arrange(ws.dir, ["task", "depend", "T-1", "--on", "T-2"]);
    cairn(ws.dir, ["ask", "T-2", "why?"]);
    cairn(ws.dir, ["queue", "add", "q", "--step", "one"]);
    cairn(ws.dir, ["shortcut", "add", "s", "--argv", "true", "--effect", "read"]);
    const file = join(ws.dir, "backup.jsonl");
    expect(cairn(ws.dir, ["export", "--out", file]).code).toBe(0);
    const target = scratchDir();
    try {
      expect(cairn(target.dir, ["import", file]).code).toBe(0);
      const shown = cairn(target.dir, ["task", "show", "T-2", "--json"]).json as Record<string, unknown>;
      expect(shown).toMatchObject({ task: { parent: "T-1", status: "blocked" } });
      const epic = cairn(target.dir, ["task", "show", "T-1", "--json"]).json as Record<string, unknown>;
      expect(epic).toMatchObject({ depends_on: [{ id: "T-2" }] });
      expect(cairn(target.dir, ["task", "add", "c", "--json"]).json).toMatchObject({ task: { id: "T-3" } });
    } finally {
      target.cleanup();
    }
  });
});
