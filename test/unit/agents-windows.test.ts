import { describe, expect, it } from "vitest";
import { health } from "../../src/domains/agents/health.js";
import type { ScheduleSpec } from "../../src/domains/agents/manifest.js";
import {
  currentWindow,
  decide,
  nextEvent,
  nextWindow,
  type ScheduleState,
} from "../../src/domains/agents/windows.js";

const MIN = 60_000;
const at = (iso: string) => Date.parse(iso);
const spec = (over: Partial<ScheduleSpec>): ScheduleSpec => ({
  id: "s",
  kind: "cron",
  args: [],
  maxRetries: 3,
  backoffMinutes: [5, 15, 30],
  staleAfterMinutes: 120,
  ...over,
});
const empty: ScheduleState = { attempts: [] };
const failedAt = (windowAt: number, finishedAt: number) =>
  ({ windowAt, status: "failed", finishedAt, exitCode: 1 }) as const;
const okAt = (windowAt: number, finishedAt: number) =>
  ({ windowAt, status: "ok", finishedAt, exitCode: 0 }) as const;

describe("interval windows", () => {
  const every = spec({ kind: "interval", intervalMinutes: 60 });

  it("runs a new schedule at once, without waiting for a first manual success", () => {
    const seen = at("2026-05-01T10:00:00Z");
    expect(decide(every, { attempts: [], firstSeenAt: seen }, seen)).toMatchObject({
      kind: "dispatch",
      windowAt: seen,
    });
  });

  it("rolls on after a given-up window, so a failing agent is never dead for good", () => {
    const w0 = at("2026-05-01T10:00:00Z");
    const attempts = [failedAt(w0, w0 + MIN), failedAt(w0, w0 + 7 * MIN), failedAt(w0, w0 + 23 * MIN)];
    expect(decide(every, { attempts }, w0 + 30 * MIN)).toMatchObject({ kind: "give_up", attempts: 3 });
    expect(decide(every, { attempts }, w0 + 61 * MIN)).toMatchObject({
      kind: "dispatch",
      windowAt: w0 + 60 * MIN,
    });
    // Health is judged from the first missed window: three hours later it is stale, not merely failing.
    expect(health(every, { attempts }, w0 + 181 * MIN).state).toBe("stale");
  });

  it("survives the clock jumping backwards", () => {
    const done = at("2026-05-01T10:00:00Z");
    const state = { attempts: [okAt(done - MIN, done)] };
    expect(currentWindow(every, state, done - 3_600_000)).toBeUndefined();
    expect(nextWindow(every, state, done - 3_600_000)).toBe(done + 60 * MIN);
    expect(decide(every, state, done - 3_600_000).kind).toBe("idle");
  });
});

describe("cron windows", () => {
  const nightly = spec({ pattern: "0 23 * * *", timezone: "UTC" });

  it("keeps a window missed before midnight due after midnight, until stale_after", () => {
    const w = at("2026-05-01T23:00:00Z");
    expect(decide(nightly, empty, at("2026-05-02T00:30:00Z"))).toMatchObject({
      kind: "dispatch",
      windowAt: w,
    });
    expect(decide(nightly, empty, at("2026-05-02T01:01:00Z"))).toMatchObject({ kind: "stale", windowAt: w });
  });

  it("opens a window the moment it is due, not a minute later", () => {
    const everyMinute = spec({ pattern: "* * * * *", timezone: "UTC" });
    const w = at("2026-05-01T09:51:00Z");
    expect(currentWindow(everyMinute, empty, w)).toBe(w);
    expect(currentWindow(everyMinute, empty, w + 11)).toBe(w);
    expect(currentWindow(everyMinute, empty, w - 1)).toBe(w - 60_000);
    expect(nextWindow(everyMinute, empty, w - 1)).toBe(w);
  });

  it("makes a retry's backoff a wake-up time", () => {
    const w = at("2026-05-01T23:00:00Z");
    const state = { attempts: [failedAt(w, w + MIN)] };
    const decision = decide(nightly, state, w + 2 * MIN);
    expect(decision).toMatchObject({ kind: "retry_at", at: w + 6 * MIN, attempt: 2, of: 3 });
    expect(nextEvent(nightly, state, w + 2 * MIN)).toBe(w + 6 * MIN);
    expect(decide(nightly, state, w + 6 * MIN)).toMatchObject({ kind: "dispatch", attempt: 2 });
  });

  it("loses no window in a DST gap or overlap", () => {
    const early = spec({ pattern: "30 2 * * *", timezone: "America/New_York" });
    // 2026-03-08: 02:30 does not exist in New York; the window still opens that night.
    const gapDay = currentWindow(early, empty, at("2026-03-08T16:00:00Z"));
    expect(new Date(gapDay as number).toISOString().slice(0, 10)).toBe("2026-03-08");
    // 2026-11-01: 01:30 happens twice; a 01:30 window opens once.
    const twice = spec({ pattern: "30 1 * * *", timezone: "America/New_York" });
    const first = nextWindow(twice, empty, at("2026-11-01T00:00:00Z")) as number;
    const second = nextWindow(twice, empty, first) as number;
    expect(second - first).toBeGreaterThan(20 * 3_600_000);
  });

  it("finds month ends and leap days", () => {
    const lastDay = spec({ pattern: "0 9 31 * *", timezone: "UTC" });
    expect(new Date(nextWindow(lastDay, empty, at("2026-04-01T00:00:00Z")) as number).toISOString()).toBe(
      "2026-05-31T09:00:00.000Z",
    );
    const leap = spec({ pattern: "0 12 29 2 *", timezone: "UTC" });
    expect(new Date(nextWindow(leap, empty, at("2026-01-01T00:00:00Z")) as number).toISOString()).toBe(
      "2028-02-29T12:00:00.000Z",
    );
  });

  it("never reads ok merely because today has no window", () => {
    const mondays = spec({ pattern: "0 7 * * 1", timezone: "UTC" });
    const monday = at("2026-05-04T07:00:00Z");
    const gaveUp = {
      attempts: [
        failedAt(monday, monday + MIN),
        failedAt(monday, monday + 7 * MIN),
        failedAt(monday, monday + 23 * MIN),
      ],
    };
    const wednesday = at("2026-05-06T12:00:00Z");
    expect(health(mondays, gaveUp, wednesday)).toMatchObject({ state: "failing" });
    expect(health(mondays, { attempts: [], firstSeenAt: monday - 86_400_000 }, wednesday).state).toBe(
      "stale",
    );
    expect(health(mondays, { attempts: [okAt(monday, monday + MIN)] }, wednesday).state).toBe("ok");
    const recovered = { attempts: [failedAt(monday, monday + MIN), okAt(monday, monday + 7 * MIN)] };
    expect(health(mondays, recovered, wednesday)).toMatchObject({ state: "degraded" });
    expect(health(mondays, empty, wednesday).state).toBe("never_ran");
  });
});
