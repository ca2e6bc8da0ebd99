import type { AttemptRecord, Direction, SampleRecord, Verdict } from "../../store/store.js";

/**
 * The attempts chart of one run, evaluator by evaluator: one point per attempt that measured a
 * value, the running best of kept attempts, and the baseline with its noise band. The baseline
 * is the run's first kept measurement (the ground every later attempt stood on), with the noise
 * decide measured for it. Direction-aware: "best" is the highest value when higher is better.
 */

export interface ProgressPoint {
  attempt: string;
  openedAt: string;
  verdict: Verdict | null;
  reverted: boolean;
  /** Mean of the attempt's repeats; null when no repeat produced a number. */
  value: number | null;
  /** Half the spread of the repeats, as decide measures it. */
  noise: number;
  repeats: number;
  failedRepeats: number;
  /** Best kept value up to and including this attempt; null before the first kept one. */
  best: number | null;
  /** Value minus the baseline mean, signed so that positive is better. */
  gain: number | null;
  /** That gain in units of the baseline's noise; null when the noise is zero or unknown. */
  gainInNoise: number | null;
  reason: string | null;
}

export interface EvaluatorProgress {
  evaluator: string;
  proof: string;
  direction: Direction;
  threshold: number | null;
  baseline: { mean: number; noise: number; attempt: string } | null;
  points: ProgressPoint[];
}

export interface EvaluatorInfo {
  name: string;
  proof: string;
  direction: Direction;
  threshold: number | null;
}

const better = (direction: Direction, a: number, b: number) => (direction === "higher" ? a > b : a < b);

export function summarizeRepeats(samples: readonly SampleRecord[]): {
  value: number | null;
  noise: number;
  failed: number;
} {
  const values = samples.map((s) => s.value).filter((v): v is number => v !== null && Number.isFinite(v));
  const failed = samples.filter((s) => s.exitCode !== 0 || s.error !== null).length;
  if (values.length === 0) return { value: null, noise: 0, failed };
  const mean = values.reduce((sum, v) => sum + v, 0) / values.length;
  return { value: mean, noise: (Math.max(...values) - Math.min(...values)) / 2, failed };
}

export function evaluatorProgress(
  evaluator: EvaluatorInfo,
  attempts: readonly AttemptRecord[],
  samplesOf: (attemptId: string) => readonly SampleRecord[],
): EvaluatorProgress {
  const { direction } = evaluator;
  let best: number | null = null;
  let baseline: { mean: number; noise: number; attemptId: string } | undefined;
  const points: ProgressPoint[] = [];
  for (const attempt of attempts) {
    // The attempt's own measurements; its base, measured beside it in the same session, is not a point.
    const samples = samplesOf(attempt.id).filter((s) => s.evaluator === evaluator.name && s.side !== "base");
    if (samples.length === 0) continue;
    const { value, noise, failed } = summarizeRepeats(samples);
    const kept = attempt.verdict === "keep" && attempt.revertedAt === null;
    if (kept && value !== null && (best === null || better(direction, value, best))) best = value;
    if (kept && value !== null && !baseline) baseline = { mean: value, noise, attemptId: attempt.id };
    const gain =
      baseline && value !== null
        ? direction === "higher"
          ? value - baseline.mean
          : baseline.mean - value
        : null;
    const reasons = (attempt.decision?.reasons as string[] | undefined) ?? [];
    points.push({
      attempt: attempt.id,
      openedAt: attempt.openedAt,
      verdict: attempt.verdict,
      reverted: attempt.revertedAt !== null,
      value,
      noise,
      repeats: samples.length,
      failedRepeats: failed,
      best,
      gain,
      gainInNoise: gain !== null && baseline && baseline.noise > 0 ? gain / baseline.noise : null,
      reason: reasons[0] ?? null,
    });
  }
  return {
    evaluator: evaluator.name,
    proof: evaluator.proof,
    direction,
    threshold: evaluator.threshold,
    baseline: baseline ? { mean: baseline.mean, noise: baseline.noise, attempt: baseline.attemptId } : null,
    points,
  };
}
