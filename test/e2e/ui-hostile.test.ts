import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callTool, connectMcp } from "../helpers/mcp.js";
import { addAgent, cairn, initWorkspace } from "../helpers/workspace.js";

/**
 * What a hostile agent can do to the dashboard's pages and the summaries every agent reads: the
 * faults found by attacking `cairn ui` and the workspace transfer commands.
 */

let workspace: { dir: string; cleanup: () => void };

beforeAll(() => {
  workspace = initWorkspace();
});
afterAll(() => workspace.cleanup());

describe("a flood of questions from a read-only agent", () => {
  it("keeps status and the Now inbox bounded, and says how many questions are open", async () => {
    expect(cairn(workspace.dir, ["task", "add", "a task to ask about"]).code).toBe(0);
    const reader = addAgent(workspace.dir, "nosy", "reader", ["--grant", "ro"]);
    const mcp = await connectMcp(workspace.dir, { env: { CAIRN_AGENT: reader.token } });
    const asked = 130;
    try {
      for (let i = 0; i < asked; i++) {
        const result = await callTool(mcp, "ask", {
          task: "T-1",
          question: `question ${i} ${"?".repeat(500)}`,
        });
        expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
      }
    } finally {
      await mcp.close();
    }
    const status = cairn(workspace.dir, ["status", "--json"]).json as {
      board: { open_asks: unknown[]; open_asks_total: number };
    };
    expect(status.board.open_asks.length).toBeLessThanOrEqual(100);
    expect(status.board.open_asks_total).toBe(asked);
    const now = cairn(workspace.dir, ["now", "--json"]).json as {
      inbox: { open_asks: unknown[]; open_asks_total: number };
    };
    expect(now.inbox.open_asks.length).toBeLessThanOrEqual(100);
    expect(now.inbox.open_asks_total).toBe(asked);
    expect(cairn(workspace.dir, ["now"]).stdout).toContain(`${asked} open questions`);
    expect(cairn(workspace.dir, ["status"]).stdout).toContain(`${asked - 100} more open questions`);
  });
});
