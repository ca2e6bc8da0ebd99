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
import { status } from "./status.js";
import { TASK_COMMANDS } from "./tasks.js";
import { exportCommand, importCommand, init } from "./workspace.js";

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

/** What each command group is for, as `cairn --help` lists it. */
export const GROUP_SUMMARIES: Readonly<Record<string, string>> = {
  agent: "Register, list and retire agents (each gets its own token)",
  task: "The task board: add, claim, check, finish and organise tasks",
  queue: "Named ordered steps with a cursor, advanced once per key",
  shortcut: "Named command templates agents may run through the guard",
  note: "Decisions, findings, metrics and references, scoped to a task or the workspace",
  fact: "Read a remembered fact by id, superseded or not",
  risk: "Risks with impact, likelihood and indicators; rank is computed",
  glossary: "Project terms and what they mean",
  goal: "Goal contracts and their milestone plans",
  eval: "Evaluators: packs, selection, proposals and approval",
  run: "Frozen runs: a contract with its evaluator manifest",
  attempt: "Attempts: open, evaluate, decide keep/revert/review, revert",
};
