import type {
  BaselineRecord,
  FrozenEvaluatorRecord,
  ProofSpec,
  SampleRecord,
  ScoreReportRecord,
  Verdict,
} from "../../store/store.js";
import type { EvaluatorDefinition } from "./evaluators/definition.js";

/** Differences smaller than this are rounding, not change. */
const EPSILON = 1e-9;

export interface EvaluatorSummary {
  name: string;
  proof: string;
  hidden: boolean;
  direction: "higher" | "lower";
  threshold: number;
  samples: number;
  /** Mean of the samples' values; `null` when no sample produced one. */
  mean: number | null;
  /** Half the spread of the repeats: how much this measurement moves on its own. */
  noise: number;
  passed: boolean;
  score: number;
  errors: string[];
  /** The command itself could not start: nothing about the attempt was measured. */
  couldNotRun: boolean;
}

export interface ProofVerdict {
  name: string;
  required: boolean;
  source: "measured" | "self_reported" | "missing";
  passed: boolean;
  score: number;
}

export interface Decision {
  verdict: Verdict;
  reasons: string[];
  proofs: ProofVerdict[];
  evaluators: EvaluatorSummary[];
  /** The commit holding a kept attempt's changes (cairn commits them on keep); null otherwise. */
  keptCommit?: string | null;
}

/** What a kept attempt measured, per evaluator: the baseline later attempts must not fall below. */
export interface Baseline {
  attemptId: string;
  mean: number;
  noise: number;
}

export interface DecisionInput {
  proofs: readonly ProofSpec[];
  /** Proofs this attempt must pass (a milestone's subset, else all of them). */
  required: ReadonlySet<string>;
  manifest: readonly FrozenEvaluatorRecord[];
  samples: readonly SampleRecord[];
  reports: readonly ScoreReportRecord[];
  /** Best kept measurement per evaluator name, from earlier kept attempts of the same run. */
  baselines: ReadonlyMap<string, Baseline>;
}

const clamp01 = (value: number) => Math.max(0, Math.min(1, value));

function summarize(frozen: FrozenEvaluatorRecord, samples: readonly SampleRecord[]): EvaluatorSummary {
  const definition = frozen.definition as unknown as EvaluatorDefinition;
  const direction = definition.direction ?? "higher";
  const threshold = definition.threshold ?? 1;
  const values = samples.map((sample) => sample.value).filter((value): value is number => value !== null);
  const errors = [
    ...new Set(samples.map((sample) => sample.error).filter((error): error is string => error !== null)),
  ];
  const complete = samples.length > 0 && values.length === samples.length;
  const mean = values.length > 0 ? values.reduce((sum, value) => sum + value, 0) / values.length : null;
  const noise = values.length > 1 ? (Math.max(...values) - Math.min(...values)) / 2 : 0;
  const meets =
    mean !== null && (direction === "higher" ? mean >= threshold - EPSILON : mean <= threshold + EPSILON);
  const passed = complete && meets;
  let score = 0;
  if (passed) score = 1;
  else if (complete && mean !== null) {
    if (direction === "higher") score = threshold > 0 ? clamp01(mean / threshold) : 0;
    else score = mean > 0 ? clamp01(threshold / mean) : 0;
  }
  return {
    name: frozen.name,
    proof: frozen.proof,
    hidden: definition.hidden === true,
    direction,
    threshold,
    samples: samples.length,
    mean,
    noise,
    passed,
    score,
    errors,
    couldNotRun: samples.some(
      (sample) =>
        sample.error?.startsWith("command not found") || sample.error?.startsWith("could not start"),
    ),
  };
}

/**
 * keep | revert | review, with every reason. Keep needs every required proof measured by cairn
 * and passing, with no evaluator worse than the best kept attempt by more than the noise its
 * repeats showed. A failed gate or a real regression reverts. Anything cairn cannot settle on
 * its own — a change within noise, a hidden holdout disagreeing, a self-report, a missing or
 * unrunnable measurement — goes to review.
 */
