import { z } from "zod";
import { canPlan } from "../../domains/goals/authority.js";
import {
  createGoal,
  goalIdsStartingWith,
  goalOrThrow,
  openQuestions,
  ProofInput,
  updateGoal,
} from "../../domains/goals/contract.js";
import { MilestoneInput, planMilestones } from "../../domains/goals/milestones.js";
import { nextMilestone } from "../../domains/goals/next.js";
import { requireGit } from "../../domains/goals/refusals.js";
import { milestoneGate } from "../../domains/goals/task-link.js";
import type { GoalRecord } from "../../store/store.js";
import { defineCommand } from "../define.js";
import { verbatim } from "../field-text.js";
import { IdsOutput, idsInput, MAX_IDS, renderIds, shortId } from "../ids.js";
import { Goal, goalView, Milestone, milestoneView } from "./views.js";

const questions = (goal: GoalRecord) => {
  const { blocking, advisory } = openQuestions(goal);
  return { to_fill_in: blocking, to_consider: advisory };
};

const Questions = {
  to_fill_in: z.array(z.string()).describe("must be set before `run freeze`"),
  to_consider: z.array(z.string()),
};

const renderGoal = (out: { goal: z.infer<typeof Goal>; to_fill_in: string[]; to_consider: string[] }) => {
  const g = out.goal;
  const lines = [
    `${g.id}: ${g.goal}`,
    `outcome: ${g.outcome ?? "(to fill in)"}`,
    `constraints: ${g.constraints.join("; ") || "(none)"}`,
    `non-goals: ${g.non_goals.join("; ") || "(none)"}`,
    "proofs:",
    ...g.proofs.map(
      (p) =>
        `  ${p.name.padEnd(12)} ${p.direction === "higher" ? "≥" : "≤"} ${p.threshold ?? "?"}${p.manual ? " (manual)" : ""}  ${p.description}`,
    ),
  ];
  if (out.to_fill_in.length > 0)
    lines.push("still to fill in:", ...out.to_fill_in.map((item) => `  - ${item}`));
  return lines.join("\n");
};

export const goalCreate = defineCommand({
  name: "goal create",
  summary:
    "Draft a goal contract from a vague goal (keyword rules, no model); then refine it with goal update",
  effect: "write",
  positional: ["goal"],
  input: z.object({
    goal: z.string().min(1).describe("the goal in a sentence, e.g. 'make search fast and tested'"),
  }),
  output: z.object({ goal: Goal, matched: z.array(z.string()), ...Questions }),
  async handler(input, ctx) {
    const { goal, matched } = await createGoal(ctx.store, input.goal, ctx.actor.id, ctx.now());
    return { goal: goalView(goal), matched, ...questions(goal) };
  },
  render: (out) => `${renderGoal(out)}\nmatched: ${out.matched.join(", ")}`,
});

export const goalUpdate = defineCommand({
  name: "goal update",
  summary:
    "Refine a goal contract: outcome, constraints, non-goals, proofs (upserted by name); after a freeze, proofs need the owner or a planner",
  effect: "write",
  positional: ["id"],
  flagHelp: {
    goal: "the goal's text, restated",
    outcome: "what is true once the goal is met",
    remove_proofs: "a proof to remove, by name",
  },
  input: z.object({
    id: shortId("G").describe("goal id, e.g. G-1"),
    goal: z.string().optional(),
    outcome: z.string().optional(),
    constraints: z.array(z.string()).optional().describe("replaces the list"),
    non_goals: z.array(z.string()).optional().describe("replaces the list"),
    proofs: z.array(ProofInput).optional().describe("added or changed by name; JSON objects on the CLI"),
    remove_proofs: z.array(z.string()).optional(),
  }),
  output: z.object({ goal: Goal, ...Questions }),
  async handler(input, ctx) {
    const { id, ...changes } = input;
    const goal = await updateGoal(
      ctx.store,
      id,
      changes,
      ctx.actor.id,
      ctx.now(),
      canPlan(ctx.actor, ctx.config),
    );
    return { goal: goalView(goal), ...questions(goal) };
  },
  render: renderGoal,
});

