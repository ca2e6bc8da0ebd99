import {
  attemptDecide,
  attemptEval,
  attemptOpen,
  attemptReport,
  attemptRevert,
  attemptShow,
} from "./attempts.js";
import { briefRecord, contextCommand } from "./brief.js";
import { capabilities } from "./capabilities.js";
import { COORDINATION_COMMANDS } from "./coordination.js";
import type { AnyCommand } from "./define.js";
import { evalApprove, evalList, evalProposals, evalPropose, evalReject, evalSelect } from "./evals.js";
import { goalCreate, goalGate, goalList, goalNext, goalPlan, goalShow, goalUpdate } from "./goals.js";
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
import { runFreeze, runList, runStatus } from "./runs.js";
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
  goalCreate,
  goalUpdate,
  goalShow,
  goalList,
  goalPlan,
  goalNext,
  goalGate,
  evalSelect,
  evalPropose,
  evalApprove,
  evalReject,
  evalProposals,
  evalList,
  runFreeze,
  runList,
  runStatus,
  attemptOpen,
  attemptEval,
  attemptDecide,
  attemptShow,
  attemptReport,
  attemptRevert,
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
  contextCommand,
  briefRecord,
  ...TASK_COMMANDS,
  ...COORDINATION_COMMANDS,
];

export const COMMANDS_BY_NAME: ReadonlyMap<string, AnyCommand> = new Map(COMMANDS.map((c) => [c.name, c]));
