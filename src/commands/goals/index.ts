import type { CommandDomain } from "../domain.js";
import {
  attemptDecide,
  attemptEval,
  attemptOpen,
  attemptReport,
  attemptRevert,
  attemptShow,
} from "./attempts.js";
import { evalApprove, evalList, evalProposals, evalPropose, evalReject, evalSelect } from "./evals.js";
import {
  goalCreate,
  goalGate,
  goalIds,
  goalList,
  goalNext,
  goalPlan,
  goalShow,
  goalUpdate,
} from "./goals.js";
import { attemptAccept, attemptReject } from "./review.js";
import { runFreeze, runList, runStatus } from "./runs.js";
import { GOAL_TOOLS } from "./tools.js";

/** Goal contracts, milestones, frozen evaluator runs and attempts decided keep/revert/review. */
export const goalsDomain: CommandDomain = {
  name: "goals",
  commands: [
    goalCreate,
    goalUpdate,
    goalShow,
    goalList,
    goalIds,
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
    attemptAccept,
    attemptReject,
  ],
  tools: GOAL_TOOLS,
  groups: {
    goal: "Goal contracts and their milestone plans",
    eval: "Evaluators: packs, selection, proposals and approval",
    run: "Frozen runs: a contract with its evaluator manifest",
    attempt:
      "Attempts: open, evaluate, decide keep/revert/review, revert; the owner accepts or rejects a review",
  },
};
