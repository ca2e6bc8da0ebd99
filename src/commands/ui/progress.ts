import { z } from "zod";
import { goalOrThrow } from "../../domains/goals/contract.js";
import type { EvaluatorDefinition } from "../../domains/goals/evaluators/definition.js";
import { evaluatorProgress } from "../../domains/goals/progress.js";
import { notFound } from "../../kernel/outcome.js";
import type { SampleRecord } from "../../store/store.js";
import { defineCommand } from "../define.js";
import { shortId } from "../ids.js";

const Point = z.object({
  attempt: z.string(),
  opened_at: z.string(),
  verdict: z.enum(["keep", "revert", "review"]).nullable(),
  reverted: z.boolean(),
  value: z.number().nullable(),
  noise: z.number(),
  repeats: z.number(),
  failed_repeats: z.number(),
  best: z.number().nullable(),
  gain: z.number().nullable().describe("value − baseline, positive is better"),
  gain_in_noise: z.number().nullable(),
  reason: z.string().nullable(),
});

const Series = z.object({
  evaluator: z.string(),
  proof: z.string(),
  hidden: z.boolean(),
  direction: z.enum(["higher", "lower"]),
  threshold: z.number().nullable(),
  baseline: z.object({ mean: z.number(), noise: z.number(), attempt: z.string() }).nullable(),
  points: z.array(Point),
});

/**
 * Attempts a chart shows, the newest: a run of an agent's loop holds thousands, and 20,000 made
 * every look at a goal read 14 MB and seconds of work, for a chart no one could read.
 */
const CHART_ATTEMPTS = 200;
const CHART_ATTEMPTS_MAX = 5_000;

export const goalProgress = defineCommand({
  name: "goal progress",
  summary:
    "A run's attempts chart: a point per attempt and evaluator, the running best kept, the baseline ± noise",
  effect: "read",
  positional: ["id"],
  input: z.object({
    id: shortId("G").describe("goal id"),
    run: shortId("R").optional().describe("run id; default the goal's latest run"),
    limit: z
      .number()
      .int()
      .min(1)
      .max(CHART_ATTEMPTS_MAX)
      .optional()
      .describe(`the newest attempts to chart; default ${CHART_ATTEMPTS}`),
  }),
  output: z.object({
    goal_id: z.string(),
    run: z.object({ id: z.string(), manifest_hash: z.string(), created_at: z.string() }).nullable(),
    runs: z.array(z.string()),
    attempts: z.number(),
    kept: z.number(),
    charted: z.number().describe("attempts charted: the newest ones"),
    series: z.array(Series),
  }),
  async handler(input, ctx) {
    return ctx.store.read(async (tx) => {
      const goal = await goalOrThrow(tx, input.id);
      const runs = await tx.goals.runs(goal.id);
      const run = input.run ? runs.find((r) => r.id === input.run) : runs.at(-1);
      if (input.run && !run)
        throw notFound(`no run ${input.run} of ${goal.id}`, `cairn run list --goal ${goal.id}`);
      const base = { goal_id: goal.id, runs: runs.map((r) => r.id) };
      if (!run) return { ...base, run: null, attempts: 0, kept: 0, charted: 0, series: [] };
      const tally = await tx.goals.attemptTally(run.id);
      const limit = input.limit ?? CHART_ATTEMPTS;
      const offset = Math.max(0, tally.attempts - limit);
      const charted = await tx.goals.attempts(run.id, { limit, offset });
      const shown = new Set(charted.map((attempt) => attempt.id));
      // The baseline and the running best stand on every kept attempt before the newest: those
      // are read too (kept ones only), then left off the chart.
      const before =
        offset === 0 ? [] : (await tx.goals.keptAttempts(run.id)).filter((a) => !shown.has(a.id));
      const attempts = [...before, ...charted].sort((a, b) => a.openedAt.localeCompare(b.openedAt));
      const samples = new Map<string, SampleRecord[]>();
      for (const sample of await tx.goals.samplesOfAttempts(attempts.map((attempt) => attempt.id))) {
        const list = samples.get(sample.attemptId);
        if (list) list.push(sample);
        else samples.set(sample.attemptId, [sample]);
      }
      const series = run.manifest.map((entry) => {
        const definition = entry.definition as unknown as EvaluatorDefinition;
        const hidden = definition.hidden === true;
        const progress = evaluatorProgress(
          {
            name: entry.name,
            proof: entry.proof,
            direction: definition.direction ?? "higher",
            threshold: definition.threshold ?? null,
          },
          attempts,
          (id) => samples.get(id) ?? [],
        );
        // A hidden evaluator's numbers are the owner's only, as everywhere else.
        const withhold = hidden && !ctx.actor.isOwner;
        return {
          evaluator: withhold ? "(hidden)" : progress.evaluator,
          proof: progress.proof,
          hidden,
          direction: progress.direction,
          threshold: withhold ? null : progress.threshold,
          baseline: withhold ? null : progress.baseline,
          points: withhold
            ? []
            : progress.points
                .filter((p) => shown.has(p.attempt))
                .map((p) => ({
                  attempt: p.attempt,
                  opened_at: p.openedAt,
                  verdict: p.verdict,
                  reverted: p.reverted,
                  value: p.value,
                  noise: p.noise,
                  repeats: p.repeats,
                  failed_repeats: p.failedRepeats,
                  best: p.best,
                  gain: p.gain,
                  gain_in_noise: p.gainInNoise,
                  reason: p.reason,
                })),
        };
      });
      return {
        ...base,
        run: { id: run.id, manifest_hash: run.manifestHash, created_at: run.createdAt },
        attempts: tally.attempts,
        kept: tally.kept,
        charted: charted.length,
        series,
      };
    });
  },
  render: (out) =>
    [
      `${out.goal_id} ${out.run ? `${out.run.id} (${out.run.manifest_hash.slice(0, 19)}…)` : "(no run yet)"}: ${out.kept} kept of ${out.attempts}${out.charted < out.attempts ? ` (the newest ${out.charted} charted)` : ""}`,
      ...out.series.flatMap((s) => [
        `  ${s.evaluator} (${s.direction} is better)${s.baseline ? ` baseline ${s.baseline.mean} ± ${s.baseline.noise}` : ""}`,
        ...s.points.map(
          (p) => `    ${p.attempt.padEnd(7)} ${(p.verdict ?? "open").padEnd(7)} ${p.value ?? "-"}`,
        ),
      ]),
    ].join("\n"),
});
