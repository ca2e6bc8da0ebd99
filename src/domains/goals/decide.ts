import type {
  FrozenEvaluatorRecord,
  ProofSpec,
  SampleRecord,
  ScoreReportRecord,
  Verdict,
} from "../../store/store.js";
import type { EvaluatorDefinition } from "./evaluators/definition.js";
import { quotedFew } from "./refusals.js";
import { type Comparison, compareToBase, MAX_PAIRS, ROUND_PAIRS } from "./stats.js";

/** Differences smaller than this are rounding, not change. */
const EPSILON = 1e-9;
/** Who a human judgment comes from: the workspace owner runs cairn without an agent token. */
export const HUMAN = "owner";

export interface EvaluatorSummary {
  name: string;
  proof: string;
  hidden: boolean;
  direction: "higher" | "lower";
  threshold: number;
  samples: number;
  /** Mean of the attempt's values; `null` when no sample produced one. */
  mean: number | null;
  /** Half the spread of the attempt's repeats: how much this measurement moves on its own. */
  noise: number;
  passed: boolean;
  score: number;
  errors: string[];
  /** The command itself could not start: nothing about the attempt was measured. */
  couldNotRun: boolean;
  /** The attempt against its base measured in the same session; null without base samples. */
  comparison: Comparison | null;
  /**
   * Why the base was tried and yielded no number (its errors), or null: with no base value no
   * regression can be ruled out, and a builder controls what the base shares with the attempt.
   */
  baseFailure: string[] | null;
  /**
   * A number whose base was never measured (the evaluation was stopped before it, or the attempt
   * has no base commit): no regression can be ruled out either.
   */
  baseMissing: boolean;
}

export interface ProofVerdict {
  name: string;
  required: boolean;
  source: "measured" | "self_reported" | "owner_judgment" | "missing";
  passed: boolean;
  score: number;
}

export interface Decision {
  verdict: Verdict;
  reasons: string[];
  /** What does not gate this attempt but deserves a look (proofs the milestone does not require). */
  warnings: string[];
  /** What to do now; null only for keep. */
  next: string | null;
  proofs: ProofVerdict[];
  evaluators: EvaluatorSummary[];
  /** Frozen inputs the attempt changed, each with the evaluators that depend on it. */
  touchedInputs: { path: string; evaluators: string[] }[];
  /** The commit holding a kept attempt's changes; null when no commit was made. */
  keptCommit?: string | null;
  /** On keep: whether the repository's commit hooks ran ("skipped" unless asked for). */
  hooks?: "ran" | "skipped" | null;
  /** The tree the decision judged (see measured-tree.ts): an accepted review commits only it. */
  tree?: string;
}

export interface DecisionInput {
  attemptId: string;
  proofs: readonly ProofSpec[];
  /** Proofs this attempt must pass (a milestone's subset, else all of them). */
  required: ReadonlySet<string>;
  manifest: readonly FrozenEvaluatorRecord[];
  samples: readonly SampleRecord[];
  reports: readonly ScoreReportRecord[];
  touchedInputs?: readonly { path: string; evaluators: string[] }[];
  /** The owner allowed this attempt to change frozen inputs: it may reach review, never keep. */
  inputsApproved?: boolean;
  /** The attempt's run and its goal's latest run: a later freeze may have raised the bar. */
  run?: { id: string; latest: string };
  /** The attempt's own changes outside its opener's or decider's role scope: at best review. */
  outOfScope?: readonly string[];
}

const clamp01 = (value: number) => Math.max(0, Math.min(1, value));
const values = (samples: readonly SampleRecord[]) =>
  samples.map((sample) => sample.value).filter((value): value is number => value !== null);

