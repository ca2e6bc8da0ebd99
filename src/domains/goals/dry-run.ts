import type { EvaluatorDefinition } from "./evaluators/definition.js";
import { readValue, sampleEvaluator } from "./runner.js";

/** What an evaluator's reading rule extracts, shown before it may judge anything. */
export interface DryRun {
  /** `command`: cairn ran it once; `sample_output`: the pattern was tried on text the proposer gave; `none`: nothing was tried. */
  source: "command" | "sample_output" | "none";
  read: EvaluatorDefinition["read"];
  rule: string | null;
  exit_code: number | null;
  value: number | null;
  error: string | null;
  output_tail: string | null;
  note: string;
}

const ruleOf = (definition: EvaluatorDefinition) =>
  definition.read === "regex"
    ? `/${definition.pattern}/${definition.match === "only" ? ", every match one number" : ""}`
    : definition.read === "json"
      ? `json ${definition.json_path}`
      : null;

/** A dry run never needs the evaluator's full budget: a minute tells whether the rule reads a number. */
const DRY_RUN_TIMEOUT_SECONDS = 60;

/** Run the command once (an approver's step: approving means agreeing to run it) and read it. */
export async function dryRunCommand(
  definition: EvaluatorDefinition,
  cwd: string,
  signal?: AbortSignal,
): Promise<DryRun> {
  const bounded = {
    ...definition,
    timeout_seconds: Math.min(definition.timeout_seconds, DRY_RUN_TIMEOUT_SECONDS),
  };
  const sample = await sampleEvaluator(bounded, cwd, signal);
  return {
    source: "command",
    read: definition.read,
    rule: ruleOf(definition),
    exit_code: sample.exitCode,
    value: sample.value,
    error: sample.error,
    output_tail: definition.hidden ? null : sample.outputTail.slice(-500),
    note:
      sample.value === null
        ? `extracts nothing: ${sample.error ?? "no value"}`
        : `extracts ${sample.value} from one run in the workspace`,
  };
}

/**
 * At proposal time the command is not run (it is not approved yet): the rule is tried on output
 * the proposer pastes, if any.
 */
export async function dryRunText(definition: EvaluatorDefinition, text: string | undefined): Promise<DryRun> {
  if (text === undefined)
    return {
      source: "none",
      read: definition.read,
      rule: ruleOf(definition),
      exit_code: null,
      value: null,
      error: null,
      output_tail: null,
      note: "not run: an unapproved command never runs. Pass sample_output (--sample-output) to try the rule now; approval runs it once and shows what it extracts",
    };
  const read = await readValue(definition, { exitCode: 0, stdout: text, combined: text });
  return {
    source: "sample_output",
    read: definition.read,
    rule: ruleOf(definition),
    exit_code: null,
    value: read.value,
    error: read.error,
    output_tail: null,
    note:
      read.value === null
        ? `extracts nothing from the sample: ${read.error}`
        : `extracts ${read.value} from the sample`,
  };
}
