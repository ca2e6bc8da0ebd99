import type {
  AttemptRecord,
  AttemptSummary,
  AttemptTally,
  GoalRecord,
  MilestoneRecord,
  ProposalRecord,
  RunRecord,
  SampleRecord,
  Verdict,
} from "../goals.js";

/** Row ↔ record mapping for the goals tables: JSON columns parsed, integers to booleans. */
export type Row = Record<string, unknown>;
const json = <T>(value: unknown): T => JSON.parse(String(value)) as T;
const text = (value: unknown) => (value === null || value === undefined ? null : String(value));

export function goalOf(row: Row): GoalRecord {
  return {
    id: String(row.id),
    goal: String(row.goal),
    outcome: text(row.outcome),
    constraints: json(row.constraints),
    nonGoals: json(row.non_goals),
    proofs: json(row.proofs),
    createdBy: String(row.created_by),
    createdAt: String(row.created_at),
    updatedAt: String(row.updated_at),
  };
}

export function milestoneOf(row: Row): MilestoneRecord {
  return {
    id: String(row.id),
    goalId: String(row.goal_id),
    key: String(row.key),
    title: String(row.title),
    description: String(row.description),
    proofs: json(row.proofs),
    dependsOn: json(row.depends_on),
    taskId: text(row.task_id),
    position: Number(row.position),
    createdAt: String(row.created_at),
  };
}

export function proposalOf(row: Row): ProposalRecord {
  return {
    id: String(row.id),
    goalId: String(row.goal_id),
    proof: String(row.proof),
    definition: json(row.definition),
    status: row.status as ProposalRecord["status"],
    proposedBy: String(row.proposed_by),
    decidedBy: text(row.decided_by),
    createdAt: String(row.created_at),
    decidedAt: text(row.decided_at),
  };
}

export function runOf(row: Row): RunRecord {
  return {
    id: String(row.id),
    goalId: String(row.goal_id),
    contract: json(row.contract),
    milestones: json(row.milestones),
    manifest: json(row.manifest),
    manifestHash: String(row.manifest_hash),
    createdBy: String(row.created_by),
    createdAt: String(row.created_at),
  };
}

export function attemptOf(row: Row): AttemptRecord {
  return {
    id: String(row.id),
    runId: String(row.run_id),
    milestoneId: text(row.milestone_id),
    baseHead: text(row.base_head),
    baseDirty: row.base_dirty === 1,
    baseChanges: json(row.base_changes),
    openedBy: String(row.opened_by),
    openedAt: String(row.opened_at),
    verdict: (row.verdict as Verdict | null) ?? null,
    decision: row.decision === null ? null : json(row.decision),
    decidedAt: text(row.decided_at),
    revertedAt: text(row.reverted_at),
    checkout: text(row.checkout),
    checkoutHost: text(row.checkout_host),
    baseHashes: json(row.base_hashes ?? "{}"),
    inputsApprovedBy: text(row.inputs_approved_by),
    inputDrift: json(row.input_drift ?? "[]"),
    resolution: row.resolution === null || row.resolution === undefined ? null : json(row.resolution),
  };
}

export function attemptSummaryOf(row: Row): AttemptSummary {
  return {
    id: String(row.id),
    milestoneId: text(row.milestone_id),
    openedBy: String(row.opened_by),
    openedAt: String(row.opened_at),
    verdict: (row.verdict as Verdict | null) ?? null,
    revertedAt: text(row.reverted_at),
  };
}

export function sampleOf(row: Row): SampleRecord {
  return {
    attemptId: String(row.attempt_id),
    evaluator: String(row.evaluator),
    proof: String(row.proof),
    repeatIndex: Number(row.repeat_index),
    exitCode: row.exit_code === null ? null : Number(row.exit_code),
    value: row.value === null ? null : Number(row.value),
    error: text(row.error),
    durationMs: Number(row.duration_ms),
    outputTail: String(row.output_tail),
    outputHash: String(row.output_hash),
    gitHead: text(row.git_head),
    at: String(row.at),
    side: row.side === "base" ? "base" : "attempt",
    tree: text(row.tree),
  };
}

/** A run's attempt counts (PostgreSQL counts in bigint, read as text) and its latest attempt. */
export function tallyOf(counts: Row | undefined, latest: Row | undefined): AttemptTally {
  return {
    attempts: Number(counts?.n ?? 0),
    kept: Number(counts?.kept ?? 0),
    inReview: Number(counts?.in_review ?? 0),
    latest: latest
      ? {
          id: String(latest.id),
          verdict: (latest.verdict as Verdict | null) ?? null,
          openedAt: String(latest.opened_at),
        }
      : null,
  };
}