export const goalShow = defineCommand({
  name: "goal show",
  summary: "A goal contract with its milestones, runs and contract history (who changed what, when)",
  effect: "read",
  positional: ["id"],
  input: z.object({ id: shortId("G").describe("goal id") }),
  output: z.object({
    goal: Goal,
    milestones: z.array(Milestone),
    runs: z.array(z.object({ id: z.string(), manifest_hash: z.string(), created_at: z.string() })),
    history: z.array(
      z.object({
        changed_by: z.string(),
        at: z.string(),
        fields: z.array(z.string()),
        before: z.record(z.string(), z.unknown()),
        after: z.record(z.string(), z.unknown()),
      }),
    ),
    ...Questions,
  }),
  async handler(input, ctx) {
    return ctx.store.read(async (tx) => {
      const goal = await goalOrThrow(tx, input.id);
      const milestones = await tx.goals.milestones(goal.id);
      const runs = await tx.goals.runs(goal.id);
      return {
        goal: goalView(goal),
        milestones: milestones.map(milestoneView),
        runs: runs.map((run) => ({ id: run.id, manifest_hash: run.manifestHash, created_at: run.createdAt })),
        history: (await tx.goals.contractChanges(goal.id)).map((change) => ({
          changed_by: change.changedBy,
          at: change.at,
          fields: change.fields,
          before: change.before as unknown as Record<string, unknown>,
          after: change.after as unknown as Record<string, unknown>,
        })),
        ...questions(goal),
      };
    });
  },
  render: (out) =>
    `${renderGoal(out)}\nmilestones:\n${out.milestones.map((m) => `  ${m.id} ${m.key}: ${m.title} [${m.proofs.join(", ")}]${m.depends_on.length ? ` after ${m.depends_on.join(", ")}` : ""}${m.task_id ? ` → ${m.task_id}` : ""}`).join("\n") || "  (none: goal plan)"}\nruns: ${out.runs.map((r) => r.id).join(", ") || "(none: run freeze)"}\nhistory:\n${out.history.map((h) => `  ${h.at} ${h.changed_by}: ${h.fields.join(", ")}`).join("\n") || "  (no changes)"}`,
});

/** Goals per page of `goal list`, and the most one page holds (each reads a contract of up to 1 MiB). */
const GOALS_PAGE = 50;
const GOALS_PAGE_MAX = 200;

export const goalList = defineCommand({
  name: "goal list",
  summary: "The goals, first made first, with their proofs and what is still to fill in; paged",
  effect: "read",
  input: z.object({
    limit: z.number().int().min(1).max(GOALS_PAGE_MAX).optional().describe(`default ${GOALS_PAGE}`),
    offset: z.number().int().min(0).optional(),
  }),
  output: z.object({
    goals: z.array(
      z.object({
        id: z.string(),
        goal: z.string(),
        proofs: z.array(z.string()),
        open: z.number(),
        updated_at: z.string(),
      }),
    ),
    total: z.number(),
    next_offset: z.number().nullable(),
  }),
  async handler(input, ctx) {
    const offset = input.offset ?? 0;
    // A page at a time: every goal read whole (a contract of up to 1 MiB each, and any writer
    // makes goals) took seconds and hundreds of MB per look once there were a few hundred.
    const { goals, total } = await ctx.store.read((tx) =>
      tx.goals.goals({ limit: input.limit ?? GOALS_PAGE, offset }),
    );
    return {
      goals: goals.map((goal) => ({
        id: goal.id,
        goal: goal.goal,
        proofs: goal.proofs.map((proof) => proof.name),
        open: openQuestions(goal).blocking.length,
        updated_at: goal.updatedAt,
      })),
      total,
      next_offset: offset + goals.length < total ? offset + goals.length : null,
    };
  },
  render: (out) =>
    out.total === 0
      ? 'No goals yet: `cairn goal create "..."`.'
      : [
          ...out.goals.map(
            (g) =>
              `${g.id.padEnd(6)} ${g.goal}  [${g.proofs.join(", ")}]${g.open ? ` (${g.open} to fill in)` : ""}`,
          ),
          ...(out.next_offset !== null || out.goals.length < out.total
            ? [
                `(${out.goals.length} of ${out.total}${out.next_offset !== null ? `; next: --offset ${out.next_offset}` : ""})`,
              ]
            : []),
        ].join("\n"),
});

