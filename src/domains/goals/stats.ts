/**
 * Is the attempt worse than its base, beyond the noise both were measured with? A one-sided
 * Mann-Whitney rank test (no assumption about the shape of timing noise, robust to outliers) and
 * the Hodges-Lehmann shift (the median of all attempt−base differences) as the effect size, in
 * the evaluator's units. A regression is called only when both agree: the ranks say "worse" at
 * α = 0.001 AND the shift exceeds the minimum effect. A strict α keeps 20 decides on an unchanged
 * tree in agreement; sampling more when the first round is inconclusive keeps a real 20%
 * slowdown from slipping through (see `nextRound`).
 */

export const ALPHA = 0.001;
/** Pairs measured first, and added per inconclusive round, up to the cap. */
export const ROUND_PAIRS = 10;
export const MAX_PAIRS = 50;
/** Confidence needed to stop sampling on "not worse by the minimum effect". */
const SETTLE_NO_ALPHA = 0.05;
/** The default minimum effect: a tenth of the base's median (half the 20% that must be caught). */
export const DEFAULT_RELATIVE_EFFECT = 0.1;

export interface Comparison {
  /** Positive means worse, in the evaluator's units. */
  shift: number;
  pValue: number;
  minEffect: number;
  baseMedian: number;
  attemptMedian: number;
  regression: boolean;
  /** Not a regression, and no reason to measure more. */
  settled: boolean;
  /**
   * Runs of the attempt worse than its base by more than the minimum effect, where the base never
   * varied (0 where it did): the machine's noise would have shown on the base too (the sides are
   * interleaved), so these are the attempt's own, however many runs are not.
   */
  worseRuns: number;
  test: string;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = (sorted.length - 1) / 2;
  return ((sorted[Math.floor(middle)] as number) + (sorted[Math.ceil(middle)] as number)) / 2;
}

/** Standard normal upper tail, from the complementary error function (Abramowitz–Stegun 7.1.26). */
function upperTail(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const poly =
    t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  const erfc = poly * Math.exp(-x * x);
  return z >= 0 ? erfc / 2 : 1 - erfc / 2;
}

/**
 * P(attempt values are not stochastically larger than base values), one-sided, with the normal
 * approximation, tie correction and continuity correction. Larger means worse here.
 */
export function mannWhitneyGreater(attempt: readonly number[], base: readonly number[]): number {
  const n = attempt.length;
  const m = base.length;
  if (n === 0 || m === 0) return 1;
  let u = 0;
  for (const a of attempt) for (const b of base) u += a > b ? 1 : a === b ? 0.5 : 0;
  const counts = new Map<number, number>();
  for (const value of [...attempt, ...base]) counts.set(value, (counts.get(value) ?? 0) + 1);
  let ties = 0;
  for (const count of counts.values()) ties += count ** 3 - count;
  const total = n + m;
  const variance = ((n * m) / 12) * (total + 1 - ties / (total * (total - 1)));
  if (variance <= 0) return 1;
  return upperTail((u - (n * m) / 2 - 0.5) / Math.sqrt(variance));
}

export function hodgesLehmann(attempt: readonly number[], base: readonly number[]): number {
  const differences: number[] = [];
  for (const a of attempt) for (const b of base) differences.push(a - b);
  return median(differences);
}

/**
 * Compare an attempt's samples with its base's. `direction` is the evaluator's better side;
 * `minEffect` is in its units (default: a tenth of the base median).
 */
export function compareToBase(
  attempt: readonly number[],
  base: readonly number[],
  direction: "higher" | "lower",
  minEffect?: number,
): Comparison {
  // Orient so that larger is worse, whichever way the evaluator points.
  const orient = (values: readonly number[]) => values.map((v) => (direction === "lower" ? v : -v));
  const baseSpread = new Set(base).size > 1;
  const spread = new Set(attempt).size > 1 || baseSpread;
  // Trimmed only where the base varies too: a steady base shows the machine adds no noise to
  // this number, and trimming would then hide an attempt slow in some of its runs (bimodal).
  const a = betterPart(orient(attempt), baseSpread);
  const b = betterPart(orient(base), baseSpread);
  const baseMedian = median(base);
  const effect = minEffect ?? Math.abs(baseMedian) * DEFAULT_RELATIVE_EFFECT;
  const shift = hodgesLehmann(a, b);
  // Deterministic on both sides: the difference is exact, no test is needed.
  const pValue = spread ? mannWhitneyGreater(a, b) : shift > 0 ? 0 : 1;
  const regression = pValue < ALPHA && shift > effect;
  return {
    shift,
    pValue,
    minEffect: effect,
    baseMedian,
    attemptMedian: median(attempt),
    regression,
    // "No change" is settled as soon as the ranks are confident the attempt is not worse by the
    // minimum effect (the attempt minus the effect is faster than the base at p < 0.05), or the
    // shift is small and the samples tight; under bursty load the rounds continue.
    settled:
      regression ||
      !spread ||
      mannWhitneyGreater(
        b,
        a.map((value) => value - effect),
      ) < SETTLE_NO_ALPHA ||
      (shift < effect / 2 && Math.max(range(a), range(b)) < effect),
    worseRuns:
      baseSpread || base.length === 0
        ? 0
        : orient(attempt).filter((v) => v - (b[0] as number) > effect).length,
    test: spread
      ? `Mann-Whitney one-sided on ${baseSpread ? "the better third of each side" : "every sample (the base never varied)"} (${a.length} vs ${b.length}) p=${pValue.toPrecision(2)} (α ${ALPHA}), Hodges-Lehmann shift ${round(shift)} vs minimum effect ${round(effect)}`
      : `exact: ${round(shift)} worse vs minimum effect ${round(effect)} (no spread on either side)`,
  };
}

/**
 * The better third of one side's samples (oriented: smaller is better). Load only ever makes a
 * timing worse — a preempted run is slower, never faster — so the worse samples carry the
 * machine's noise and the best ones the code's speed; on a shared machine a burst can slow half
 * the runs or more. Both sides are trimmed alike, so an unchanged tree still compares equal;
 * interleaving spreads a burst over both sides.
 */
function betterPart(values: readonly number[], spread: boolean): number[] {
  if (!spread || values.length < 6) return [...values];
  return [...values].sort((x, y) => x - y).slice(0, Math.max(4, Math.ceil(values.length / 3)));
}

const range = (values: readonly number[]) => Math.max(...values) - Math.min(...values);

const round = (value: number) => (Number.isInteger(value) ? String(value) : value.toPrecision(3));

/** How many more pairs to measure after a round, or 0 when the comparison is settled. */
export function nextRound(comparison: Comparison, pairs: number): number {
  if (comparison.settled || pairs >= MAX_PAIRS) return 0;
  return Math.min(ROUND_PAIRS, MAX_PAIRS - pairs);
}
