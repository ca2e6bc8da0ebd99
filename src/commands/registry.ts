import { capabilities } from "./capabilities.js";
import { COORDINATION_COMMANDS } from "./coordination.js";
import type { AnyCommand } from "./define.js";
import { agentAdd, agentList, agentRetire, whoami } from "./identity.js";
import { TASK_COMMANDS } from "./tasks.js";
import { exportCommand, importCommand, init, status } from "./workspace.js";

/** The command table. Each domain's commands are declared in their own file and listed here. */
export const COMMANDS: readonly AnyCommand[] = [
  init,
  status,
  whoami,
  agentAdd,
  agentList,
  agentRetire,
  exportCommand,
  importCommand,
  capabilities,
  ...TASK_COMMANDS,
  ...COORDINATION_COMMANDS,
];

export const COMMANDS_BY_NAME: ReadonlyMap<string, AnyCommand> = new Map(COMMANDS.map((c) => [c.name, c]));
