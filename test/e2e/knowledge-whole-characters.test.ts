import { describe, expect, it } from "vitest";
import { callTool, connectMcp, workspaceEachTest } from "../helpers/mcp.js";
import { addAgent, arrange } from "../helpers/workspace.js";

const { ws, open } = workspaceEachTest();

const textOf = (result: { content?: unknown }) => (result.content as { text: string }[])[0]?.text ?? "";

/** Half of a character: sent as JSON it is an escape strict parsers (Rust's serde_json) reject. */
const LONE = /\\ud[89a-f][0-9a-f]{2}/i;

describe("text an agent writes is whole characters", () => {
  it("refuses a lone surrogate a read-only agent sends, so no brief it would reach carries one", async () => {
    arrange(ws.dir, ["task", "add", "Build the parser"]);
    const { token } = addAgent(ws.dir, "peeker", "reviewer", ["--grant", "ro"]);
    const peeker = await connectMcp(ws.dir, { env: { CAIRN_AGENT: token } });
    open.push(peeker);
    const sent = await callTool(peeker, "add_note", {
      kind: "finding",
      severity: "major",
      text: "the parser \uD800 breaks",
    });
    expect(sent.isError).toBe(true);
    expect(textOf(sent)).toContain("lone UTF-16 surrogate (U+D800)");
    // Through the cli tool too, and for a question.
    const asked = (await callTool(peeker, "cli", { argv: ["ask", "T-1", "why \uDC00 this?"] }))
      .structuredContent as { exit_code: number; output: unknown };
    expect(asked.exit_code).toBe(2);
    expect(JSON.stringify(asked.output)).toContain("lone UTF-16 surrogate (U+DC00)");
    // A whole character made of two halves is text like any other.
    const smile = await callTool(peeker, "add_note", {
      kind: "finding",
      severity: "minor",
      text: "ok \uD83D\uDE00",
    });
    expect(smile.isError).toBeFalsy();
    const brief = await callTool(peeker, "get_context", { task: "T-1" });
    expect(JSON.stringify(brief)).not.toMatch(LONE);
    expect((brief.structuredContent as { brief: string }).brief).toContain("ok \uD83D\uDE00");
  });
});
