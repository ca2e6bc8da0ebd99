import { z } from "zod";
import type { Decision } from "../../domains/goals/decide.js";
import { type EvaluatorDefinition, matchOf } from "../../domains/goals/evaluators/definition.js";
import type {
  AttemptRecord,
  GoalRecord,
  MilestoneRecord,
  RunRecord,
  SampleRecord,
} from "../../store/store.js";

/**
 * JSON shapes of the goals domain and the one rule every view applies: a hidden evaluator's
 * command and output are shown to the workspace owner only; building agents see pass/fail.
 */

export const Proof = z.object({
  name: z.string(),
  direction: z.enum(["higher", "lower"]),
  threshold: z.number().nullable(),
  manual: z.boolean(),
  description: z.string(),
});

export const Goal = z.object({
  id: z.string(),
  goal: z.string(),
  outcome: z.string().nullable(),
  constraints: z.array(z.string()),
  non_goals: z.array(z.string()),
  proofs: z.array(Proof),
  created_by: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});

export const goalView = (goal: GoalRecord): z.infer<typeof Goal> => ({
  id: goal.id,
  goal: goal.goal,
  outcome: goal.outcome,
  constraints: goal.constraints,
  non_goals: goal.nonGoals,
  proofs: goal.proofs,
  created_by: goal.createdBy,
  created_at: goal.createdAt,
  updated_at: goal.updatedAt,
});

export const Milestone = z.object({
  id: z.string(),
  key: z.string(),
  title: z.string(),
  description: z.string(),
  proofs: z.array(z.string()),
  depends_on: z.array(z.string()),
  task_id: z.string().nullable(),
});

export const milestoneView = (milestone: MilestoneRecord): z.infer<typeof Milestone> => ({
  id: milestone.id,
  key: milestone.key,
  title: milestone.title,
  description: milestone.description,
  proofs: milestone.proofs,
  depends_on: milestone.dependsOn,
  task_id: milestone.taskId,
});

export const FrozenEvaluator = z.object({
  name: z.string(),
  proof: z.string(),
  source: z.string(),
  hash: z.string(),
  hidden: z.boolean(),
  argv: z.array(z.string()).nullable().describe("null for a hidden evaluator unless you are the owner"),
  read: z.string(),
  pattern: z.string().nullable().describe("the regex a number is read with (read = regex)"),
  match: z
    .enum(["last", "only"])
    .nullable()
    .describe("which regex matches count: the last, or only (every match reads one number)"),
  json_path: z.string().nullable().describe("the path a number is read from (read = json)"),
  direction: z.enum(["higher", "lower"]),
  threshold: z.number().nullable().describe("null for a hidden evaluator unless you are the owner"),
  repeats: z.number(),
  timeout_seconds: z.number(),
  noisy: z.boolean(),
  inputs: z
    .array(z.string())
    .nullable()
    .describe("files frozen with it (content-hashed); an attempt changing one is never kept"),
  path: z
    .array(z.string())
    .nullable()
    .describe("folders its programs are found in first, as PATH was at the freeze; null before runs kept it"),
  home: z.string().nullable().describe("the HOME its tools read user configuration from, as at the freeze"),
});

export const Run = z.object({
  id: z.string(),
  goal_id: z.string(),
  manifest_hash: z.string(),
  evaluators: z.array(FrozenEvaluator),
  created_by: z.string(),
  created_at: z.string(),
});

