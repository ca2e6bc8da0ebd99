import { z } from "zod";
import { findCycle as findCycleAmong } from "../../kernel/graph.js";
import { refuse, usageError } from "../../kernel/outcome.js";
import type { GoalRecord, MilestoneFields, MilestoneRecord, Store, Tx } from "../../store/store.js";
import { ACTIVE_TASK_LINK } from "./board-link.js";
import { goalOrThrow, requireGoalAuthor, unknownProof } from "./contract.js";
import { type MilestoneTaskLink, taskRequest } from "./task-link.js";

export const MilestoneInput = z.object({
  key: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,31}$/, "keys are short: lowercase letters, digits, - and _"),
  title: z.string().min(1),
  description: z.string().optional(),
  proofs: z.array(z.string()).optional().describe("proofs it must pass"),
  depends_on: z.array(z.string()).optional().describe("milestone keys that come first"),
});
export type MilestoneInput = z.infer<typeof MilestoneInput>;

const PERFORMANCE = new Set(["latency", "throughput"]);

/**
 * The default plan, derived from the contract alone: make it work (every measured proof but
 * performance), then make it fast (performance proofs), then have it judged (manual proofs).
 */
export function draftPlan(goal: GoalRecord): MilestoneFields[] {
  const manual = goal.proofs.filter((proof) => proof.manual).map((proof) => proof.name);
  const perf = goal.proofs.filter((proof) => !proof.manual && PERFORMANCE.has(proof.name)).map((p) => p.name);
  const core = goal.proofs
    .filter((proof) => !proof.manual && !PERFORMANCE.has(proof.name))
    .map((p) => p.name);
  const plan: MilestoneFields[] = [
    { key: "core", title: `Make it work: ${goal.goal}`, description: "", proofs: core, dependsOn: [] },
  ];
  if (perf.length > 0) {
    plan.push({
      key: "perf",
      title: "Make it fast enough",
      description: "",
      proofs: [...core, ...perf],
      dependsOn: ["core"],
    });
  }
  if (manual.length > 0) {
    plan.push({
      key: "review",
      title: "Have it judged",
      description: "",
      proofs: manual,
      dependsOn: plan.map((m) => m.key),
    });
  }
  return plan;
}

/** A cycle among the plan's milestones, as its path of keys (a → b → a), or undefined. */
export function findCycle(plan: readonly MilestoneFields[]): string[] | undefined {
  return findCycleAmong(new Map(plan.map((milestone) => [milestone.key, milestone.dependsOn])));
}

export function validatePlan(goal: GoalRecord, plan: readonly MilestoneFields[]): void {
  const keys = new Set<string>();
  for (const milestone of plan) {
    if (keys.has(milestone.key)) throw usageError(`milestones: key "${milestone.key}" is used twice`);
    keys.add(milestone.key);
  }
  for (const milestone of plan) {
    for (const proof of milestone.proofs) {
      if (!goal.proofs.some((item) => item.name === proof)) throw unknownProof(proof, goal.proofs);
    }
    for (const dependency of milestone.dependsOn) {
      if (!keys.has(dependency)) {
        throw usageError(
          `milestones.${milestone.key}.depends_on: no milestone "${dependency}" in this plan (keys: ${[...keys].join(", ")})`,
        );
      }
    }
  }
  const cycle = findCycle(plan);
  if (cycle) {
    throw refuse(
      "dag",
      `milestones form a cycle: ${cycle.join(" → ")}`,
      "remove one of those dependencies; milestones must form a DAG",
    );
  }
}

/**
 * Replace a goal's plan. Milestones are matched by key, so a re-plan keeps ids and task links;
 * a milestone that attempts already used cannot be dropped.
 */
