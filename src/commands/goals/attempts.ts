import { z } from "zod";
import {
  attemptOrThrow,
  decideAttempt,
  evalAttempt,
  openAttempt,
  reportScores,
  revertAttempt,
} from "../../domains/goals/attempts.js";
import type { Decision } from "../../domains/goals/decide.js";
import type { EvaluatorDefinition } from "../../domains/goals/evaluators/definition.js";
import { runOrThrow } from "../../domains/goals/runs.js";
import { defineCommand } from "../define.js";
import { Attempt, attemptView, DecisionView, decisionView, Sample, sampleView } from "./views.js";

const hiddenNames = (manifest: { name: string; definition: Record<string, unknown> }[]) =>
  new Set(manifest.filter((e) => (e.definition as unknown as EvaluatorDefinition).hidden).map((e) => e.name));

export const attemptOpen = defineCommand({
  name: "attempt open",
  summary: "Open an attempt on a frozen run, recording the git base (HEAD, dirty paths)",
  effect: "write",
  positional: ["run"],
  input: z.object({
    run: z.string().describe("run id"),
    milestone: z.string().optional().describe("milestone id this attempt works on"),
  }),
  output: z.object({ attempt: Attempt }),
  async handler(input, ctx) {
    const attempt = await openAttempt(
      ctx.store,
      ctx.workspace.root,
      input.run,
      input.milestone,
      ctx.actor.id,
      ctx.now(),
    );
    return { attempt: attemptView(attempt) };
  },
  render: (out) =>
    `Opened ${out.attempt.id} on ${out.attempt.run_id} at ${out.attempt.base_head?.slice(0, 12) ?? "(no commit)"}${out.attempt.base_dirty ? ` (dirty: ${out.attempt.base_changes.join(", ")})` : ""}`,
});

export const attemptEval = defineCommand({
  name: "attempt eval",
  summary:
    "Run every frozen evaluator of the attempt's run (repeats, timeouts) and store each sample as evidence",
  effect: "write",
  positional: ["attempt"],
  input: z.object({ attempt: z.string().describe("attempt id, e.g. AT-1") }),
  output: z.object({ attempt_id: z.string(), cancelled: z.boolean(), samples: z.array(Sample) }),
  async handler(input, ctx) {
    const result = await evalAttempt(ctx.store, ctx.workspace.root, input.attempt, ctx.actor.id, ctx.now, {
      signal: ctx.signal,
      progress: ctx.progress,
    });
    const hidden = hiddenNames(result.run.manifest);
    return {
      attempt_id: input.attempt,
      cancelled: result.cancelled,
      samples: result.samples.map((s) => sampleView(s, hidden.has(s.evaluator), ctx.actor.isOwner)),
    };
  },
  render: (out) =>
    [
      ...out.samples.map(
        (s) =>
          `${s.evaluator.padEnd(18)} #${s.repeat + 1} exit=${s.exit_code ?? "-"} value=${s.value ?? "-"} ${s.duration_ms} ms${s.error ? `  ${s.error}` : ""}`,
      ),
      out.cancelled
        ? "cancelled: the evidence above was kept"
        : `next: cairn attempt decide ${out.attempt_id}`,
    ].join("\n"),
});

const renderDecision = (out: z.infer<typeof DecisionView>) =>
  [
    `${out.attempt_id}: ${out.verdict.toUpperCase()}${out.kept_commit ? ` (kept as commit ${out.kept_commit.slice(0, 12)})` : ""}`,
    ...out.reasons.map((reason) => `  - ${reason}`),
    ...out.proofs.map(
      (p) =>
        `  ${p.name.padEnd(12)} ${p.passed ? "pass" : "FAIL"} score=${p.score.toFixed(2)} (${p.source})${p.required ? "" : " not required"}`,
    ),
  ].join("\n");

export const attemptDecide = defineCommand({
  name: "attempt decide",
  summary:
    "Score each proof in [0,1] from cairn's own evidence and decide keep | revert | review, with reasons",
  effect: "write",
  positional: ["attempt"],
  input: z.object({ attempt: z.string().describe("attempt id") }),
  output: DecisionView,
  async handler(input, ctx) {
    const { decision } = await decideAttempt(
      ctx.store,
      ctx.workspace.root,
      input.attempt,
      ctx.actor.id,
      ctx.now(),
    );
    return decisionView(input.attempt, decision, ctx.actor.isOwner);
  },
  render: renderDecision,
});

export const attemptShow = defineCommand({
  name: "attempt show",
  summary: "An attempt: its base, its evidence and its decision",
  effect: "read",
  positional: ["attempt"],
  input: z.object({ attempt: z.string().describe("attempt id") }),
  output: z.object({ attempt: Attempt, samples: z.array(Sample), decision: DecisionView.nullable() }),
  async handler(input, ctx) {
    return ctx.store.read(async (tx) => {
      const attempt = await attemptOrThrow(tx, input.attempt);
      const run = await runOrThrow(tx, attempt.runId);
      const hidden = hiddenNames(run.manifest);
      const owner = ctx.actor.isOwner;
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
  summary:
    "Self-report scores in [0,1] for the contract's manual proofs only; alone they can reach review, never keep",
  effect: "write",
  positional: ["attempt"],
  input: z.object({
    attempt: z.string().describe("attempt id"),
    scores: z
      .record(z.string(), z.number())
      .describe('manual proof name → score in [0,1], e.g. {"review":0.9}'),
  }),
  output: z.object({ attempt_id: z.string(), recorded: z.record(z.string(), z.number()) }),
  async handler(input, ctx) {
    const { scores } = await reportScores(ctx.store, input.attempt, input.scores, ctx.actor.id, ctx.now());
    return { attempt_id: input.attempt, recorded: scores };
  },
});

export const attemptRevert = defineCommand({
  name: "attempt revert",
  summary:
    "Restore the attempt's git base (destructive; refused while the tree holds changes that predate the attempt)",
  effect: "destructive",
  positional: ["attempt"],
  input: z.object({
    attempt: z.string().describe("attempt id"),
    confirm: z.boolean().optional().describe("required: this discards the attempt's changes"),
  }),
  output: z.object({ attempt_id: z.string(), base: z.string(), discarded: z.array(z.string()) }),
  async handler(input, ctx) {
    const reverted = await revertAttempt(
      ctx.store,
      ctx.workspace.root,
      input.attempt,
      ctx.actor.id,
      ctx.now(),
    );
    return { attempt_id: input.attempt, base: reverted.base, discarded: reverted.discarded };
  },
  render: (out) =>
    `Reverted ${out.attempt_id} to ${out.base.slice(0, 12)}; discarded: ${out.discarded.join(", ") || "(nothing)"}`,
});
