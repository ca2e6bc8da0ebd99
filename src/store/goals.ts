/**
 * Storage contract of the goals domain: contracts, milestones, evaluator proposals, frozen runs,
 * attempts, measured samples and self-reported scores. Structured values are plain JSON data;
 * the domain validates them.
 */

import type { IdPage } from "./tasks.js";

export type Direction = "higher" | "lower";

export interface ProofSpec {
  name: string;
  direction: Direction;
  /** `null` until someone decides it; a run cannot be frozen with an open threshold. */
  threshold: number | null;
  /** Judged by a person or an agent's report, never measured by an evaluator. */
  manual: boolean;
  description: string;
}

export interface GoalFields {
  goal: string;
  outcome: string | null;
  constraints: string[];
  nonGoals: string[];
  proofs: ProofSpec[];
}

export interface GoalRecord extends GoalFields {
  id: string;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
}

export interface MilestoneFields {
  key: string;
  title: string;
  description: string;
  proofs: string[];
  /** Keys of milestones of the same goal. */
  dependsOn: string[];
}

export interface MilestoneRecord extends MilestoneFields {
  id: string;
  goalId: string;
  taskId: string | null;
  position: number;
  createdAt: string;
}

export type ProposalStatus = "proposed" | "approved" | "rejected";

export interface ProposalRecord {
  id: string;
  goalId: string;
  proof: string;
  definition: Record<string, unknown>;
  status: ProposalStatus;
  proposedBy: string;
  decidedBy: string | null;
  createdAt: string;
  decidedAt: string | null;
}

/** One evaluator as frozen into a run: its definition, where it came from, its content hash. */
export interface FrozenEvaluatorRecord {
  name: string;
  proof: string;
  source: string;
  hash: string;
  /**
   * A hidden evaluator's: the random salt its `hash` was made with, so that the hash, which every
   * agent reads, confirms no guess at the holdout. Absent for visible evaluators, and in runs
   * frozen before holdouts were salted (their hash is plain).
   */
  salt?: string;
  definition: Record<string, unknown>;
  /**
   * What the evaluator depends on, content-hashed at freeze: the globs (declared and defaulted)
   * and every file they matched, repository-relative path → `sha256:…`. Absent in runs frozen
   * before inputs were tracked. `modes`: each executable file's hash ends in `+x` (runs frozen
   * since the mode was frozen too; older ones compare content only).
   */
  inputs?: { patterns: string[]; files: Record<string, string>; modes?: boolean };
  /**
   * The folders its programs are looked up in first (PATH's absolute folders where the run was
   * frozen). Absent in runs frozen before PATH was.
   */
  path?: string[];
  /** The home folder its tools read user configuration from, where the run was frozen. */
  home?: string;
  /** Where its tools read configuration moved by a variable (kernel/setting.ts), at the freeze. */
  locations?: Record<string, string>;
}

export interface RunRecord {
  id: string;
  goalId: string;
  contract: GoalRecord;
  milestones: MilestoneRecord[];
  manifest: FrozenEvaluatorRecord[];
  manifestHash: string;
  createdBy: string;
  createdAt: string;
}

export type Verdict = "keep" | "revert" | "review";

export interface AttemptTally {
  attempts: number;
  kept: number;
  inReview: number;
  latest: { id: string; verdict: Verdict | null; openedAt: string } | null;
}

/** What a run's ledger shows of an attempt: none of its decision, changes or hashes. */
export interface AttemptSummary {
  id: string;
  milestoneId: string | null;
  openedBy: string;
  openedAt: string;
  verdict: Verdict | null;
  revertedAt: string | null;
}