export async function planMilestones(
  store: Store,
  goalId: string,
  inputs: MilestoneInput[] | undefined,
  actor: string,
  at: string,
  { link = ACTIVE_TASK_LINK, mayPlan = true }: { link?: MilestoneTaskLink; mayPlan?: boolean } = {},
): Promise<{ goal: GoalRecord; milestones: MilestoneRecord[]; drafted: boolean }> {
  return store.write(async (tx) => {
    const goal = await goalOrThrow(tx, goalId);
    // In the plan's own transaction: a re-plan sent while the owner freezes cannot pass a check
    // made before the freeze and land after it.
    await refuseReplanAfterFreeze(tx, goalId, mayPlan);
    requireGoalAuthor(goal, actor, mayPlan, "plan");
    const plan: MilestoneFields[] = inputs
      ? inputs.map((input) => ({
          key: input.key,
          title: input.title,
          description: input.description ?? "",
          proofs: input.proofs ?? [],
          dependsOn: input.depends_on ?? [],
        }))
      : draftPlan(goal);
    validatePlan(goal, plan);
    const existing = new Map(
      (await tx.goals.milestones(goalId)).map((milestone) => [milestone.key, milestone]),
    );
    const wanted = new Set(plan.map((milestone) => milestone.key));
    for (const [key, milestone] of existing) {
      if (wanted.has(key)) continue;
      const used = await tx.goals.attemptsUsingMilestone(milestone.id);
      if (used > 0) {
        throw refuse(
          "plan",
          `milestone ${key} (${milestone.id}) already has ${used} attempt(s) and cannot be dropped`,
          "keep it in the plan (you may change its title, proofs and dependencies)",
        );
      }
      await tx.goals.deleteMilestone(milestone.id);
      if (milestone.taskId) await link.detachTask(tx, milestone.taskId, milestone, at);
    }
    const taskOf = new Map<string, string>();
    for (const [position, fields] of plan.entries()) {
      const current = existing.get(fields.key);
      if (current) {
        await tx.goals.updateMilestone(current.id, fields, position);
        const updated = { ...current, ...fields, position };
        if (current.taskId) {
          await link.updateTask(tx, current.taskId, taskRequest(goal, updated, actor, at));
          taskOf.set(fields.key, current.taskId);
        }
        continue;
      }
      const created = await tx.goals.insertMilestone(goalId, fields, position, at);
      const taskId = await link.createTask(tx, taskRequest(goal, created, actor, at));
      if (taskId) {
        await tx.goals.linkMilestoneTask(created.id, taskId);
        taskOf.set(fields.key, taskId);
      }
    }
    // Second pass: a milestone may depend on one planned after it.
    const goalTasks = [...taskOf.values()];
    for (const fields of plan) {
      const taskId = taskOf.get(fields.key);
      if (!taskId) continue;
      const dependsOn = fields.dependsOn.flatMap((key) => taskOf.get(key) ?? []);
      await link.setDependencies(tx, taskId, dependsOn, goalTasks, at);
    }
    const milestones = await tx.goals.milestones(goalId);
    await tx.journal.append({
      at,
      actor,
      action: "goal.plan",
      subject: goalId,
      data: { milestones: milestones.map((m) => ({ id: m.id, key: m.key, depends_on: m.dependsOn })) },
    });
    return { goal, milestones, drafted: inputs === undefined };
  });
}

/**
 * A plan decides which proofs gate each milestone, so replacing one needs `mayPlan`: after a
 * freeze, and before it too. A builder holding a milestone's task re-planned the goal before
 * the freeze, its milestone left the plan, and its task, no longer linked, finished with no
 * kept attempt. A goal's first plan is anyone's draft.
 */
async function refuseReplanAfterFreeze(tx: Tx, goalId: string, mayPlan: boolean): Promise<void> {
  if (mayPlan) return;
  const frozen = (await tx.goals.runs(goalId)).at(-1);
  if (frozen) {
    throw refuse(
      "planning",
      `${goalId} has a frozen run (${frozen.id}): re-planning moves proofs between milestones, which only the workspace owner or a role granted planning may do`,
      "ask the owner to re-plan, or to set `planning = true` on your role in cairn.toml",
    );
  }
  if ((await tx.goals.milestones(goalId)).length > 0) {
    throw refuse(
      "planning",
      `${goalId} already has a plan: re-planning moves proofs between milestones and unlinks their tasks, which only the workspace owner or a role granted planning may do`,
      "work the milestones as planned, or ask the owner to re-plan",
    );
  }
}