export function decide(input: DecisionInput): Decision {
  const bySample = new Map<string, SampleRecord[]>();
  for (const sample of input.samples) {
    const list = bySample.get(sample.evaluator) ?? [];
    list.push(sample);
    bySample.set(sample.evaluator, list);
  }
  const evaluators = input.manifest.map((frozen) => summarize(frozen, bySample.get(frozen.name) ?? []));
  const revert: string[] = [];
  const review: string[] = [];
  const proofs: ProofVerdict[] = [];
  const latestReport = new Map<string, ScoreReportRecord>();
  for (const report of input.reports) latestReport.set(report.proof, report);

  for (const proof of input.proofs) {
    const required = input.required.has(proof.name);
    if (proof.manual) {
      const report = latestReport.get(proof.name);
      if (!report) {
        proofs.push({ name: proof.name, required, source: "missing", passed: false, score: 0 });
        if (required) review.push(`${proof.name}: manual proof with no report yet`);
        continue;
      }
      const passed = report.score >= (proof.threshold ?? 1) - EPSILON;
      proofs.push({ name: proof.name, required, source: "self_reported", passed, score: report.score });
      if (required)
        review.push(
          `${proof.name}: self-reported ${report.score} by ${report.reportedBy}; a self-report alone cannot keep an attempt`,
        );
      continue;
    }
    const mine = evaluators.filter((summary) => summary.proof === proof.name);
    const measured = mine.filter((summary) => summary.samples > 0);
    if (measured.length < mine.length || mine.length === 0) {
      proofs.push({ name: proof.name, required, source: "missing", passed: false, score: 0 });
      if (required) review.push(`${proof.name}: not every evaluator has run; run \`attempt eval\``);
      continue;
    }
    const unrunnable = measured.filter((summary) => summary.couldNotRun);
    if (unrunnable.length > 0) {
      proofs.push({ name: proof.name, required, source: "missing", passed: false, score: 0 });
      if (required) {
        for (const summary of unrunnable) {
          review.push(
            `${proof.name}: evaluator ${summary.hidden ? "(hidden)" : summary.name} could not run (${summary.hidden ? "details withheld" : summary.errors.join("; ")}); fix the evaluator, not the attempt`,
          );
        }
      }
      continue;
    }
    const visible = measured.filter((summary) => !summary.hidden);
    const hidden = measured.filter((summary) => summary.hidden);
    const visiblePassed = visible.every((summary) => summary.passed);
    const hiddenPassed = hidden.every((summary) => summary.passed);
    const passed = visible.length > 0 ? visiblePassed : hiddenPassed;
    const score = Math.min(...measured.map((summary) => summary.score));
    proofs.push({ name: proof.name, required, source: "measured", passed, score });
    if (!required) continue;
    if (!passed) {
      for (const summary of (visible.length > 0 ? visible : hidden).filter((s) => !s.passed)) {
        revert.push(`${proof.name}: ${failureText(summary)}`);
      }
    } else if (visible.length > 0 && hidden.length > 0 && !hiddenPassed) {
      review.push(`${proof.name}: a hidden holdout evaluator fails while the visible ones pass`);
    }
  }

  for (const summary of evaluators) {
    const baseline = input.baselines.get(summary.name);
    if (!baseline || summary.mean === null || summary.couldNotRun) continue;
    const worse =
      summary.direction === "higher" ? baseline.mean - summary.mean : summary.mean - baseline.mean;
    if (worse <= EPSILON) continue;
    const noise = Math.max(summary.noise, baseline.noise);
    const label = summary.hidden ? "a hidden evaluator" : `${summary.name} (${summary.proof})`;
    const detail = summary.hidden
      ? ""
      : `: ${fmt(summary.mean)} vs ${fmt(baseline.mean)} in kept ${baseline.attemptId}, noise ±${fmt(noise)}`;
    if (worse > noise + EPSILON) revert.push(`regression in ${label}${detail}`);
    else review.push(`${label} is worse than kept ${baseline.attemptId} but within noise${detail}`);
  }

  const measuredAnything = evaluators.some((summary) => summary.samples > 0);
  if (!measuredAnything && input.reports.length > 0)
    review.push("only self-reported scores exist; cairn measured nothing");
  const verdict: Verdict = revert.length > 0 ? "revert" : review.length > 0 ? "review" : "keep";
  const reasons =
    verdict === "revert"
      ? [...revert, ...review]
      : verdict === "review"
        ? review
        : ["every required proof passed with no regression beyond noise"];
  return { verdict, reasons, proofs, evaluators };
}

const fmt = (value: number) => (Number.isInteger(value) ? String(value) : value.toFixed(3));

function failureText(summary: EvaluatorSummary): string {
  const who = summary.hidden ? "a hidden evaluator" : summary.name;
  if (summary.hidden) return `${who} failed`;
  if (summary.errors.length > 0) return `${who} failed: ${summary.errors.join("; ")}`;
  const bar = summary.direction === "higher" ? "≥" : "≤";
  return `${who} measured ${summary.mean === null ? "nothing" : fmt(summary.mean)}, needs ${bar} ${fmt(summary.threshold)}`;
}

/** The baselines a kept decision offers: one per evaluator that produced a number. */
export function keptMeasurements(attemptId: string, decision: Decision): BaselineRecord[] {
  return decision.evaluators
    .filter((summary) => summary.mean !== null && !summary.couldNotRun)
    .map((summary) => ({
      evaluator: summary.name,
      attemptId,
      mean: summary.mean as number,
      noise: summary.noise,
      direction: summary.direction,
    }));
}