export function runView(run: RunRecord, owner: boolean): z.infer<typeof Run> {
  return {
    id: run.id,
    goal_id: run.goalId,
    manifest_hash: run.manifestHash,
    evaluators: run.manifest.map((entry) => {
      const definition = entry.definition as unknown as EvaluatorDefinition;
      const hidden = definition.hidden === true;
      return {
        name: entry.name,
        proof: entry.proof,
        source: hidden && !owner ? "(hidden)" : entry.source,
        hash: entry.hash,
        hidden,
        argv: hidden && !owner ? null : definition.argv,
        read: definition.read,
        pattern: hidden && !owner ? null : (definition.pattern ?? null),
        match: hidden && !owner ? null : matchOf(definition),
        json_path: hidden && !owner ? null : (definition.json_path ?? null),
        direction: definition.direction ?? "higher",
        // The bar a holdout sets is part of it: a builder that knew it could aim at it.
        threshold: hidden && !owner ? null : (definition.threshold ?? null),
        repeats: definition.repeats,
        timeout_seconds: definition.timeout_seconds,
        noisy: definition.noisy === true,
        inputs: hidden && !owner ? null : Object.keys(entry.inputs?.files ?? {}),
        path: entry.path ?? null,
        home: entry.home ?? null,
      };
    }),
    created_by: run.createdBy,
    created_at: run.createdAt,
  };
}

export const Attempt = z.object({
  id: z.string(),
  run_id: z.string(),
  milestone_id: z.string().nullable(),
  base_head: z.string().nullable(),
  base_dirty: z.boolean(),
  base_changes: z.array(z.string()).describe("paths already changed when the attempt opened"),
  opened_by: z.string(),
  opened_at: z.string(),
  verdict: z.enum(["keep", "revert", "review"]).nullable(),
  decided_at: z.string().nullable(),
  reverted_at: z.string().nullable(),
  checkout: z.string().nullable().describe("the directory it evaluates, keeps and reverts in"),
  inputs_approved_by: z.string().nullable(),
  resolution: z
    .object({
      outcome: z.enum(["accepted", "rejected"]),
      by: z.string(),
      at: z.string(),
      reason: z.string().nullable(),
      kept_commit: z.string().nullable(),
    })
    .nullable()
    .describe("how the owner settled a review"),
});

export const attemptView = (attempt: AttemptRecord): z.infer<typeof Attempt> => ({
  id: attempt.id,
  run_id: attempt.runId,
  milestone_id: attempt.milestoneId,
  base_head: attempt.baseHead,
  base_dirty: attempt.baseDirty,
  base_changes: attempt.baseChanges,
  opened_by: attempt.openedBy,
  opened_at: attempt.openedAt,
  verdict: attempt.verdict,
  decided_at: attempt.decidedAt,
  reverted_at: attempt.revertedAt,
  checkout: attempt.checkout,
  inputs_approved_by: attempt.inputsApprovedBy,
  resolution: attempt.resolution
    ? {
        outcome: attempt.resolution.outcome,
        by: attempt.resolution.by,
        at: attempt.resolution.at,
        reason: attempt.resolution.reason,
        kept_commit: attempt.resolution.keptCommit,
      }
    : null,
});

export const Sample = z.object({
  evaluator: z.string(),
  proof: z.string(),
  hidden: z.boolean(),
  repeat: z.number(),
  exit_code: z.number().nullable(),
  value: z.number().nullable(),
  error: z.string().nullable(),
  duration_ms: z.number(),
  output_tail: z.string().nullable(),
  output_hash: z.string().nullable(),
  git_head: z.string().nullable(),
  side: z.enum(["attempt", "base"]).describe("base: the attempt's base, measured in the same session"),
});

export function sampleView(sample: SampleRecord, hidden: boolean, owner: boolean): z.infer<typeof Sample> {
  const withhold = hidden && !owner;
  return {
    evaluator: withhold ? "(hidden)" : sample.evaluator,
    proof: sample.proof,
    hidden,
    repeat: sample.repeatIndex,
    exit_code: withhold ? null : sample.exitCode,
    value: withhold ? null : sample.value,
    error: withhold ? null : sample.error,
    duration_ms: Math.round(sample.durationMs * 10) / 10,
    output_tail: withhold ? null : sample.outputTail,
    output_hash: withhold ? null : sample.outputHash,
    git_head: sample.gitHead,
    side: sample.side,
  };
}

