import type { Capture } from "./capture.js";
import type { ChildResult } from "./child.js";

/** A supervised command's result as a tool reports it: its output capped, with the sizes it had. */
export interface CappedRun {
  argv: string[];
  exit_code: number | null;
  timed_out: boolean;
  error: string | null;
  duration_ms: number;
  stdout: string;
  stderr: string;
  stdout_bytes: number;
  stderr_bytes: number;
}

export function cappedRun(
  argv: readonly string[],
  result: ChildResult,
  out: Capture,
  err: Capture,
): CappedRun {
  return {
    argv: [...argv],
    exit_code: result.exitCode,
    timed_out: result.timedOut,
    error: result.error,
    duration_ms: result.durationMs,
    stdout: out.text(),
    stderr: err.text(),
    stdout_bytes: out.total,
    stderr_bytes: err.total,
  };
}

/** What the audit log keeps of a run: how it ended and how much it printed, never what. */
export const runOutcome = (run: CappedRun) => ({
  exit_code: run.exit_code,
  timed_out: run.timed_out,
  error: run.error,
  duration_ms: run.duration_ms,
  stdout_bytes: run.stdout_bytes,
  stderr_bytes: run.stderr_bytes,
});

/** What a tool answers of a run: how it ended and what it printed (capped). */
export const runReply = (run: CappedRun) => ({
  exit_code: run.exit_code,
  timed_out: run.timed_out,
  error: run.error,
  duration_ms: run.duration_ms,
  stdout: run.stdout,
  stderr: run.stderr,
});
