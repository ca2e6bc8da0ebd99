import { crypto } from "../../kernel/builtins.js";
import { runChild } from "../../kernel/child.js";
import { checkEnv } from "../../kernel/child-env.js";
import { DISTINCT_READINGS, searchLastMatch } from "../../kernel/pattern-search.js";
import { maskSecretsIn } from "../../kernel/secret-mask.js";
import { type Setting, withSetting } from "../../kernel/setting.js";
import { quoteValue } from "../../kernel/text.js";
import type { EvaluatorDefinition } from "./evaluators/definition.js";

const TAIL_CHARS = 2_000;
/** Output kept in memory for parsing; beyond it only the hash sees the bytes. */
const KEEP_CHARS = 1_000_000;

export interface SampleOutcome {
  exitCode: number | null;
  value: number | null;
  /** Why the sample has no usable value: the command could not start, timed out, printed no number… */
  error: string | null;
  durationMs: number;
  outputTail: string;
  outputHash: string;
}

interface Execution {
  exitCode: number | null;
  stdout: string;
  combined: string;
  /** Characters of the output, kept or not: past KEEP_CHARS, `combined` is its tail alone. */
  printed?: number;
  hash: string;
  failure: string | null;
  durationMs: number;
}

/**
 * The environment an evaluator runs in: a check's (`checkEnv`: no variable that injects code), and
 * python told not to cache bytecode: pytest and every import would write `__pycache__` into a
 * frozen test folder, a new file there that made a sound attempt's first evaluation drift.
 * The run's frozen setting (its freezer's PATH and home, kernel/setting.ts) applies, whoever
 * evaluates.
 */
export function evaluatorEnv(base: NodeJS.ProcessEnv = process.env, frozen: Setting = {}): NodeJS.ProcessEnv {
  const env = checkEnv(base);
  env.PYTHONDONTWRITEBYTECODE = "1";
  return withSetting(env, frozen);
}

/**
 * Run argv through the supervised child runner: never a shell, its own process group (killed at
 * exit too, so a command that forks and exits leaves nothing behind, and at a timeout or
 * cancel), and an environment without `CAIRN_AGENT` or a variable that injects code (`evaluatorEnv`).
 */
export async function execute(
  argv: readonly string[],
  cwd: string,
  timeoutMs: number,
  signal?: AbortSignal,
  frozen?: Setting,
): Promise<Execution> {
  const hash = crypto().createHash("sha256");
  let stdout = "";
  let combined = "";
  let printed = 0;
  const result = await runChild({
    argv,
    cwd,
    env: evaluatorEnv(process.env, frozen),
    timeoutMs,
    signal,
    killEscaped: true,
    onOutput(chunk, stream) {
      hash.update(chunk);
      const text = chunk.toString("utf8");
      if (stream === "stdout" && stdout.length < KEEP_CHARS) stdout += text;
      printed += text.length;
      combined = (combined + text).slice(-KEEP_CHARS);
    },
  });
  return {
    exitCode: result.error ? null : result.exitCode,
    stdout,
    combined,
    printed,
    hash: `sha256:${hash.digest("hex")}`,
    failure: result.error,
    durationMs: result.durationMs,
  };
}

