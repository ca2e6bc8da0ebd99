import { mkdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { gitWorkspace } from "../helpers/goals.js";
import { callTool, connectMcp } from "../helpers/mcp.js";
import { addAgent, cairn, scratchDir, uniqueName } from "../helpers/workspace.js";

/**
 * An export is a backup only if it imports: an agent with an ordinary write grant must not be able
 * to store, through commands, a value the import holds past its limits, or the owner learns that
 * every backup since is unrestorable on the day it is needed.
 */

let ws: { dir: string; cleanup: () => void };
let scratch: { dir: string; cleanup: () => void };
let asAgent: { env: Record<string, string> };
beforeEach(() => {
  // A git checkout: a goal is planned only where it can be measured and reverted.
  ws = gitWorkspace();
  scratch = scratchDir();
  asAgent = { env: { CAIRN_AGENT: addAgent(ws.dir, "bob", "dev").token } };
});
afterEach(() => {
  ws.cleanup();
  scratch.cleanup();
});

/** Export as the owner and import into a new directory; the import's result. */
function exportAndImport() {
  const file = join(scratch.dir, "backup.jsonl");
  expect(cairn(ws.dir, ["export", "--out", file]).code).toBe(0);
  // A new export is its owner's alone: every note, the journal and agents' token hashes are in it.
  expect(statSync(file).mode & 0o777).toBe(0o600);
  const target = join(scratch.dir, uniqueName("restored"));
  mkdirSync(target);
  return cairn(target, ["import", file, "--json"]);
}

const ok = (args: string[]) => {
  const run = cairn(ws.dir, args, asAgent);
  expect(run.code, run.stderr).toBe(0);
  return run;
};

describe("an export of what agents wrote through commands imports", () => {
  it("a milestone titled to its limit: its task's title is cut to a task title's", () => {
    ok(["goal", "create", "make search fast"]);
    const milestone = { key: "k".repeat(32), title: "t".repeat(500), proofs: ["tests"] };
    ok(["goal", "plan", "G-1", "--milestones", JSON.stringify(milestone)]);
    const task = cairn(ws.dir, ["task", "show", "T-1", "--json"]).json as { task: { title: string } };
    expect(task.task.title.length).toBe(500);
    expect(task.task.title.endsWith("…")).toBe(true);
    const imported = exportAndImport();
    expect(imported.code, imported.stderr).toBe(0);
  });

  it("a shortcut param named like a short field (id) holding a long value", () => {
    ok(["shortcut", "add", "echoid", "--argv", "echo", "--argv", "{{id}}", "--effect", "read"]);
    ok(["task", "add", "mine"]);
    ok([
      "task",
      "criterion",
      "T-1",
      "--text",
      "echoes",
      "--shortcut",
      "echoid",
      "--params",
      `id=${"v".repeat(4_000)}`,
    ]);
    const imported = exportAndImport();
    expect(imported.code, imported.stderr).toBe(0);
  });

  it("placeholders side by side that would fill a word past an argv word's limit: refused when the criterion is set", () => {
    expect(
      cairn(ws.dir, [
        "shortcut",
        "add",
        "echo2",
        "--argv",
        "echo",
        "--argv",
        "{{a}}{{b}}",
        "--effect",
        "read",
      ]).code,
    ).toBe(0);
    ok(["task", "add", "mine"]);
    const long = "v".repeat(4_000);
    // Once taken and refused only at its check, where its evidence kept the 8,000 characters.
    const set = cairn(
      ws.dir,
      [
        "task",
        "criterion",
        "T-1",
        "--text",
        "echoes",
        "--shortcut",
        "echo2",
        "--params",
        `a=${long}`,
        "--params",
        `b=${long}`,
      ],
      asAgent,
    );
    expect(set.code).toBe(2);
    expect(set.stderr).toContain("word 2 filled holds 8000 characters; an argv word holds at most 4096");
    const imported = exportAndImport();
    expect(imported.code, imported.stderr).toBe(0);
  });

  it("a metric note whose goal runs past 200 characters (the note took it as one text)", () => {
    ok(["note", "add", "metric", "--text", `goal: ${"g".repeat(300)} question: is it fast metric: p95 ms`]);
    const imported = exportAndImport();
    expect(imported.code, imported.stderr).toBe(0);
  });

  it("roles whose instructions, each within its limit, add up past 64 KiB: cairn's record of the rules holds them all", () => {
    for (const name of ["alpha", "beta"]) {
      const added = cairn(ws.dir, ["role", "add", name, "--instructions", name.repeat(10_000)]);
      expect(added.code, added.stderr).toBe(0);
    }
    const imported = exportAndImport();
    expect(imported.code, imported.stderr).toBe(0);
  });

  it("a fact at its limit whose folded form is 18 times as long (U+FDFA)", () => {
    ok(["remember", "\uFDFA".repeat(4_000)]);
    const imported = exportAndImport();
    expect(imported.code, imported.stderr).toBe(0);
  });

  it("a chain of nested tasks stops at 1000 levels, on add and on move (each level lengthens every path below it)", async () => {
    const mcp = await connectMcp(ws.dir, asAgent);
    try {
      const cli = async (argv: string[]) =>
        (await callTool(mcp, "cli", { argv })).structuredContent as {
          exit_code: number;
          output: { refused?: { policy: string; reason: string } };
        };
      expect((await cli(["task", "add", "level 1"])).exit_code).toBe(0);
      for (let level = 2; level <= 1_000; level++) {
        const added = await cli(["task", "add", `level ${level}`, "--parent", `T-${level - 1}`]);
        expect(added.exit_code).toBe(0);
      }
      const deeper = await cli(["task", "add", "level 1001", "--parent", "T-1000"]);
      expect(deeper.exit_code).toBe(3);
      expect(deeper.output.refused).toMatchObject({ policy: "tree" });
      expect(deeper.output.refused?.reason).toContain("T-1000 is 1000 levels deep");
      // Two levels of their own: under level 998 they end at 1000, under 999 one past it.
      expect((await cli(["task", "add", "top"])).exit_code).toBe(0);
      expect((await cli(["task", "add", "below", "--parent", "T-1001"])).exit_code).toBe(0);
      expect((await cli(["task", "claim", "T-1001"])).exit_code).toBe(0);
      expect((await cli(["task", "move", "T-1001", "--parent", "T-999"])).exit_code).toBe(3);
      expect((await cli(["task", "move", "T-1001", "--parent", "T-998"])).exit_code).toBe(0);
    } finally {
      await mcp.close();
    }
    const imported = exportAndImport();
    expect(imported.code, imported.stderr).toBe(0);
  });
  it("a question at its limit answered in a word: the answer's note on the task holds both", async () => {
    ok(["task", "add", "mine"]);
    // An argv word holds 128 KiB at most, so the question goes over MCP, as an agent sends it.
    const mcp = await connectMcp(ws.dir, asAgent);
    try {
      const asked = await callTool(mcp, "cli", { argv: ["ask", "T-1", "q".repeat(256 * 1024)] });
      expect((asked.structuredContent as { exit_code: number }).exit_code).toBe(0);
    } finally {
      await mcp.close();
    }
    expect(cairn(ws.dir, ["answer", "Q-1", "yes"]).code).toBe(0);
    const imported = exportAndImport();
    expect(imported.code, imported.stderr).toBe(0);
  });
  it("a goal's proofs stop at 1000 over many updates (a milestone's task names every proof it gates)", async () => {
    ok(["goal", "create", "make search fast"]);
    const mcp = await connectMcp(ws.dir, asAgent);
    try {
      const cli = async (argv: string[]) =>
        (await callTool(mcp, "cli", { argv })).structuredContent as {
          exit_code: number;
          output: { refused?: { policy: string; reason: string }; goal?: { proofs: unknown[] } };
        };
      const codes: number[] = [];
      for (let batch = 0; batch < 12; batch++) {
        const argv = ["goal", "update", "G-1"];
        for (let i = 0; i < 500; i++) {
          argv.push("--proofs", JSON.stringify({ name: `p${batch}x${i}`.padEnd(48, "z"), manual: true }));
        }
        const updated = await cli(argv);
        codes.push(updated.exit_code);
        if (updated.exit_code === 3) {
          expect(updated.output.refused).toMatchObject({ policy: "proofs" });
          expect(updated.output.refused?.reason).toContain("at most 1000 proofs");
        }
      }
      expect(codes.slice(0, 1)).toEqual([0]);
      expect(codes.slice(2)).toEqual(Array(10).fill(3));
      const goal = await cli(["goal", "show", "G-1"]);
      expect(goal.output.goal?.proofs.length).toBeLessThanOrEqual(1000);
      const milestone = { key: "k", title: "t", description: "d".repeat(64 * 1024), proofs: [] };
      expect((await cli(["goal", "plan", "G-1", "--milestones", JSON.stringify(milestone)])).exit_code).toBe(
        0,
      );
    } finally {
      await mcp.close();
    }
    const imported = exportAndImport();
    expect(imported.code, imported.stderr).toBe(0);
  });
});
