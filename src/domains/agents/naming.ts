import { sha256Hex } from "../../kernel/builtins.js";

/** Room for `run-` and a client's `mcp__cairn__` prefix inside 64 characters. */
export const MAX_TOOL_NAME = 52;

const shortHash = (text: string) => sha256Hex(text).slice(0, 6);

/**
 * An agent name in the MCP alphabet `[A-Za-z0-9_-]`: other characters become `-` (runs of them
 * one `-`). Lossy on purpose (`a.b` and `a/b` meet), so a tool name is only ever resolved by
 * rebuilding the catalog and matching, never by reversing this.
 */
export function sanitizeName(name: string, max: number): string {
  let safe = name
    .replace(/[^A-Za-z0-9_-]+/g, "-")
    .replace(/-+/g, "-")
    .replace(/^-|-$/g, "");
  if (safe === "") safe = `agent-${shortHash(name)}`;
  // Cut long names with a hash of the whole, so two long names sharing a prefix stay apart.
  if (safe.length > max) safe = `${safe.slice(0, max - 7)}-${shortHash(name)}`;
  return safe;
}

export const runToolName = (agent: string) => `run-${sanitizeName(agent, MAX_TOOL_NAME - 4)}`;

export function remediationToolName(agent: string, index: number): string {
  const suffix = `-${index}`;
  return `remediate-${sanitizeName(agent, MAX_TOOL_NAME - "remediate-".length - suffix.length)}${suffix}`;
}

/** A directory name for an agent's logs: readable, and unique even when two names sanitize alike. */
export const agentDirName = (agent: string) => `${sanitizeName(agent, 40)}-${shortHash(agent)}`;
