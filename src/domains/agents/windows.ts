import { Cron } from "croner";
import type { ScheduleSpec } from "./manifest.js";

/**
 * When a schedule's window opens, whether it is due, retried, given up or stale: pure functions
 * of (schedule, state, now, zone), so a fake clock can walk them across DST gaps, month ends and
 * leap days. Times are epoch milliseconds.
 *
 * Designed out, against the reference implementation:
 * - a new interval schedule is due at once (no first manual success needed);
 * - a cron window stays due until `stale_after` has passed, across midnight too;
 * - a retry's backoff is a wake-up time, not something noticed at the next 30-minute tick;
 * - croner resolves DST gaps and overlaps, so no day loses its window;
 * - state is per schedule id, so two schedules with the same args never share it.
 */

const MINUTE = 60_000;

export interface ScheduledAttempt {
  windowAt: number;
  status: "running" | "ok" | "failed" | "timed_out" | "cancelled" | "interrupted" | "skipped";
  finishedAt: number | null;
  exitCode: number | null;
}

export interface ScheduleState {
  /** When the daemon first saw this schedule; a cron window before it is no missed window. */
  firstSeenAt?: number;
  /** Scheduled attempts (never triggered runs), any order. */
  attempts: ScheduledAttempt[];
  /** Windows the daemon already marked given up. */
  givenUp?: ReadonlySet<number>;
}

/** Interrupted runs (the daemon stopped) are no verdict on the agent: they burn no retry. */
const counts = (attempt: ScheduledAttempt) => attempt.status !== "interrupted";
const failed = (attempt: ScheduledAttempt) =>
  counts(attempt) && attempt.status !== "ok" && attempt.status !== "running";

function cronOf(spec: ScheduleSpec, zone: string | undefined): Cron {
  return new Cron(spec.pattern as string, { paused: true, mode: "5-part", timezone: spec.timezone ?? zone });
}

function lastOk(state: ScheduleState): ScheduledAttempt | undefined {
  let best: ScheduledAttempt | undefined;
  for (const attempt of state.attempts) {
    if (
      attempt.status === "ok" &&
      attempt.finishedAt !== null &&
      (!best || attempt.finishedAt > (best.finishedAt ?? 0))
    ) {
      best = attempt;
    }
  }
  return best;
}

/** An interval schedule's ticks: from the last success, else from its first attempted window. */
function intervalAnchor(state: ScheduleState): { at: number; fromSuccess: boolean } | undefined {
  const ok = lastOk(state);
  if (ok?.finishedAt != null) return { at: ok.finishedAt, fromSuccess: true };
  const first = state.attempts.reduce<number | undefined>(
    (min, attempt) => (min === undefined || attempt.windowAt < min ? attempt.windowAt : min),
    undefined,
  );
  return first === undefined ? undefined : { at: first, fromSuccess: false };
}

/** The window open now: the latest one at or before `now`, or none yet. */
export function currentWindow(
  spec: ScheduleSpec,
  state: ScheduleState,
  now: number,
  zone?: string,
): number | undefined {
  if (spec.kind === "trigger") return undefined;
  if (spec.kind === "interval") {
    const every = (spec.intervalMinutes as number) * MINUTE;
    const anchor = intervalAnchor(state);
    if (!anchor) return state.firstSeenAt ?? now;
    const ticks = Math.floor((now - anchor.at) / every);
    if (anchor.fromSuccess ? ticks < 1 : ticks < 0) return undefined;
    return anchor.at + ticks * every;
  }
  // croner's previous run is strictly before the reference's whole second: look from the next
  // second, so a window opened a few milliseconds ago is the current one, then keep it ≤ now.
  const [latest, before] = cronOf(spec, zone).previousRuns(2, new Date(now + 1000));
  const previous = latest && latest.getTime() <= now ? latest : before;
  if (!previous) return undefined;
  const at = previous.getTime();
  return state.firstSeenAt !== undefined && at < state.firstSeenAt ? undefined : at;
}

/** The first window strictly after `now`. */
export function nextWindow(
  spec: ScheduleSpec,
  state: ScheduleState,
  now: number,
  zone?: string,
): number | undefined {
  if (spec.kind === "trigger") return undefined;
  if (spec.kind === "interval") {
    const every = (spec.intervalMinutes as number) * MINUTE;
    const anchor = intervalAnchor(state);
    if (!anchor) return now + every;
    const ticks = Math.max(anchor.fromSuccess ? 1 : 0, Math.floor((now - anchor.at) / every) + 1);
    return anchor.at + ticks * every;
  }
  return cronOf(spec, zone).nextRun(new Date(now))?.getTime() ?? undefined;
}

export function backoffMinutes(spec: ScheduleSpec, failedSoFar: number): number {
  if (spec.backoffMinutes.length === 0) return 0;
  return spec.backoffMinutes[Math.min(failedSoFar - 1, spec.backoffMinutes.length - 1)] ?? 0;
}

export type Decision =
  | { kind: "dispatch"; windowAt: number; attempt: number; of: number }
  | { kind: "running"; windowAt: number }
  | { kind: "retry_at"; windowAt: number; at: number; attempt: number; of: number }
  | { kind: "give_up"; windowAt: number; attempts: number }
  | { kind: "stale"; windowAt: number }
  | { kind: "idle"; windowAt?: number };

/** What the daemon should do for one schedule now. */
export function decide(spec: ScheduleSpec, state: ScheduleState, now: number, zone?: string): Decision {
  const windowAt = currentWindow(spec, state, now, zone);
  if (windowAt === undefined) return { kind: "idle" };
  const mine = state.attempts.filter((attempt) => attempt.windowAt === windowAt && counts(attempt));
  if (mine.some((attempt) => attempt.status === "ok")) return { kind: "idle", windowAt };
  if (mine.some((attempt) => attempt.status === "running")) return { kind: "running", windowAt };
  const failures = mine.filter(failed);
  if (failures.length >= spec.maxRetries || state.givenUp?.has(windowAt)) {
    return { kind: "give_up", windowAt, attempts: failures.length };
  }
  if (now - windowAt > spec.staleAfterMinutes * MINUTE) return { kind: "stale", windowAt };
  if (failures.length > 0) {
    const last = Math.max(...failures.map((attempt) => attempt.finishedAt ?? attempt.windowAt));
    const at = last + backoffMinutes(spec, failures.length) * MINUTE;
    if (at > now)
      return { kind: "retry_at", windowAt, at, attempt: failures.length + 1, of: spec.maxRetries };
  }
  return { kind: "dispatch", windowAt, attempt: failures.length + 1, of: spec.maxRetries };
}

/** The next time this schedule needs the daemon awake: a window, a retry, a window going stale. */
export function nextEvent(
  spec: ScheduleSpec,
  state: ScheduleState,
  now: number,
  zone?: string,
): number | undefined {
  const decision = decide(spec, state, now, zone);
  if (decision.kind === "dispatch") return now;
  // A running attempt wakes the daemon when it ends.
  if (decision.kind === "running") return undefined;
  const candidates = [nextWindow(spec, state, now, zone)];
  if (decision.kind === "retry_at") {
    candidates.push(Math.min(decision.at, decision.windowAt + spec.staleAfterMinutes * MINUTE + 1));
  }
  return candidates.reduce<number | undefined>(
    (min, at) => (at !== undefined && (min === undefined || at < min) ? at : min),
    undefined,
  );
}
