import type { CatalogSource } from "./catalog.js";
import type { AnyCommand } from "./define.js";
import type { ToolSpec } from "./tool-spec.js";

/**
 * One domain's face on the command table: its commands, the MCP tools that wrap some of them,
 * and what each of its CLI command groups is for. A new domain is a folder exporting one of
 * these, plus one line in `registry.ts`.
 */
export interface CommandDomain {
  name: string;
  commands: readonly AnyCommand[];
  tools: readonly ToolSpec[];
  /** CLI group → the one-line summary `cairn --help` shows for it. */
  groups: Readonly<Record<string, string>>;
  /** Tools built from files on disk (agents, skills, OS tools), when the domain has them. */
  catalog?: CatalogSource;
}