/** Read `a.b.0.c` (an optional leading `$.` is allowed) from parsed JSON. */
function readJsonPath(document: unknown, path: string): unknown {
  const parts = path
    .replace(/^\$\.?/, "")
    .split(/\.|\[(\d+)\]/)
    .filter((part) => part !== undefined && part !== "");
  let current: unknown = document;
  for (const part of parts) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

/**
 * How long a pattern may search the output. The output is the code under test's: a pattern that
 * backtracks on it (the shipped latency one is quadratic on a run of digits) would search for
 * hours. The search runs in a worker, so cairn answers meanwhile and a cancel stops it.
 */
const MATCH_BUDGET_MS = 5_000;

/**
 * A decimal number as printed (`12`, `-3.5`, `.5`, `1e3`), or NaN. `Number()` alone reads an empty
 * or blank match, or a JSON `""`, as 0 (a perfect latency) and `0x1F` as hex: printed by the code
 * under test, none of those is a measurement.
 */
function decimal(text: string): number {
  const trimmed = text.trim();
  return /^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/.test(trimmed)
    ? Number(trimmed)
    : Number.NaN;
}

/**
 * Under `match = "only"`, what says the output holds more than one reading (`12.5 and 1`), or
 * null. Spellings of one number (`12.5`, `12.50`) are one reading; past the search's count of
 * distinct spellings, the output is taken to hold several.
 */
function severalReadings(readings: readonly string[]): string | null {
  if (readings.length > DISTINCT_READINGS) return `more than ${DISTINCT_READINGS} different matches`;
  const values = [...new Map(readings.map((reading) => [decimal(reading), reading])).values()];
  if (values.length <= 1) return null;
  const [first = "", second = ""] = values;
  return `${values.length} different numbers (${quoteValue(first)} and ${quoteValue(second)}${values.length > 2 ? ", …" : ""})`;
}

/** Turn what the command printed into the evaluator's number, or say why there is none. */
export async function readValue(
  definition: EvaluatorDefinition,
  run: Pick<Execution, "exitCode" | "stdout" | "combined" | "printed">,
  options: { budgetMs?: number; signal?: AbortSignal } = {},
): Promise<{ value: number | null; error: string | null }> {
  if (definition.read === "exit_code") return { value: run.exitCode === 0 ? 1 : 0, error: null };
  // A number printed by a command that failed is not a measurement: `289 ms` from a crashed
  // benchmark would otherwise pass a latency gate.
  if (run.exitCode !== 0 && !definition.ignore_exit_code)
    return {
      value: null,
      error: `exited with ${run.exitCode}: a failed command's output is not a measurement (set ignore_exit_code to read it anyway)`,
    };
  if (definition.read === "regex") {
    // Every match must agree, and a match cairn never kept cannot: code under test that printed a
    // megabyte of filler then its own figure at exit left that figure the only match in the tail.
    if (definition.match === "only" && (run.printed ?? 0) > run.combined.length)
      return {
        value: null,
        error: `no number: the output ran past the ${KEEP_CHARS.toLocaleString("en-US")} characters cairn keeps, and match = "only" must see every match of /${definition.pattern}/`,
      };
    const budgetMs = options.budgetMs ?? MATCH_BUDGET_MS;
    const found = await searchLastMatch(definition.pattern as string, run.combined, {
      budgetMs,
      signal: options.signal,
    });
    if (found.kind === "timeout")
      return {
        value: null,
        error: `no number: the pattern /${definition.pattern}/ took longer than ${budgetMs} ms on the output (it backtracks; anchor it or make it simpler)`,
      };
    if (found.kind === "cancelled") return { value: null, error: "cancelled while reading the output" };
    if (found.kind === "failed")
      return {
        value: null,
        error: `no number: the pattern /${definition.pattern}/ failed: ${found.message}`,
      };
    if (found.kind === "no_match")
      return {
        value: null,
        error: `no number: the pattern /${definition.pattern}/ did not match the output`,
      };
    const several = definition.match === "only" ? severalReadings(found.readings) : null;
    if (several)
      return {
        value: null,
        error: `no number: /${definition.pattern}/ read ${several} in the output, and match = "only" takes one reading`,
      };
    const last = found.text;
    const value = decimal(last);
    if (!Number.isFinite(value))
      // Quoted short: a match may be megabytes of output, and the error is stored with the sample.
      return {
        value: null,
        error: `no number: /${definition.pattern}/ matched ${quoteValue(last)}`,
      };
    return { value, error: null };
  }
  let document: unknown;
  try {
    document = JSON.parse(run.stdout);
  } catch {
    return { value: null, error: "no number: stdout is not JSON" };
  }
  const found = readJsonPath(document, definition.json_path as string);
  const value = typeof found === "number" ? found : typeof found === "string" ? decimal(found) : Number.NaN;
  if (!Number.isFinite(value))
    return { value: null, error: `no number at ${definition.json_path} in stdout's JSON` };
  return { value, error: null };
}

/** One sample of one evaluator: run it and read its number. */
export async function sampleEvaluator(
  definition: EvaluatorDefinition,
  cwd: string,
  signal?: AbortSignal,
  frozen?: Setting,
): Promise<SampleOutcome> {
  const run = await execute(definition.argv, cwd, definition.timeout_seconds * 1000, signal, frozen);
  const base = {
    exitCode: run.exitCode,
    durationMs: run.durationMs,
    outputTail: maskSecretsIn(run.combined.slice(-TAIL_CHARS)),
    outputHash: run.hash,
  };
  if (run.failure) return { ...base, value: null, error: run.failure };
  return { ...base, ...(await readValue(definition, run, { signal })) };
}