function summarize(frozen: FrozenEvaluatorRecord, all: readonly SampleRecord[]): EvaluatorSummary {
  const definition = frozen.definition as unknown as EvaluatorDefinition;
  const direction = definition.direction ?? "higher";
  const threshold = definition.threshold ?? 1;
  const samples = all.filter((sample) => sample.side !== "base");
  const baseSamples = all.filter((sample) => sample.side === "base");
  const base = values(baseSamples);
  const measured = values(samples);
  const errors = [
    ...new Set(samples.map((sample) => sample.error).filter((error): error is string => error !== null)),
  ];
  const complete = samples.length > 0 && measured.length === samples.length;
  const mean = measured.length > 0 ? measured.reduce((sum, value) => sum + value, 0) / measured.length : null;
  const noise = measured.length > 1 ? (Math.max(...measured) - Math.min(...measured)) / 2 : 0;
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
    comparison:
      complete && base.length > 0 && definition.read !== "exit_code"
        ? compareToBase(measured, base, direction, definition.min_effect)
        : null,
    baseFailure:
      definition.read !== "exit_code" && baseSamples.length > 0 && base.length < baseSamples.length
        ? [
            ...new Set(
              baseSamples.map((sample) => sample.error ?? "no number").filter((error) => error !== ""),
            ),
          ]
        : null,
    baseMissing: definition.read !== "exit_code" && baseSamples.length === 0,
  };
}

/**
 * Whether an evaluator has less evidence than a whole evaluation takes, none of it failed: an
 * evaluation stopped part way (a cancel) is not a pass on what ran. One measured once per repeat
 * needs every repeat; a number measured in pairs against its base (declared noisy, or its values
 * spread) needs the first round of pairs and a settled test, or the most pairs there are (see
 * evaluate.ts): two pairs cannot show any regression at all.
 */
function repeatsMissing(frozen: FrozenEvaluatorRecord, all: readonly SampleRecord[]): boolean {
  const definition = frozen.definition as unknown as EvaluatorDefinition;
  const attempt = all.filter((sample) => sample.side !== "base");
  if (attempt.length === 0 || all.some((sample) => sample.value === null)) return false;
  if (new Set(attempt.map((sample) => sample.repeatIndex)).size < (definition.repeats ?? 1)) return true;
  if (definition.read === "exit_code") return false;
  const mine = values(attempt);
  const base = values(all.filter((sample) => sample.side === "base"));
  if (base.length === 0) return false;
  const paired = definition.noisy === true || new Set(mine).size > 1 || new Set(base).size > 1;
  if (!paired) return false;
  const pairs = Math.min(mine.length, base.length);
  if (pairs < Math.max(definition.repeats ?? 1, ROUND_PAIRS)) return true;
  const { settled } = compareToBase(mine, base, definition.direction ?? "higher", definition.min_effect);
  return !settled && pairs < MAX_PAIRS;
}

/**
 * keep | revert | review, with every reason. Only the proofs the milestone requires gate keep:
 * each must be measured by cairn and pass, with no regression beyond the noise measured against
 * the base in the same session. A failed gate, a required regression, or a changed frozen input
 * reverts. Anything cairn cannot settle alone — a self-report, a missing or unrunnable
 * measurement, a hidden holdout disagreeing, a regression on a proof the milestone does not
 * require, an input change the owner allowed — goes to review. Evaluators of other proofs that
 * fail only warn. "No change" (the attempt measures the same as its base) is not a reason for
 * anything: an unchanged tree that meets the milestone's proofs is kept, one that does not is
 * reverted, every time.
 */
