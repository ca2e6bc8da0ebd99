import type { Refusal } from "../../kernel/outcome.js";
import { cutText } from "../../kernel/text.js";
import type { GoalRecord, MilestoneRecord, Store, Tx } from "../../store/store.js";
import { TITLE_CHARS } from "../limits/limits.js";

/**
 * The seam between goals and the task board. Each milestone becomes a task on the board and the
 * two are linked both ways: the milestone keeps the task id, the task keeps the milestone id.
 * Every call runs inside the planning transaction, so a plan and its tasks land together.
 */
export interface MilestoneTaskLink {
  /** Create the milestone's task; `null` when there is no board. */
  createTask(tx: Tx, request: MilestoneTaskRequest): Promise<string | null>;
  /** Keep the task's title and text in step when a re-plan edits the milestone. */
  updateTask(tx: Tx, taskId: string, request: MilestoneTaskRequest): Promise<void>;
  /**
   * Make the task's dependencies on its goal's milestone tasks follow the milestone DAG;
   * dependencies on other tasks (added by hand) are left alone.
   */
  setDependencies(
    tx: Tx,
    taskId: string,
    dependsOn: string[],
    goalTasks: string[],
    at: string,
  ): Promise<void>;
  /** The milestone left the plan: its task is unlinked, and dropped unless someone holds it. */
  detachTask(tx: Tx, taskId: string, milestone: MilestoneRecord, at: string): Promise<void>;
}

export interface MilestoneTaskRequest {
  goal: GoalRecord;
  milestone: MilestoneRecord;
  title: string;
  soThat: string;
  body: string;
  /** One acceptance criterion per proof the milestone must pass. */
  criteria: string[];
  actor: string;
  at: string;
}

/** A link that remembers what it was asked to do, for tests of the planning side. */
export function recordingLink(): MilestoneTaskLink & {
  requests: MilestoneTaskRequest[];
  dependencies: Map<string, string[]>;
} {
  const requests: MilestoneTaskRequest[] = [];
  const dependencies = new Map<string, string[]>();
  return {
    requests,
    dependencies,
    async createTask(_tx, request) {
      requests.push(request);
      return `T-${requests.length}`;
    },
    async updateTask(_tx, _taskId, request) {
      requests.push(request);
    },
    async setDependencies(_tx, taskId, dependsOn) {
      dependencies.set(taskId, dependsOn);
    },
    async detachTask() {},
  };
}

/** The proofs a milestone must pass: its own, or the whole contract's when it names none. */
export function milestoneProofs(goal: GoalRecord, milestone: MilestoneRecord) {
  return goal.proofs.filter(
    (proof) => milestone.proofs.length === 0 || milestone.proofs.includes(proof.name),
  );
}

/** The criterion text for one proof; re-plans match criteria by this prefix. */
export const proofCriterion = (proof: { name: string; direction: string; threshold: number | null }) =>
  `proof ${proof.name}: ${proof.threshold === null ? "passes" : `${proof.direction === "higher" ? "≥" : "≤"} ${proof.threshold}`} in a kept attempt`;

/**
 * The milestone's title behind its goal and key, cut to what a task title may hold: the prefix
 * takes up to 40 characters, and a milestone titled to its own limit made a task title no
 * command accepts, which every export carried and every import of it refused.
 */
function milestoneTaskTitle(goal: GoalRecord, milestone: MilestoneRecord): string {
  const title = `${goal.id}/${milestone.key}: ${milestone.title}`;
  return title.length <= TITLE_CHARS ? title : `${cutText(title, TITLE_CHARS - 1)}…`;
}

export function taskRequest(
  goal: GoalRecord,
  milestone: MilestoneRecord,
  actor: string,
  at: string,
): MilestoneTaskRequest {
  const proofs = milestoneProofs(goal, milestone);
  const names = proofs.map((proof) => proof.name).join(", ") || "(none)";
  const description = milestone.description ? `\n${milestone.description}` : "";
  return {
    goal,
    milestone,
    title: milestoneTaskTitle(goal, milestone),
    soThat: goal.outcome ?? goal.goal,
    body: `Milestone ${milestone.id} of goal ${goal.id} (${goal.goal}).${description}\nProofs: ${names}.\nDone means a kept attempt: open_attempt {run, milestone: ${milestone.id}} → run_evals → decide_attempt (CLI: \`cairn attempt open RUN --milestone ${milestone.id}\`, \`attempt eval\`, \`attempt decide\`).`,
    criteria: proofs.map(proofCriterion),
    actor,
    at,
  };
}

export type GateResult = { pass: true; attemptId: string } | { pass: false; refusal: Refusal };

/**
 * The finish gate, inside the caller's transaction (the board calls it from the finish write, so
 * a decision and a finish cannot interleave): a kept, unreverted attempt for the milestone.
 */
export async function milestoneGateIn(tx: Tx, milestoneId: string): Promise<GateResult> {
  const milestone = await tx.goals.milestone(milestoneId);
  if (!milestone) {
    return {
      pass: false,
      refusal: {
        policy: "proof-gate",
        reason: `the task's milestone ${milestoneId} no longer exists`,
        next: "ask the planner to re-plan the goal or unlink the task",
      },
    };
  }
  const kept = await tx.goals.keptAttemptForMilestone(milestoneId);
  if (kept) return { pass: true, attemptId: kept.id };
  const run = (await tx.goals.runs(milestone.goalId)).at(-1);
  const proofs = milestone.proofs.length > 0 ? milestone.proofs.join(", ") : "every contract proof";
  const open = run
    ? `open_attempt {run: ${run.id}, milestone: ${milestoneId}}`
    : `freeze a run first (freeze_run ${milestone.goalId}), then open_attempt {run, milestone: ${milestoneId}}`;
  return {
    pass: false,
    refusal: {
      policy: "proof-gate",
      reason: `milestone ${milestoneId} (${milestone.title}) has no kept attempt: cairn has not measured ${proofs} passing`,
      next: `get a kept attempt: ${open} → run_evals → decide_attempt until it says keep (CLI: cairn attempt open|eval|decide)`,
    },
  };
}

export async function milestoneGate(store: Store, milestoneId: string): Promise<GateResult> {
  return store.read((tx) => milestoneGateIn(tx, milestoneId));
}
