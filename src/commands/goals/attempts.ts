import { z } from "zod";
import { attemptOrThrow, describeReport, openAttempt, reportScores } from "../../domains/goals/attempts.js";
import { readsHoldouts } from "../../domains/goals/authority.js";
import type { Decision } from "../../domains/goals/decide.js";
import { evalAttempt } from "../../domains/goals/evaluate.js";
import type { EvaluatorDefinition } from "../../domains/goals/evaluators/definition.js";
import { planRevert, revertAttempt, revertSummary } from "../../domains/goals/revert.js";
import { runOrThrow } from "../../domains/goals/runs.js";
import { decideAttempt } from "../../domains/goals/verdict.js";
import { defineCommand } from "../define.js";
import { shortId } from "../ids.js";
import { Attempt, attemptView, DecisionView, decisionView, hooksSaid, Sample, sampleView } from "./views.js";

const hiddenNames = (manifest: { name: string; definition: Record<string, unknown> }[]) =>
  new Set(manifest.filter((e) => (e.definition as unknown as EvaluatorDefinition).hidden).map((e) => e.name));

export const attemptOpen = defineCommand({
  name: "attempt open",
  summary:
    "Open an attempt on a frozen run in this checkout (a linked worktree is its own), recording its git base; one open attempt per checkout",
  effect: "write",
  positional: ["run"],
  input: z.object({
    run: shortId("R").describe("run id"),
    milestone: shortId("M").optional().describe("milestone id this attempt works on"),
    allow_input_changes: z
      .boolean()
      .optional()
      .describe(
        "owner or planner only: the attempt may change frozen inputs; it can then reach review, never keep",
      ),
  }),
  output: z.object({ attempt: Attempt }),
  async handler(input, ctx) {
    const attempt = await openAttempt(
      ctx.store,
      ctx.workspace.root,
      ctx.cwd,
      input.run,
      input.milestone,
      ctx.actor,
      ctx.config,
      { allowInputChanges: input.allow_input_changes },
      ctx.now(),
    );
    return { attempt: attemptView(attempt) };
  },
  render: (out) =>
    `Opened ${out.attempt.id} on ${out.attempt.run_id} at ${out.attempt.base_head?.slice(0, 12) ?? "(no commit)"} in ${out.attempt.checkout}${out.attempt.base_dirty ? ` (dirty: ${out.attempt.base_changes.join(", ")})` : ""}`,
});

export const attemptEval = defineCommand({
  name: "attempt eval",
  supervises: true,
  summary:
    "Run every frozen evaluator in the attempt's checkout (numbers also on its base, in the same session) and store each sample",
  effect: "write",
  positional: ["attempt"],
  input: z.object({ attempt: shortId("AT").describe("attempt id, e.g. AT-1") }),
  output: z.object({
    attempt_id: z.string(),
    cancelled: z.boolean(),
    samples: z.array(Sample),
    input_drift: z.array(z.string()).describe("frozen inputs found changed: the attempt cannot be kept"),
  }),
  async handler(input, ctx) {
    const result = await evalAttempt(ctx.store, ctx.workspace.root, input.attempt, ctx.actor, ctx.now, {
      signal: ctx.signal,
      progress: ctx.progress,
    });
    const hidden = hiddenNames(result.run.manifest);
    return {
      attempt_id: input.attempt,
      cancelled: result.cancelled,
      samples: result.samples.map((s) => sampleView(s, hidden.has(s.evaluator), readsHoldouts(ctx))),
      input_drift: result.inputDrift,
    };
  },
  render: (out) =>
    [
      ...out.samples.map(
        (s) =>
          `${s.evaluator.padEnd(18)} ${s.side === "base" ? "base   " : "attempt"} #${s.repeat + 1} exit=${s.exit_code ?? "-"} value=${s.value ?? "-"} ${s.duration_ms} ms${s.error ? `  ${s.error}` : ""}`,
      ),
      ...(out.input_drift.length > 0
        ? [`frozen inputs changed (this attempt cannot be kept): ${out.input_drift.join(", ")}`]
        : []),
      out.cancelled
        ? "cancelled: the evidence above was kept"
        : `next: cairn attempt decide ${out.attempt_id}`,
    ].join("\n"),
});

export const renderDecision = (out: z.infer<typeof DecisionView>) =>
  [
    `${out.attempt_id}: ${out.verdict.toUpperCase()}${keptText(out)}`,
    ...out.reasons.map((reason) => `  - ${reason}`),
    ...out.warnings.map((warning) => `  ! ${warning} (not required: does not gate)`),
    ...out.proofs.map(
      (p) =>
        `  ${p.name.padEnd(12)} ${p.passed ? "pass" : "FAIL"} score=${p.score.toFixed(2)} (${p.source})${p.required ? "" : " not required"}`,
    ),
    ...(out.next ? [`next: ${out.next}`] : []),
  ].join("\n");

/** "kept as commit" only when a commit was made; hooks skipped said plainly, with the other way. */
function keptText(out: z.infer<typeof DecisionView>): string {
  if (out.verdict !== "keep") return "";
  if (!out.kept_commit) return " (nothing to commit: the tree already holds what was measured)";
  return ` (kept as commit ${out.kept_commit.slice(0, 12)}${hooksSaid(out.hooks)})`;
}

