import type { CallToolResult, ResourceLink } from "@modelcontextprotocol/server";
import { describeError, type Outcome } from "../../kernel/outcome.js";

/**
 * Outcome → MCP result. A refusal is a normal result (agent loops retry errors, and retrying a
 * refusal is exactly the loop to avoid); other failures are `isError` with what to do next.
 */
export function toolResult(outcome: Outcome<unknown>, link?: ResourceLink): CallToolResult {
  if (outcome.kind === "ok") {
    const value = outcome.value as Record<string, unknown>;
    return {
      content: [{ type: "text", text: JSON.stringify(value) }, ...(link ? [link] : [])],
      structuredContent: value,
    };
  }
  if (outcome.kind === "refused") {
    const envelope = { refused: outcome.refusal };
    return { content: [{ type: "text", text: JSON.stringify(envelope) }], structuredContent: envelope };
  }
  return { content: [{ type: "text", text: describeError(outcome.error) }], isError: true };
}
