import type { Profile } from "../domains/workspace/config.js";

/** One MCP tool: a hand-written face on one command (or on the whole CLI, for `cli`). */
export interface ToolSpec {
  name: string;
  title: string;
  description: string;
  /** The command this tool wraps; `cli` wraps the whole CLI. */
  wraps: { command: string } | { cli: true };
  profiles: readonly Profile[];
  /** Repeating the same call leaves the workspace as the first call left it. */
  idempotent: boolean;
  /** The task a result concerns, so the face can link its brief resource (`cairn://task/{id}/brief`). */
  taskOf?(output: Record<string, unknown>): string | undefined;
}

export const EVERY_PROFILE: readonly Profile[] = ["worker", "planner", "operator", "all"];
export const PLANNER: readonly Profile[] = ["planner", "all"];
export const BEYOND_WORKER: readonly Profile[] = ["planner", "operator", "all"];
