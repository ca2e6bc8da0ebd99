import type { Refusal } from "../../kernel/outcome.js";
import type { GoalRecord, MilestoneRecord, Store, Tx } from "../../store/store.js";

/**
 * The seam between goals and the task board. Each milestone becomes a task on the board and the
 * two are linked both ways: the milestone keeps the task id, the task keeps the milestone id.
 * The board implements this interface; until it does, milestones simply have no task.
 */
export interface MilestoneTaskLink {
  /** Create the milestone's task inside the planning transaction; `null` when there is no board. */
  createTask(tx: Tx, request: MilestoneTaskRequest): Promise<string | null>;
  /** Keep the task's title and text in step when a re-plan edits the milestone. */
  updateTask(tx: Tx, taskId: string, request: MilestoneTaskRequest): Promise<void>;
}

export interface MilestoneTaskRequest {
  goal: GoalRecord;
  milestone: MilestoneRecord;
  title: string;
  body: string;
}

/** No board in this build: nothing is created, and milestones carry `task_id: null`. */
export const NO_BOARD: MilestoneTaskLink = {
  async createTask() {
    return null;
  },
  async updateTask() {},
};

/** A link that remembers what it was asked to do, for tests of the planning side. */
export function recordingLink(): MilestoneTaskLink & { requests: MilestoneTaskRequest[] } {
  const requests: MilestoneTaskRequest[] = [];
  return {
    requests,
    async createTask(_tx, request) {
      requests.push(request);
      return `T-${requests.length}`;
    },
    async updateTask(_tx, _taskId, request) {
      requests.push(request);
    },
  };
}

/** The link the commands use; the task board replaces NO_BOARD here when it lands. */
export const ACTIVE_TASK_LINK: MilestoneTaskLink = NO_BOARD;

export function taskRequest(goal: GoalRecord, milestone: MilestoneRecord): MilestoneTaskRequest {
  const proofs = milestone.proofs.length > 0 ? milestone.proofs.join(", ") : "(none)";
  return {
    goal,
    milestone,
    title: `${goal.id}/${milestone.key}: ${milestone.title}`,
    body: `Milestone ${milestone.id} of goal ${goal.id} (${goal.goal}).\nProofs: ${proofs}.\nDone means a kept attempt: \`cairn attempt open RUN --milestone ${milestone.id}\`, then eval and decide.`,
  };
}

export type GateResult = { pass: true; attemptId: string } | { pass: false; refusal: Refusal };

/**
 * The finish gate the board calls before a milestone's task may be finished: a kept attempt
 * for that milestone must exist (and must not have been reverted since).
 */
export async function milestoneGate(store: Store, milestoneId: string): Promise<GateResult> {
  return store.read(async (tx) => {
    const milestone = await tx.goals.milestone(milestoneId);
    if (!milestone) {
      return {
        pass: false,
        refusal: {
          policy: "proof-gate",
          reason: `no milestone ${milestoneId}`,
          next: "check the task's milestone link",
        },
      };
    }
    const kept = await tx.goals.keptAttemptForMilestone(milestoneId);
    if (kept) return { pass: true, attemptId: kept.id };
    return {
      pass: false,
      refusal: {
        policy: "proof-gate",
        reason: `milestone ${milestoneId} (${milestone.title}) has no kept attempt`,
        next: `open an attempt with \`cairn attempt open RUN --milestone ${milestoneId}\`, run \`attempt eval\` and \`attempt decide\` until it is kept`,
      },
    };
  });
}
