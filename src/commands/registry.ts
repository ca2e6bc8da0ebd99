import { capabilities } from "./capabilities.js";
import type { AnyCommand } from "./define.js";
import { agentAdd, agentList, agentRetire, whoami } from "./identity.js";
import {
  factShow,
  forgetCommand,
  recallCommand,
  rememberCommand,
  supersedeCommand,
  topicsCommand,
} from "./memory.js";
import { noteAdd, noteList, noteShow, noteTrust } from "./notes.js";
import { glossaryList, glossarySet, riskAdd, riskList } from "./risks.js";
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
  noteAdd,
  noteList,
  noteShow,
  noteTrust,
  rememberCommand,
  recallCommand,
  topicsCommand,
  supersedeCommand,
  forgetCommand,
  factShow,
  riskAdd,
  riskList,
  glossarySet,
  glossaryList,
];

export const COMMANDS_BY_NAME: ReadonlyMap<string, AnyCommand> = new Map(COMMANDS.map((c) => [c.name, c]));