export interface AttemptRecord {
  id: string;
  runId: string;
  milestoneId: string | null;
  baseHead: string | null;
  baseDirty: boolean;
  /** Paths that already differed from HEAD when the attempt opened: not the attempt's changes. */
  baseChanges: string[];
  openedBy: string;
  openedAt: string;
  verdict: Verdict | null;
  decision: Record<string, unknown> | null;
  decidedAt: string | null;
  revertedAt: string | null;
  /** The directory the attempt evaluates, keeps and reverts in (its checkout's workspace root). */
  checkout: string | null;
  /**
   * The machine the checkout is on (its host name), on a shared store: a path names a folder on
   * one machine only. Null on a file store and before cairn kept it: taken as this machine's.
   */
  checkoutHost: string | null;
  /** Content hash of each path in `baseChanges` at open: revert tells them from its own edits. */
  baseHashes: Record<string, string>;
  /** The owner (or a planner) allowed this attempt to change frozen inputs: at best review. */
  inputsApprovedBy: string | null;
  /** Frozen inputs seen changed while the attempt was evaluated (repository-relative paths). */
  inputDrift: string[];
  /** How the owner settled a review: accepted (kept) or rejected (to revert), with a reason. */
  resolution: AttemptResolution | null;
}

export interface AttemptResolution {
  outcome: "accepted" | "rejected";
  by: string;
  at: string;
  reason: string | null;
  keptCommit: string | null;
}

/** One change to a goal contract: who, when, which fields, and what they held before and after. */
export interface ContractChangeRecord {
  goalId: string;
  changedBy: string;
  at: string;
  fields: string[];
  /** Only what the change touched: its fields, and of the proofs those it added, changed or removed. */
  before: Partial<GoalFields>;
  after: Partial<GoalFields>;
}

export interface BaselineRecord {
  evaluator: string;
  attemptId: string;
  mean: number;
  noise: number;
  direction: Direction;
}

export interface SampleRecord {
  attemptId: string;
  evaluator: string;
  proof: string;
  repeatIndex: number;
  exitCode: number | null;
  value: number | null;
  error: string | null;
  durationMs: number;
  outputTail: string;
  outputHash: string;
  gitHead: string | null;
  at: string;
  /** What was measured: the attempt's tree, or its base (in-session baseline). */
  side: "attempt" | "base";
  /**
   * The attempt's tree this sample was taken to judge (base samples too): a fingerprint of its
   * checkout when the evaluation started. Null for samples recorded before cairn kept it.
   */
  tree?: string | null;
}

export interface ScoreReportRecord {
  attemptId: string;
  proof: string;
  score: number;
  reportedBy: string;
  at: string;
}

export interface GoalRepo {
  insertGoal(fields: GoalFields, createdBy: string, at: string): Promise<GoalRecord>;
  updateGoal(id: string, fields: GoalFields, at: string): Promise<GoalRecord>;
  goal(id: string): Promise<GoalRecord | undefined>;
  /**
   * A page of the goals, first made first, and how many there are in all. Each goal holds a
   * contract of up to 1 MiB and any writer may make goals: reading them all at once has no bound.
   */
  goals(page: { limit: number; offset: number }): Promise<{ goals: GoalRecord[]; total: number }>;
  /** The goals changed last (then the newest), at most `limit`, and how many there are in all. */
  recentGoals(limit: number): Promise<{ goals: GoalRecord[]; total: number }>;
  /** Goal ids that start with `prefix` (byte for byte), lowest number first, at most `limit`. */
  idsStartingWith(prefix: string, limit: number): Promise<IdPage>;

  milestones(goalId: string): Promise<MilestoneRecord[]>;
  milestone(id: string): Promise<MilestoneRecord | undefined>;
  milestoneByTask(taskId: string): Promise<MilestoneRecord | undefined>;
  insertMilestone(
    goalId: string,
    fields: MilestoneFields,
    position: number,
    at: string,
  ): Promise<MilestoneRecord>;
  updateMilestone(id: string, fields: MilestoneFields, position: number): Promise<void>;
  deleteMilestone(id: string): Promise<void>;
  linkMilestoneTask(id: string, taskId: string): Promise<void>;

