import type { MilestoneRecord, Tx } from "../../store/store.js";
import type { MilestoneTaskLink, MilestoneTaskRequest } from "./task-link.js";

const journalTask = (tx: Tx, request: MilestoneTaskRequest, action: string, taskId: string, data: object) =>
  tx.journal.append({ at: request.at, actor: request.actor, action, subject: taskId, data: { ...data } });

/** Add the criteria for proofs the task does not name yet (criteria are never removed: ticks are history). */
async function addMissingCriteria(
  tx: Tx,
  taskId: string,
  criteria: string[],
  addedBy: string,
): Promise<void> {
  const present = (await tx.tasks.criteria(taskId)).map((criterion) => criterion.text.split(":")[0]);
  for (const text of criteria) {
    if (present.includes(text.split(":")[0])) continue;
    await tx.tasks.addCriterion(taskId, {
      text,
      verify: null,
      shortcut: null,
      params: {},
      timeoutSeconds: null,
      setting: null,
      addedBy,
    });
  }
}

/** The milestone link over the task board's repositories, inside the planning transaction. */
export const BOARD_LINK: MilestoneTaskLink = {
  async createTask(tx, request) {
    const task = await tx.tasks.insert(
      {
        title: request.title,
        soThat: request.soThat,
        context: request.body,
        parentId: null,
        priority: "must",
        estimate: null,
        traces: [],
        labels: [request.goal.id],
        createdBy: request.actor,
      },
      request.at,
    );
    await tx.tasks.update(task.id, { milestoneId: request.milestone.id }, request.at);
    await addMissingCriteria(tx, task.id, request.criteria, request.actor);
    await journalTask(tx, request, "task.add", task.id, {
      title: task.title,
      parent: null,
      milestone: request.milestone.id,
    });
    return task.id;
  },

  async updateTask(tx, taskId, request) {
    const task = await tx.tasks.byId(taskId);
    if (!task) return;
    await tx.tasks.update(
      taskId,
      {
        title: request.title,
        soThat: request.soThat,
        context: request.body,
        milestoneId: request.milestone.id,
      },
      request.at,
    );
    await addMissingCriteria(tx, taskId, request.criteria, request.actor);
  },

  async setDependencies(tx, taskId, dependsOn, goalTasks) {
    const current = (await tx.tasks.dependencies(taskId)).map((task) => task.id);
    for (const id of current) {
      if (goalTasks.includes(id) && !dependsOn.includes(id)) await tx.tasks.removeDependency(taskId, id);
    }
    for (const id of dependsOn) if (!current.includes(id)) await tx.tasks.addDependency(taskId, id);
  },

  async detachTask(tx, taskId, milestone: MilestoneRecord, at) {
    const task = await tx.tasks.byId(taskId);
    if (!task) return;
    const drop = task.status === "open" || (task.status === "blocked" && !task.owner);
    await tx.tasks.update(
      taskId,
      drop
        ? { milestoneId: null, status: "dropped", blockedReason: `milestone ${milestone.id} left the plan` }
        : { milestoneId: null },
      at,
    );
  },
};

/** The link the commands use. */
export const ACTIVE_TASK_LINK: MilestoneTaskLink = BOARD_LINK;
