import type { ScheduleSpec } from "./manifest.js";
import { currentWindow, decide, nextWindow, type ScheduledAttempt, type ScheduleState } from "./windows.js";

export const HEALTH_STATES = ["ok", "degraded", "failing", "stale", "never_ran"] as const;
export type HealthState = (typeof HEALTH_STATES)[number];

export interface Health {
  state: HealthState;
  reason: string;
  /** The window the verdict is about, if any. */
  windowAt?: number;
  nextWindowAt?: number;
}

const MINUTE = 60_000;
/** A window opened this recently with no attempt yet is the daemon's next job, not a failure. */
export const DUE_GRACE_MS = 2 * MINUTE;

export function age(ms: number): string {
  const minutes = Math.max(0, Math.floor(ms / MINUTE));
  if (minutes < 60) return `${minutes}min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return `${hours}h ${minutes % 60}m`;
  return `${Math.floor(hours / 24)}d ${hours % 24}h`;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
const iso = (ms: number) => new Date(ms).toISOString();

/** The verdict on one window that has attempts (the current one, or the latest one run). */
function verdictOn(windowAt: number, attempts: ScheduledAttempt[], spec: ScheduleSpec): Health | undefined {
  const mine = attempts.filter(
    (attempt) => attempt.windowAt === windowAt && attempt.status !== "interrupted",
  );
  if (mine.length === 0) return undefined;
  const failures = mine.filter((attempt) => attempt.status !== "ok" && attempt.status !== "running").length;
  if (mine.some((attempt) => attempt.status === "ok")) {
    return failures === 0
      ? { state: "ok", reason: `window ${iso(windowAt)} ran ok`, windowAt }
      : { state: "degraded", reason: `recovered after ${plural(failures, "failed attempt")}`, windowAt };
  }
  const lastExit = mine.at(-1)?.exitCode;
  const exit = lastExit === null || lastExit === undefined ? "" : ` (exit ${lastExit})`;
  if (failures >= spec.maxRetries) {
    return { state: "failing", reason: `gave up after ${plural(failures, "attempt")}${exit}`, windowAt };
  }
  return undefined;
}

/**
 * An interval schedule's windows roll on while it fails, so staleness is judged from the first
 * window missed after the last success (a given-up interval agent must not look merely failing).
 */
function intervalStale(spec: ScheduleSpec, attempts: ScheduledAttempt[], now: number): number | undefined {
  if (spec.kind !== "interval") return undefined;
  const oks = attempts
    .filter((a) => a.status === "ok" && a.finishedAt !== null)
    .map((a) => a.finishedAt as number);
  const firstMissed =
    oks.length > 0
      ? Math.max(...oks) + (spec.intervalMinutes as number) * MINUTE
      : attempts.length > 0
        ? Math.min(...attempts.map((a) => a.windowAt))
        : undefined;
  if (firstMissed === undefined || now - firstMissed <= spec.staleAfterMinutes * MINUTE) return undefined;
  return firstMissed;
}

/**
 * The health of one schedule, with a reason a person can act on. It never reads ok for want of
 * evidence: a cron schedule with no window today is judged on its latest window, however old.
 */
export function health(spec: ScheduleSpec, state: ScheduleState, now: number, zone?: string): Health {
  const next = nextWindow(spec, state, now, zone);
  const windowAt = currentWindow(spec, state, now, zone);
  const counted = state.attempts.filter((attempt) => attempt.status !== "interrupted");
  const latest = counted.reduce<number | undefined>(
    (max, a) => (max === undefined || a.windowAt > max ? a.windowAt : max),
    undefined,
  );
  const withNext = (verdict: Health): Health => ({ ...verdict, nextWindowAt: next });

  if (counted.length === 0) {
    if (windowAt === undefined || state.firstSeenAt === undefined || now - windowAt <= DUE_GRACE_MS) {
      const when =
        next === undefined
          ? ""
          : `; next window ${iso(windowAt !== undefined && windowAt <= now ? windowAt : next)}`;
      const daemon = state.firstSeenAt === undefined ? " (the daemon has not seen it yet)" : "";
      return withNext({ state: "never_ran", reason: `no scheduled run yet${daemon}${when}`, windowAt });
    }
  }
  if (windowAt === undefined) {
    const verdict = latest === undefined ? undefined : verdictOn(latest, counted, spec);
    return withNext(verdict ?? { state: "never_ran", reason: "no window has opened yet" });
  }
  const decision = decide(spec, state, now, zone);
  const since = age(now - windowAt);
  const rolled = intervalStale(spec, counted, now);
  if (rolled !== undefined && decision.kind !== "idle") {
    return withNext({
      state: "stale",
      reason: `no successful run since its window of ${iso(rolled)} (${age(now - rolled)} ago)`,
      windowAt,
    });
  }
  switch (decision.kind) {
    case "idle":
      return withNext(verdictOn(windowAt, counted, spec) ?? { state: "ok", reason: "nothing due", windowAt });
    case "give_up":
      return withNext(
        verdictOn(windowAt, counted, spec) ?? {
          state: "failing",
          reason: `gave up after ${plural(decision.attempts, "attempt")}`,
          windowAt,
        },
      );
    case "stale": {
      const tried = counted.filter((attempt) => attempt.windowAt === windowAt).length;
      const what = tried === 0 ? "never attempted" : `${plural(tried, "failed attempt")}`;
      return withNext({
        state: "stale",
        reason: `window ${iso(windowAt)} missed ${since} ago (${what})`,
        windowAt,
      });
    }
    case "retry_at":
      return withNext({
        state: "failing",
        reason: `${plural(decision.attempt - 1, "failed attempt")}, retry ${decision.attempt}/${decision.of} at ${iso(decision.at)}`,
        windowAt,
      });
    case "running":
    case "dispatch": {
      const previous =
        latest !== undefined && latest !== windowAt ? verdictOn(latest, counted, spec) : undefined;
      const failures = counted.filter(
        (a) => a.windowAt === windowAt && a.status !== "ok" && a.status !== "running",
      ).length;
      if (failures > 0) {
        return withNext({
          state: "failing",
          reason: `${plural(failures, "failed attempt")}, retrying now`,
          windowAt,
        });
      }
      if (decision.kind === "running" || now - windowAt <= DUE_GRACE_MS) {
        const doing = decision.kind === "running" ? "running now" : "due now";
        return withNext(
          previous
            ? { ...previous, reason: `${previous.reason}; window ${iso(windowAt)} ${doing}` }
            : { state: "never_ran", reason: `first window ${doing}`, windowAt },
        );
      }
      return withNext({
        state: "failing",
        reason: `window ${iso(windowAt)} due ${since} ago, no attempt (is \`cairn daemon\` running?)`,
        windowAt,
      });
    }
  }
}