export function decide(input: DecisionInput): Decision {
  const bySample = new Map<string, SampleRecord[]>();
  for (const sample of input.samples) {
    const list = bySample.get(sample.evaluator) ?? [];
    list.push(sample);
    bySample.set(sample.evaluator, list);
  }
  const evaluators = input.manifest.map((frozen) => summarize(frozen, bySample.get(frozen.name) ?? []));
  const cutShort = new Set(
    input.manifest
      .filter((frozen) => repeatsMissing(frozen, bySample.get(frozen.name) ?? []))
      .map((frozen) => frozen.name),
  );
  const revert: string[] = [];
  const review: string[] = [];
  const warnings: string[] = [];
  const proofs: ProofVerdict[] = [];
  const latestReport = new Map<string, ScoreReportRecord>();
  // The latest report per proof, except that the owner's judgment stands over any self-report,
  // whenever it was made: a builder's later report must not turn the owner's fail into a review.
  for (const report of input.reports) {
    const held = latestReport.get(report.proof);
    if (held?.reportedBy === HUMAN && report.reportedBy !== HUMAN) continue;
    latestReport.set(report.proof, report);
  }

  for (const proof of input.proofs) {
    const required = input.required.has(proof.name);
    const gate = (reason: string, to: string[]) => (required ? to : warnings).push(reason);
    if (proof.manual) {
      const report = latestReport.get(proof.name);
      if (!report) {
        proofs.push({ name: proof.name, required, source: "missing", passed: false, score: 0 });
        if (required) review.push(`${proof.name}: manual proof with no report yet`);
        continue;
      }
      const passed = report.score >= (proof.threshold ?? 1) - EPSILON;
      const human = report.reportedBy === HUMAN;
      const source = human ? "owner_judgment" : "self_reported";
      proofs.push({ name: proof.name, required, source, passed, score: report.score });
      if (human && !passed)
        gate(`${proof.name}: the owner judged it ${report.score}, below ${proof.threshold ?? 1}`, revert);
      else if (!human)
        gate(
          `${proof.name}: self-reported ${report.score} by ${report.reportedBy}; a self-report alone cannot keep an attempt`,
          review,
        );
      continue;
    }
    const mine = evaluators.filter((summary) => summary.proof === proof.name);
    const measured = mine.filter((summary) => summary.samples > 0 && !cutShort.has(summary.name));
    if (measured.length < mine.length || mine.length === 0) {
      proofs.push({ name: proof.name, required, source: "missing", passed: false, score: 0 });
      gate(`${proof.name}: not every evaluator has run; run \`attempt eval\``, review);
      continue;
    }
    const unrunnable = measured.filter((summary) => summary.couldNotRun);
    if (unrunnable.length > 0) {
      proofs.push({ name: proof.name, required, source: "missing", passed: false, score: 0 });
      for (const summary of unrunnable) {
        gate(
          `${proof.name}: evaluator ${summary.hidden ? "(hidden)" : summary.name} could not run (${summary.hidden ? "details withheld" : summary.errors.join("; ")}); fix the evaluator, not the attempt`,
          review,
        );
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
    if (!passed) {
      for (const summary of (visible.length > 0 ? visible : hidden).filter((s) => !s.passed))
        gate(`${proof.name}: ${failureText(summary)}`, revert);
    } else if (visible.length > 0 && hidden.length > 0 && !hiddenPassed) {
      gate(`${proof.name}: a hidden holdout evaluator fails while the visible ones pass`, review);
    }
    for (const summary of measured) {
      if (summary.passed && summary.baseFailure) {
        // Passing its threshold says nothing about regressing: that needs the base's number.
        const label = summary.hidden ? "a hidden evaluator" : `${summary.name} (${summary.proof})`;
        const detail = summary.hidden ? "" : ` (${summary.baseFailure.join("; ")})`;
        gate(
          `${label}: the base could not be measured${detail}, so a regression cannot be ruled out`,
          review,
        );
      } else if (summary.passed && summary.baseMissing) {
        // A cancel as the base's checkout was made keeps the attempt's samples and none of its base.
        const label = summary.hidden ? "a hidden evaluator" : `${summary.name} (${summary.proof})`;
        gate(
          `${label}: the base was not measured, so a regression cannot be ruled out; run \`attempt eval\` again`,
          review,
        );
      }
      const comparison = summary.comparison;
      if (!comparison) continue;
      const label = summary.hidden ? "a hidden evaluator" : `${summary.name} (${summary.proof})`;
      if (!comparison.regression && comparison.worseRuns > 0) {
        // Runs worse where the base never varied are not noise to average away: an attempt slow
        // in some of its runs (bimodal) has a median, and ranks, just like its base's.
        gate(
          `${label}: ${comparison.worseRuns} of its runs ${comparison.worseRuns === 1 ? "was" : "were"} worse than its base by more than the minimum effect, where the base never varied`,
          review,
        );
      }
      if (!comparison.regression) continue;
      const detail = summary.hidden ? "" : `: ${comparison.test}`;
      // Beyond noise on a proof the milestone does not require: a person looks, cairn does not revert.
      (required ? revert : review).push(`regression in ${label} against its base${detail}`);
    }
  }

  // Required by a milestone re-planned after this run froze: nothing here can measure it.
  const known = new Set(input.proofs.map((proof) => proof.name));
  for (const name of [...input.required].filter((name) => !known.has(name)).sort())
    review.push(`${name}: required by the milestone, but this run's contract has no such proof to measure`);

  // Frozen again while this attempt was under way: its own run's bar is no longer the owner's.
  if (input.run && input.run.latest !== input.run.id)
    review.push(
      `${input.run.id} was superseded by ${input.run.latest} since this attempt opened: it is judged by a bar the owner replaced`,
    );

  const touched = input.touchedInputs ?? [];
  if (touched.length > 0) {
    // Reasons are read by everyone (the review queue, the board): a holdout is not named there.
    const hidden = new Set(evaluators.filter((summary) => summary.hidden).map((summary) => summary.name));
    const label = (name: string) => (hidden.has(name) ? "a hidden evaluator" : name);
    const list = touched
      .map((item) => `${item.path} (${[...new Set(item.evaluators.map(label))].join(", ")})`)
      .join(", ");
    if (input.inputsApproved)
      review.push(`changes frozen inputs, with the owner's approval: ${list}; only the owner can keep it`);
    else
      revert.push(
        `changes frozen evaluator inputs: ${list}; an attempt that edits what judges it is never kept`,
      );
  }

  const outside = input.outOfScope ?? [];
  if (outside.length > 0)
    review.push(
      `changes paths outside the scope of the role of whoever opened or decides it: ${quotedFew(outside)}; only the owner can keep it`,
    );

  const measuredAnything = evaluators.some((summary) => summary.samples > 0);
  if (
    !measuredAnything &&
    input.reports.every((report) => report.reportedBy !== HUMAN) &&
    input.reports.length > 0
  )
    review.push("only self-reported scores exist; cairn measured nothing");
  const verdict: Verdict = revert.length > 0 ? "revert" : review.length > 0 ? "review" : "keep";
  const reasons =
    verdict === "revert"
      ? [...revert, ...review]
      : verdict === "review"
        ? review
        : ["every required proof passed with no regression beyond the measured noise"];
  return {
    verdict,
    reasons,
    warnings,
    next: nextStep(verdict, input.attemptId, review),
    proofs,
    evaluators,
    touchedInputs: [...touched],
  };
}

function nextStep(verdict: Verdict, id: string, review: string[]): string | null {
  if (verdict === "keep") return null;
  if (verdict === "revert")
    return `undo the attempt's own changes with \`cairn attempt revert ${id} --confirm\` (revert_attempt), then open a new attempt`;
  const manual = review.some((reason) => reason.includes("manual proof"));
  return `the workspace owner settles it: \`cairn attempt accept ${id}\` keeps it, \`cairn attempt reject ${id} --reason ...\` sends it to revert${manual ? " (for a manual proof, that is the owner's judgment; next time the owner can report it before deciding)" : ""}`;
}

const fmt = (value: number) => (Number.isInteger(value) ? String(value) : value.toFixed(3));

function failureText(summary: EvaluatorSummary): string {
  const who = summary.hidden ? "a hidden evaluator" : summary.name;
  if (summary.hidden) return `${who} failed`;
  if (summary.errors.length > 0) return `${who} failed: ${summary.errors.join("; ")}`;
  const bar = summary.direction === "higher" ? "≥" : "≤";
  return `${who} measured ${summary.mean === null ? "nothing" : fmt(summary.mean)}, needs ${bar} ${fmt(summary.threshold)}`;
}
