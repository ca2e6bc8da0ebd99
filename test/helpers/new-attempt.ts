import type { GoalFields, GoalRecord, RunRecord, SampleRecord } from "../../src/store/goals.js";

type NewAttempt = Parameters<import("../../src/store/goals.js").GoalRepo["insertAttempt"]>[0];

/** A goal's fields as the store inserts them: the sentence alone. */
export const goalFields = (goal: string): GoalFields => ({
  goal,
  outcome: null,
  constraints: [],
  nonGoals: [],
  proofs: [],
});

/** A run as the store inserts it: the goal's contract, no milestones, this manifest. */
export function newRun(
  goal: GoalRecord,
  at: string,
  manifest: RunRecord["manifest"] = [],
): Omit<RunRecord, "id"> {
  return {
    goalId: goal.id,
    contract: goal,
    milestones: [],
    manifest,
    manifestHash: "h",
    createdBy: "owner",
    createdAt: at,
  };
}

/** An attempt as the store inserts it: the owner's, on no checkout, unless told otherwise. */
export function newAttempt(runId: string, openedAt: string, fields: Partial<NewAttempt> = {}): NewAttempt {
  return {
    runId,
    milestoneId: null,
    baseHead: null,
    baseDirty: false,
    baseChanges: [],
    baseHashes: {},
    checkout: null,
    checkoutHost: null,
    inputsApprovedBy: null,
    openedBy: "owner",
    openedAt,
    ...fields,
  };
}

/** One repeat of an evaluator on the attempt's side: exiting 0 with this value, or 1 with none. */
export function newSample(
  attemptId: string,
  evaluator: string,
  repeatIndex: number,
  value: number | null,
  at: string,
): SampleRecord {
  return {
    attemptId,
    evaluator,
    proof: evaluator,
    repeatIndex,
    exitCode: value === null ? 1 : 0,
    value,
    error: null,
    durationMs: 1,
    outputTail: "",
    outputHash: "",
    gitHead: null,
    at,
    side: "attempt",
    tree: null,
  };
}
