import type { z } from "zod";
import type { Profile } from "../domains/workspace/config.js";
import type { SessionContext } from "./context.js";

/**
 * Tools whose list comes from files on disk: one per local agent (`run-<name>`), per skill
 * (`skill-<name>`), per remediation, per pinned OS tool. Each is still a thin face on one
 * command of the table: the tool's arguments become that command's input, and dispatch (guard,
 * hooks, output schema) runs as for any other tool. No rule lives here.
 */
export interface CatalogTool {
  /** The final MCP name: `[A-Za-z0-9_-]`, short enough for a client's `mcp__cairn__` prefix. */
  name: string;
  title: string;
  description: string;
  /** The tool's own arguments, without `schema_version` (the face adds it). */
  input: z.ZodObject;
  /** The command this tool runs. */
  command: string;
  /** The command input for one call's arguments (e.g. `{agent: "nightly", ...args}`). */
  commandInput(args: Record<string, unknown>): Record<string, unknown>;
  /**
   * The text a model reads for an ok result (an agent's stdout, a skill's body); the structured
   * output still carries everything. Without it the text is the output as JSON.
   */
  text?(output: Record<string, unknown>): string;
  /** Repeating the same call leaves the workspace as the first call left it (default false). */
  idempotent?: boolean;
}

export interface CatalogBuild {
  tools: CatalogTool[];
  /** Dropped or doubtful entries (a name collision, a long description): printed on stderr. */
  warnings: string[];
}

/** A file the catalog could not read: `tools/list` answers an error naming it, never a partial list. */
export class CatalogError extends Error {
  constructor(
    readonly file: string,
    readonly reason: string,
  ) {
    super(`${file}: ${reason}`);
  }
}

/**
 * A domain's file-backed tools. The face rebuilds them on `tools/list` and on a call to resolve
 * its name (never by reversing a sanitizer), and watches `watched()` to send `list_changed`.
 */
export interface CatalogSource {
  build(ctx: SessionContext, profile: Profile): Promise<CatalogBuild>;
  /** Files and folders whose changes rebuild the catalog. */
  watched(ctx: SessionContext): string[];
}
