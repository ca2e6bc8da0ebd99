import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { callTool, connectMcp } from "../helpers/mcp.js";
import { cairn, initWorkspace } from "../helpers/workspace.js";

/**
 * Text written by agents and people is shown on a terminal among cairn's own lines. Whatever it
 * holds, it must not pass for one of them: a line break in a title must not start a fake board
 * row, a task's context must not add a ticked criterion, and bidi controls must not reorder what
 * a reader sees. JSON output carries the text exactly as written.
 */
let ws: { dir: string; cleanup: () => void };
beforeEach(() => {
  ws = initWorkspace();
});
afterEach(() => ws.cleanup());

const idOf = (run: { json: unknown }) => (run.json as { task: { id: string } }).task.id;

describe("human output cannot be forged by the text it shows", () => {
  it("a line break in a title is shown escaped, so it cannot add a row to the task list", () => {
    const title = "Fix bug\nT-99    done     must  Everything shipped";
    const added = cairn(ws.dir, ["task", "add", title]);
    expect(added.code).toBe(0);
    expect(added.stdout).toBe("Added T-1 (open): Fix bug\\nT-99    done     must  Everything shipped\n");

    const listed = cairn(ws.dir, ["task", "list"]);
    expect(listed.code).toBe(0);
    expect(listed.stdout.split("\n").filter((line) => line.startsWith("T-99"))).toEqual([]);
    expect(listed.stdout).toContain("Fix bug\\nT-99    done");
    expect(listed.stdout).toContain("(1 of 1)");

    const json = cairn(ws.dir, ["task", "list", "--json"]);
    expect((json.json as { tasks: { title: string }[] }).tasks[0]?.title).toBe(title);
  });

  it("a task's context spans lines behind a gutter, so it cannot add a ticked criterion", () => {
    const context = "nothing\n  [x] 1. all tests pass (verify: npm test)";
    const id = idOf(cairn(ws.dir, ["task", "add", "spoof", "--context", context, "--json"]));

    const shown = cairn(ws.dir, ["task", "show", id]);
    expect(shown.code).toBe(0);
    const lines = shown.stdout.trimEnd().split("\n");
    expect(lines.filter((line) => /^\s*\[[x ]\]/.test(line))).toEqual([]);
    expect(lines).toContain("  context: nothing");
    expect(lines).toContain("    |   [x] 1. all tests pass (verify: npm test)");

    const claimed = cairn(ws.dir, ["task", "claim", id]);
    expect(claimed.code).toBe(0);
    expect(claimed.stdout).toContain("  context: nothing\n    |   [x] 1. all tests pass");

    const json = cairn(ws.dir, ["task", "show", id, "--json"]);
    expect((json.json as { task: { context: string } }).task.context).toBe(context);
  });

  it("a note's body spans lines behind a gutter, in the note and on its task", () => {
    const id = idOf(cairn(ws.dir, ["task", "add", "noted", "--json"]));
    const body = "looks fine\nN-99 finding workspace by owner [minor, unverified]";
    const note = cairn(ws.dir, [
      "note",
      "add",
      "finding",
      "--scope",
      id,
      "--severity",
      "minor",
      "--text",
      body,
      "--json",
    ]);
    expect(note.code).toBe(0);
    const noteId = (note.json as { id: string }).id;

    const shown = cairn(ws.dir, ["note", "show", noteId]);
    expect(shown.stdout.split("\n").filter((line) => line.startsWith("N-99"))).toEqual([]);
    expect(shown.stdout).toContain("  looks fine\n  | N-99 finding workspace by owner");

    const task = cairn(ws.dir, ["task", "show", id]);
    expect(task.stdout.split("\n").filter((line) => line.startsWith("N-99"))).toEqual([]);
    expect(task.stdout).toContain("looks fine\n    | N-99 finding");
  });

  it("bidi and other invisible format controls are shown escaped, on stdout and stderr", () => {
    const title = "pay \u202eevil\u202c \u2066x\u2069 zero\u200bwidth \ufeffend";
    const id = idOf(cairn(ws.dir, ["task", "add", title, "--json"]));
    const shown = cairn(ws.dir, ["task", "show", id]);
    expect(shown.stdout).toContain("pay \\u202eevil\\u202c \\u2066x\\u2069 zero\\u200bwidth \\ufeffend");
    expect(shown.stdout).not.toMatch(/[\u200b\u202a-\u202e\u2066-\u2069\ufeff]/);

    // A value quoted in cairn's own error, and one in the parser's.
    const notAnId = cairn(ws.dir, ["task", "show", "T-\u202e9"]);
    expect(notAnId.code).toBe(2);
    expect(notAnId.stderr).toContain('"T-\\u202e9" is not a task id');
    const badChoice = cairn(ws.dir, ["task", "add", "x", "--priority", "must\u202e"]);
    expect(badChoice.code).toBe(2);
    expect(badChoice.stderr).toContain("argument 'must\\u202e' is invalid");
    expect(notAnId.stderr + badChoice.stderr).not.toMatch(/[\u202a-\u202e]/);

    const json = cairn(ws.dir, ["task", "show", id, "--json"]);
    expect((json.json as { task: { title: string } }).task.title).toBe(title);
  });
});

describe("the parser's complaints quote a hostile word cut, as every error does", () => {
  const big = "B".repeat(100_000);
  it.each([
    ["an unknown option", ["task", "list", `--${big}`, "--json"]],
    ["an unknown command", ["task", big, "--json"]],
    ["a value outside the choices", ["task", "add", "x", "--priority", big, "--json"]],
  ])("%s of 100 000 characters is named in a few hundred bytes (exit 2)", (_what, argv) => {
    const run = cairn(ws.dir, argv);
    expect(run.code).toBe(2);
    expect(run.stdout.length).toBeLessThan(1_000);
    expect(run.stderr.length).toBeLessThan(5_000);
    expect((run.json as { error: { message: string } }).error.message).toMatch(/… \(10000[02] characters\)/);
  });

  it("a 5 MB word through the `cli` tool is a usage error naming it, not an answer too large to send", async () => {
    const mcp = await connectMcp(ws.dir);
    try {
      const result = await callTool(mcp, "cli", {
        argv: ["task", "add", "x", "--priority", "A".repeat(5_000_000)],
      });
      expect(result.structuredContent).toMatchObject({
        exit_code: 2,
        output: { error: { kind: "usage", message: expect.stringContaining("(5000000 characters)") } },
      });
    } finally {
      await mcp.close();
    }
  });
});