export const DecisionView = z.object({
  attempt_id: z.string(),
  verdict: z.enum(["keep", "revert", "review"]),
  reasons: z.array(z.string()),
  warnings: z.array(z.string()).describe("evaluators the milestone does not require: they never gate"),
  next: z.string().nullable().describe("what to do after a revert or review verdict"),
  touched_inputs: z.array(z.object({ path: z.string(), evaluators: z.array(z.string()) })),
  proofs: z.array(
    z.object({
      name: z.string(),
      required: z.boolean(),
      source: z.enum(["measured", "self_reported", "owner_judgment", "missing"]),
      passed: z.boolean(),
      score: z.number().min(0).max(1),
    }),
  ),
  evaluators: z.array(
    z.object({
      name: z.string(),
      proof: z.string(),
      hidden: z.boolean(),
      passed: z.boolean(),
      mean: z.number().nullable(),
      noise: z.number().nullable(),
      threshold: z.number().nullable(),
      samples: z.number(),
      errors: z.array(z.string()),
      against_base: z
        .object({
          base_median: z.number(),
          attempt_median: z.number(),
          shift: z.number().describe("how much worse than the base, in the evaluator's units"),
          min_effect: z.number(),
          p_value: z.number(),
          regression: z.boolean(),
          test: z.string(),
        })
        .nullable(),
    }),
  ),
  kept_commit: z.string().nullable().describe("set only when a commit was made"),
  hooks: z
    .enum(["ran", "skipped"])
    .nullable()
    .describe("commit hooks on keep: skipped unless run_hooks was set"),
});

export function decisionView(
  attemptId: string,
  decision: Decision,
  owner: boolean,
): z.infer<typeof DecisionView> {
  const hiddenNames = new Set(decision.evaluators.filter((summary) => summary.hidden).map((s) => s.name));
  return {
    attempt_id: attemptId,
    verdict: decision.verdict,
    reasons: decision.reasons,
    warnings: decision.warnings ?? [],
    next: decision.next ?? null,
    touched_inputs: (decision.touchedInputs ?? []).map((item) => ({
      path: item.path,
      evaluators: owner
        ? item.evaluators
        : [...new Set(item.evaluators.map((name) => (hiddenNames.has(name) ? "(hidden)" : name)))],
    })),
    // A measured proof's score is the lowest of its evaluators': where a holdout's counts, anyone
    // but the owner gets the visible evaluators' score, or only pass/fail, never its number.
    proofs: decision.proofs.map((proof) => {
      const mine = decision.evaluators.filter(
        (summary) => summary.proof === proof.name && summary.samples > 0,
      );
      if (owner || proof.source !== "measured" || !mine.some((summary) => summary.hidden)) return proof;
      const visible = mine.filter((summary) => !summary.hidden);
      const score =
        visible.length > 0 ? Math.min(...visible.map((summary) => summary.score)) : proof.passed ? 1 : 0;
      return { ...proof, score };
    }),
    evaluators: decision.evaluators.map((summary) => {
      const withhold = summary.hidden && !owner;
      return {
        name: withhold ? "(hidden)" : summary.name,
        proof: summary.proof,
        hidden: summary.hidden,
        passed: summary.passed,
        mean: withhold ? null : summary.mean,
        noise: withhold ? null : summary.noise,
        threshold: withhold ? null : summary.threshold,
        samples: summary.samples,
        errors: withhold ? [] : summary.errors,
        against_base:
          withhold || !summary.comparison
            ? null
            : {
                base_median: summary.comparison.baseMedian,
                attempt_median: summary.comparison.attemptMedian,
                shift: summary.comparison.shift,
                min_effect: summary.comparison.minEffect,
                p_value: summary.comparison.pValue,
                regression: summary.comparison.regression,
                test: summary.comparison.test,
              },
      };
    }),
    kept_commit: decision.keptCommit ?? null,
    hooks: decision.hooks ?? null,
  };
}

/** What a keep's commit says of its hooks; none recorded: an earlier decide made the commit. */
export function hooksSaid(hooks: string | null | undefined): string {
  if (hooks === "skipped") return "; commit hooks skipped — pass --run-hooks to run them";
  if (hooks === "ran") return "; commit hooks ran";
  return "; committed by an earlier decide that ended before recording it";
}
