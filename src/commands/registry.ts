import { agentsDomain } from "./agents/index.js";
import { auditDomain } from "./audit/index.js";
import type { AnyCommand } from "./define.js";
import type { CommandDomain } from "./domain.js";
import { goalsDomain } from "./goals/index.js";
import { knowledgeDomain } from "./knowledge/index.js";
import { osDomain } from "./os/index.js";
import { promptsDomain } from "./prompts/index.js";
import { skillsDomain } from "./skills/index.js";
import { tasksDomain } from "./tasks/index.js";
import type { ToolSpec } from "./tool-spec.js";
import { uiDomain } from "./ui/index.js";
import { workspaceDomain } from "./workspace/index.js";

/**
 * The command table, one line per domain. Each domain folder declares its commands, the MCP
 * tools over them and its CLI groups; the faces read only what is derived here. The CLI loads
 * each domain on its own through `domain-loaders.ts`: give a new domain a line there too.
 */
export const DOMAINS: readonly CommandDomain[] = [
  workspaceDomain,
  knowledgeDomain,
  goalsDomain,
  tasksDomain,
  uiDomain,
  agentsDomain,
  auditDomain,
  skillsDomain,
  osDomain,
  promptsDomain,
];

export const COMMANDS: readonly AnyCommand[] = DOMAINS.flatMap((domain) => domain.commands);

/** The hand-kept MCP catalog: each domain's tools, in domain order. */
export const TOOLS: readonly ToolSpec[] = DOMAINS.flatMap((domain) => domain.tools);

export const COMMANDS_BY_NAME: ReadonlyMap<string, AnyCommand> = new Map(COMMANDS.map((c) => [c.name, c]));

/** What each command group is for, as `cairn --help` lists it. */
export const GROUP_SUMMARIES: Readonly<Record<string, string>> = Object.assign(
  {},
  ...DOMAINS.map((domain) => domain.groups),
);