export const attemptDecide = defineCommand({
  name: "attempt decide",
  supervises: true,
  summary:
    "Score each proof from cairn's evidence: keep | revert | review. Keep commits the attempt's own changes, skipping commit hooks unless --run-hooks",
  effect: "write",
  positional: ["attempt"],
  input: z.object({
    attempt: shortId("AT").describe("attempt id"),
    run_hooks: z.boolean().optional().describe("on keep, run the commit hooks (default: --no-verify)"),
  }),
  output: DecisionView,
  async handler(input, ctx) {
    const { decision } = await decideAttempt(
      ctx.store,
      ctx.workspace.root,
      input.attempt,
      ctx.actor.id,
      ctx.now(),
      {
        runHooks: input.run_hooks,
        signal: ctx.signal,
        scope: { config: ctx.config, decider: ctx.actor },
        caller: ctx.actor,
      },
    );
    return decisionView(input.attempt, decision, readsHoldouts(ctx));
  },
  render: renderDecision,
});

export const attemptShow = defineCommand({
  name: "attempt show",
  summary: "An attempt: its base, its evidence and its decision",
  effect: "read",
  positional: ["attempt"],
  input: z.object({ attempt: shortId("AT").describe("attempt id") }),
  output: z.object({ attempt: Attempt, samples: z.array(Sample), decision: DecisionView.nullable() }),
  async handler(input, ctx) {
    return ctx.store.read(async (tx) => {
      const attempt = await attemptOrThrow(tx, input.attempt);
      const run = await runOrThrow(tx, attempt.runId);
      const hidden = hiddenNames(run.manifest);
      const owner = readsHoldouts(ctx);
      const samples = await tx.goals.samples(attempt.id);
      return {
        attempt: attemptView(attempt),
        samples: samples.map((s) => sampleView(s, hidden.has(s.evaluator), owner)),
        decision: attempt.decision
          ? decisionView(attempt.id, attempt.decision as unknown as Decision, owner)
          : null,
      };
    });
  },
});

export const attemptReport = defineCommand({
  name: "attempt report",
  judgment: true,
  summary:
    "Report scores in [0,1] for the contract's manual proofs: an agent's is a self-report (review at best), the owner's a judgment",
  effect: "write",
  positional: ["attempt"],
  input: z.object({
    attempt: shortId("AT").describe("attempt id"),
    scores: z
      .record(z.string(), z.number())
      .describe('manual proof name → score in [0,1], e.g. {"review":0.9}'),
  }),
  output: z.object({ attempt_id: z.string(), recorded: z.record(z.string(), z.number()) }),
  personSees: (input, ctx) => describeReport(ctx.store, input.attempt, input.scores),
  async handler(input, ctx) {
    const { scores } = await reportScores(ctx.store, input.attempt, input.scores, ctx.actor.id, ctx.now());
    return { attempt_id: input.attempt, recorded: scores };
  },
});

export const attemptRevert = defineCommand({
  name: "attempt revert",
  summary:
    "Undo only the attempt's own changes in its checkout (destructive); refused if HEAD moved since it opened: it never discards a commit",
  effect: "destructive",
  positional: ["attempt"],
  input: z.object({
    attempt: shortId("AT").describe("attempt id"),
    confirm: z.boolean().optional().describe("required: this discards the attempt's changes"),
  }),
  output: z.object({
    attempt_id: z.string(),
    base: z.string(),
    checkout: z.string(),
    discarded: z.array(z.string()).describe("every file restored to the base or removed"),
    left_alone: z.array(z.string()).describe("changes that predate the attempt, untouched"),
    repositories: z
      .array(z.string())
      .describe(
        "folders holding a git repository of their own, left in place: their commits are never discarded",
      ),
    commits: z.array(z.string()).describe("commits touched: always none"),
    interrupted: z
      .array(z.object({ at: z.string(), discarding: z.array(z.string()) }))
      .optional()
      .describe(
        "earlier reverts of it stopped after git began restoring and before they were recorded: what each was discarding",
      ),
  }),
  // The person agreeing reads which files go, planned (and refused) as the revert plans it.
  personSees: async (input, ctx) =>
    revertSummary(await planRevert(ctx.store, ctx.workspace.root, input.attempt, ctx.actor)),
  async handler(input, ctx) {
    const reverted = await revertAttempt(ctx.store, ctx.workspace.root, input.attempt, ctx.actor, ctx.now());
    return {
      attempt_id: input.attempt,
      base: reverted.base,
      checkout: reverted.checkout,
      discarded: reverted.discarded,
      left_alone: reverted.leftAlone,
      repositories: reverted.repositories,
      commits: reverted.commits,
      ...(reverted.interrupted.length > 0 ? { interrupted: reverted.interrupted } : {}),
    };
  },
  render: (out) =>
    [
      `Reverted ${out.attempt_id} in ${out.checkout} to ${out.base.slice(0, 12)}; no commit touched`,
      `discarded: ${out.discarded.join(", ") || "(nothing)"}`,
      ...(out.left_alone.length > 0 ? [`left alone (they predate it): ${out.left_alone.join(", ")}`] : []),
      ...(out.repositories.length > 0
        ? [
            `left in place, each a git repository of its own whose commits revert never discards (remove one yourself if the attempt made it): ${out.repositories.join(", ")}`,
          ]
        : []),
      ...(out.interrupted ?? []).map(
        (earlier) =>
          `an earlier revert, started ${earlier.at}, stopped before it was recorded, discarding: ${earlier.discarding.join(", ") || "(nothing)"}`,
      ),
    ].join("\n"),
});