  insertProposal(
    goalId: string,
    proof: string,
    definition: Record<string, unknown>,
    proposedBy: string,
    at: string,
  ): Promise<ProposalRecord>;
  proposal(id: string): Promise<ProposalRecord | undefined>;
  proposals(goalId: string): Promise<ProposalRecord[]>;
  decideProposal(id: string, status: ProposalStatus, decidedBy: string, at: string): Promise<void>;

  insertRun(run: Omit<RunRecord, "id">): Promise<RunRecord>;
  run(id: string): Promise<RunRecord | undefined>;
  runs(goalId?: string): Promise<RunRecord[]>;

  insertAttempt(
    attempt: Omit<
      AttemptRecord,
      "id" | "verdict" | "decision" | "decidedAt" | "revertedAt" | "inputDrift" | "resolution"
    >,
  ): Promise<AttemptRecord>;
  /**
   * The attempt still open in this checkout (not kept, not reverted), if any: the folder `checkout`
   * on the machine `host` (an attempt recorded with no host counts as on any).
   */
  openAttemptIn(checkout: string, host: string): Promise<AttemptRecord | undefined>;
  /** Add frozen inputs seen changed during an evaluation (kept as a set). */
  recordInputDrift(id: string, paths: string[]): Promise<void>;
  /** The owner's settlement of a review: the verdict it leads to and who decided, why. */
  resolveAttempt(id: string, verdict: Verdict, resolution: AttemptResolution): Promise<void>;
  attempt(id: string): Promise<AttemptRecord | undefined>;
  /** A run's attempts, first opened first: all of them, or one page. */
  attempts(runId: string, page?: { limit: number; offset: number }): Promise<AttemptRecord[]>;
  /** A run's kept attempts (not reverted), first opened first: the ground its chart stands on. */
  keptAttempts(runId: string): Promise<AttemptRecord[]>;
  /**
   * A page of a run's ledger, first opened first, each attempt summarised: an agent's loop leaves
   * thousands of attempts a run, each holding its decision and hashes.
   */
  attemptPage(runId: string, page: { limit: number; offset: number }): Promise<AttemptSummary[]>;
  /** A run's attempts waiting for a person (verdict review, not reverted), first opened first. */
  attemptsInReview(runId: string): Promise<AttemptRecord[]>;
  /**
   * A run's attempts counted by the store, none read whole: all of them, those kept and those in
   * review (neither reverted), and the one opened last. A summary (`now`) looks at every run of a
   * goal at each change, and a run of an agent's loop holds thousands.
   */
  attemptTally(runId: string): Promise<AttemptTally>;
  /** The best kept measurement per evaluator of a run: what later attempts must not regress from. */
  baselines(runId: string): Promise<BaselineRecord[]>;
  /** Record a kept measurement; it replaces the stored one only when it is better. */
  raiseBaseline(baseline: BaselineRecord & { runId: string }): Promise<void>;
  keptAttemptForMilestone(milestoneId: string): Promise<AttemptRecord | undefined>;
  attemptsUsingMilestone(milestoneId: string): Promise<number>;
  recordDecision(id: string, verdict: Verdict, decision: Record<string, unknown>, at: string): Promise<void>;
  markReverted(id: string, at: string): Promise<void>;

  insertSample(sample: SampleRecord): Promise<void>;
  samples(attemptId: string): Promise<SampleRecord[]>;
  /** The samples of these attempts, each attempt's in the order recorded. */
  samplesOfAttempts(attemptIds: readonly string[]): Promise<SampleRecord[]>;
  insertScoreReport(report: ScoreReportRecord): Promise<void>;
  insertContractChange(change: ContractChangeRecord): Promise<void>;
  contractChanges(goalId: string): Promise<ContractChangeRecord[]>;
  scoreReports(attemptId: string): Promise<ScoreReportRecord[]>;
}
