import { describe, expect, it } from "vitest";
import { fitOneMessage, MAX_RESULT_BYTES, readFits, toolResult } from "../../src/faces/mcp/results.js";

describe("tool results and the size of one stdio message", () => {
  it("answers a result larger than a client reads in one message with an error naming its size", () => {
    // The SDK's stdio client reads at most 10 MB a message and drops the connection past it; a
    // result is sent twice (as text and as structured content).
    const big = toolResult({ kind: "ok", value: { notes: [{ text: "é".repeat(3_000_000) }] } });
    const fitted = fitOneMessage(big);
    expect(fitted.isError).toBe(true);
    expect(JSON.stringify(fitted.content)).toMatch(/\d+ MB.*narrow/);
    expect(fitted.structuredContent).toBeUndefined();
    const small = toolResult({ kind: "ok", value: { notes: [{ text: "é".repeat(1_000) }] } });
    expect(fitOneMessage(small)).toBe(small);
    // What the `cli` tool returns: what --json printed, parsed again, and stderr.
    const printed = JSON.stringify({ notes: ["x".repeat(MAX_RESULT_BYTES / 2)] });
    const cli = {
      content: [{ type: "text" as const, text: printed }],
      structuredContent: { exit_code: 0, output: JSON.parse(printed), stderr: "" },
      isError: false,
    };
    expect(fitOneMessage(cli).isError).toBe(true);
  });

  it("refuses a resource read too large to send, naming its size, and passes the rest", () => {
    // A task shows its last 200 notes, each up to 256 KB; a skill file is sent whole.
    const read = { contents: [{ uri: "cairn://task/T-2", text: "n".repeat(MAX_RESULT_BYTES) }] };
    expect(() => readFits(read)).toThrow(/\d+ MB.*narrow/);
    const small = { contents: [{ uri: "cairn://task/T-2", text: "n".repeat(1_000) }] };
    expect(readFits(small)).toBe(small);
  });
});
