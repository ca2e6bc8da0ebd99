import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { callTool, connectMcp } from "../helpers/mcp.js";
import { cairn, initWorkspace } from "../helpers/workspace.js";

let ws: { dir: string; cleanup: () => void };
beforeEach(() => {
  ws = initWorkspace();
});
afterEach(() => ws.cleanup());

const ok = (args: string[]) => {
  const run = cairn(ws.dir, [...args, "--json"]);
  expect(run.code, `${args.join(" ")}: ${run.stderr}`).toBe(0);
  return run.json as Record<string, unknown>;
};

describe("short ids are read in any case, or as a bare number, like task ids", () => {
  it("names goals, facts and notes as g-1, 1 or G-1 from the CLI", () => {
    expect(ok(["goal", "create", "make search fast"])).toMatchObject({ goal: { id: "G-1" } });
    for (const typed of ["g-1", "1", " G-1 "])
      expect(ok(["goal", "show", typed])).toMatchObject({ goal: { id: "G-1" } });
    expect(ok(["remember", "the parser is hand written"])).toMatchObject({ id: "F-1" });
    expect(ok(["fact", "show", "f-1"])).toMatchObject({ fact: { id: "F-1" } });
    expect(ok(["note", "add", "finding", "--text", "slow start", "--severity", "minor"])).toMatchObject({
      id: "N-1",
    });
    expect(ok(["note", "show", "n-1"])).toMatchObject({ note: { id: "N-1" } });
    expect(ok(["forget", "f-1", "--confirm"])).toMatchObject({ forgotten: { id: "F-1" } });
  });

  it("names a goal as g-1 through an MCP tool", async () => {
    ok(["goal", "create", "make search fast"]);
    const mcp = await connectMcp(ws.dir, { args: ["--profile", "planner"] });
    try {
      const updated = await callTool(mcp, "update_goal", { id: "g-1", outcome: "p95 under 50 ms" });
      expect(updated.isError, JSON.stringify(updated.content)).toBeFalsy();
      expect(updated.structuredContent).toMatchObject({ goal: { id: "G-1", outcome: "p95 under 50 ms" } });
    } finally {
      await mcp.close();
    }
  });

  it("quotes what was typed when it names nothing, control characters and all", () => {
    const cases: [string[], RegExp][] = [
      [["goal", "show", "G-9"], /^no goal "G-9"$/],
      [["run", "status", "r-9"], /^no run "R-9"$/],
      [["attempt", "decide", "at-9"], /^no attempt "AT-9"$/],
      [["fact", "show", "F-1\u001b[2J"], /^no fact "F-1\\u001b\[2J"$/],
      [["note", "show", "x".repeat(150)], /^no note "x{60}"… \(150 characters\)$/],
    ];
    for (const [args, message] of cases) {
      const run = cairn(ws.dir, [...args, "--json"]);
      expect(run.code, args[0]).toBe(4);
      expect((run.json as { error: { message: string } }).error.message).toMatch(message);
    }
  });
});
