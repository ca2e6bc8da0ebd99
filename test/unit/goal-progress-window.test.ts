import { describe, expect, it } from "vitest";
import { Session } from "../../src/commands/context.js";
import type { AnyCommand } from "../../src/commands/define.js";
import { dispatch } from "../../src/commands/dispatch.js";
import { COMMANDS_BY_NAME } from "../../src/commands/registry.js";
import { goalFields, newAttempt, newRun, newSample } from "../helpers/new-attempt.js";
import { cleanEnv, initWorkspace } from "../helpers/workspace.js";

const AT = Date.parse("2026-06-01T00:00:00.000Z");

/**
 * A goal's chart shows the newest attempts of a long run, standing on all of it: each point it
 * shows (its value, the running best, the gain over the baseline) is the point the whole chart has
 * for that attempt, though the kept attempts before the window are not charted.
 */
describe("a goal's attempts chart", () => {
  it("charts the newest attempts as the whole chart has them, baseline and running best included", async () => {
    const ws = initWorkspace();
    const session = new Session({ cwd: ws.dir, env: cleanEnv() });
    try {
      const { store } = await session.context();
      const goalId = await store.write(async (tx) => {
        const at = (n: number) => new Date(AT + n * 1000).toISOString();
        const goal = await tx.goals.insertGoal(goalFields("fast"), "owner", at(0));
        const manifest = [{ name: "speed", proof: "speed", definition: { direction: "lower" } }] as never;
        const run = await tx.goals.insertRun(newRun(goal, at(0), manifest));
        // 40 attempts; the early ones kept (the baseline and the best so far stand on them), a
        // later one reverted after its keep, and values that fall then climb.
        for (let n = 0; n < 40; n++) {
          const attempt = await tx.goals.insertAttempt(newAttempt(run.id, at(n)));
          for (const [repeat, value] of [50 - n + (n % 3), 51 - n].entries())
            await tx.goals.insertSample(
              newSample(attempt.id, "speed", repeat, n > 30 ? value + 2 * (n - 30) : value, at(n)),
            );
          const verdict = n < 12 && n % 4 === 1 ? "keep" : n === 33 ? "keep" : "revert";
          await tx.goals.recordDecision(attempt.id, verdict, { reasons: [`reason ${n}`] }, at(n));
          if (n === 5) await tx.goals.markReverted(attempt.id, at(n));
        }
        await tx.journal.append({
          at: at(0),
          actor: "owner",
          action: "test.seed",
          subject: run.id,
          data: {},
        });
        return goal.id;
      });
      const progress = COMMANDS_BY_NAME.get("goal progress") as AnyCommand;
      const chart = async (limit: number) => {
        const outcome = await dispatch(progress, { id: goalId, limit }, session);
        if (outcome.kind !== "ok") throw new Error(JSON.stringify(outcome));
        return outcome.value as {
          attempts: number;
          kept: number;
          charted: number;
          series: { baseline: unknown; points: { attempt: string; best: number | null }[] }[];
        };
      };
      const whole = await chart(40);
      const newest = await chart(10);
      expect(whole).toMatchObject({ attempts: 40, kept: 3, charted: 40 });
      expect(newest).toMatchObject({ attempts: 40, kept: 3, charted: 10 });
      const [all, tail] = [whole.series[0], newest.series[0]];
      expect(tail?.baseline).toEqual(all?.baseline);
      expect(tail?.points).toEqual(all?.points.slice(-10));
      // The best it carries in was set by a kept attempt it does not chart.
      expect(tail?.points[0]?.best).toBe(all?.points[29]?.best);
      expect(all?.points[29]?.best).not.toBeNull();
    } finally {
      await session.close();
      ws.cleanup();
    }
  });
});