export const goalIds = defineCommand({
  name: "goal ids",
  summary: "Goal ids starting with what was typed (G-1, g-1 or 1), lowest first: for completion",
  effect: "read",
  positional: ["prefix"],
  input: idsInput("goal"),
  output: IdsOutput,
  async handler(input, ctx) {
    return goalIdsStartingWith(ctx.store, input.prefix ?? "", input.limit ?? MAX_IDS);
  },
  render: renderIds,
});

export const goalPlan = defineCommand({
  name: "goal plan",
  summary:
    "Plan a goal's milestones as a DAG: drafted from the contract, or given (replaces the plan; cycles refused)",
  effect: "write",
  positional: ["id"],
  input: z.object({
    id: shortId("G").describe("goal id"),
    milestones: z.array(MilestoneInput).optional().describe("the whole plan; omit to draft one"),
  }),
  output: z.object({ goal_id: z.string(), drafted: z.boolean(), milestones: z.array(Milestone) }),
  async handler(input, ctx) {
    await requireGit(ctx.workspace.root, "plan a goal");
    const planned = await planMilestones(ctx.store, input.id, input.milestones, ctx.actor.id, ctx.now(), {
      mayPlan: canPlan(ctx.actor, ctx.config),
    });
    return {
      goal_id: planned.goal.id,
      drafted: planned.drafted,
      milestones: planned.milestones.map(milestoneView),
    };
  },
  render: (out) =>
    out.milestones
      .map(
        (m) =>
          `${m.id} ${m.key}: ${m.title} [${m.proofs.join(", ")}]${m.depends_on.length ? ` after ${m.depends_on.join(", ")}` : ""}${m.task_id ? ` → task ${m.task_id}` : ""}`,
      )
      .join("\n"),
});

export const goalNext = defineCommand({
  name: "goal next",
  summary: "The next milestone whose dependencies are kept, with its task and a ready-to-use prompt",
  effect: "read",
  positional: ["id"],
  input: z.object({ id: shortId("G").describe("goal id") }),
  output: z.object({
    milestone: Milestone.nullable(),
    task_id: z.string().nullable(),
    run_id: z.string().nullable(),
    prompt: z.string().nullable(),
    note: z.string(),
  }),
  async handler(input, ctx) {
    const next = await nextMilestone(ctx.store, input.id);
    return {
      milestone: next.milestone ? milestoneView(next.milestone) : null,
      task_id: next.milestone?.taskId ?? null,
      run_id: next.run?.id ?? null,
      prompt: next.prompt,
      note: next.note,
    };
  },
  render: (out) => (out.prompt ? verbatim(out.prompt) : out.note),
});

export const goalGate = defineCommand({
  name: "goal gate",
  summary: "Whether a milestone's task may be finished: it needs a kept attempt",
  effect: "read",
  positional: ["milestone"],
  input: z.object({ milestone: shortId("M").describe("milestone id, e.g. M-1") }),
  output: z.object({
    milestone_id: z.string(),
    pass: z.boolean(),
    attempt_id: z.string().nullable(),
    reason: z.string().nullable(),
    next: z.string().nullable(),
  }),
  async handler(input, ctx) {
    const gate = await milestoneGate(ctx.store, input.milestone);
    return gate.pass
      ? { milestone_id: input.milestone, pass: true, attempt_id: gate.attemptId, reason: null, next: null }
      : {
          milestone_id: input.milestone,
          pass: false,
          attempt_id: null,
          reason: gate.refusal.reason,
          next: gate.refusal.next,
        };
  },
});
