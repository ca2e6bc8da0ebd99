import { z } from "zod";
import { endedAsksLine } from "../../domains/tasks/asks.js";
import { boardStatus } from "../../domains/tasks/board-status.js";
import { readyFor } from "../../domains/tasks/claims.js";
import type { Tx } from "../../store/store.js";
import { defineCommand } from "../define.js";
import { summaryView, TaskSummary } from "../tasks/views.js";
import { BoardStatus, blockedLines, unverifiedLines } from "../workspace/status.js";
import { EventView, eventPreview } from "./activity.js";
import { reviewAttempts } from "./review.js";

const GoalStrip = z.object({
  id: z.string(),
  goal: z.string(),
  runs: z.number(),
  attempts: z.number(),
  kept: z.number(),
  in_review: z.number(),
  latest: z
    .object({ attempt: z.string(), verdict: z.enum(["keep", "revert", "review"]).nullable() })
    .nullable(),
});

const NowView = z.object({
  as_of: z.string(),
  lease_minutes: z.number(),
  counts: z.record(z.string(), z.number()),
  inbox: z.object({
    review: z.array(z.object({ attempt: z.string(), run: z.string(), goal: z.string(), reason: z.string() })),
    // As `status` shows them: the handler passes the board's status through.
    blocked: BoardStatus.shape.blocked,
    stale_claims: BoardStatus.shape.stale_claims,
    open_asks: BoardStatus.shape.open_asks,
    open_asks_total: BoardStatus.shape.open_asks_total,
    open_asks_on_ended: BoardStatus.shape.open_asks_on_ended,
    unverified: BoardStatus.shape.unverified,
    unverified_total: BoardStatus.shape.unverified_total,
  }),
  ready: z.array(TaskSummary),
  claims: z.array(
    TaskSummary.extend({
      claimed_at: z.string().nullable(),
      lease_at: z.string().nullable(),
      stale: z.boolean(),
    }),
  ),
  /** The goals changed last; `goals_total` counts them all (`cairn goal list`). */
  goals: z.array(GoalStrip),
  goals_total: z.number().int(),
  activity: z.array(EventView),
});

/** How many goals the strip shows: a board of thousands made every look at `now` read them all. */
const GOALS_SHOWN = 20;

async function goalStrip(tx: Tx): Promise<{ strip: z.infer<typeof GoalStrip>[]; total: number }> {
  const strip: z.infer<typeof GoalStrip>[] = [];
  const { goals, total } = await tx.goals.recentGoals(GOALS_SHOWN);
  for (const goal of goals) {
    const runs = await tx.goals.runs(goal.id);
    // Counted by the store: reading every attempt of every run whole, at each change, took the
    // Now page 6 s once an agent's loop had made 20,000.
    const tallies = await Promise.all(runs.map((run) => tx.goals.attemptTally(run.id)));
    const sum = (count: (tally: (typeof tallies)[number]) => number) =>
      tallies.reduce((total, tally) => total + count(tally), 0);
    const latest = tallies
      .map((tally) => tally.latest)
      .reduce<(typeof tallies)[number]["latest"]>(
        (last, next) => (next && (!last || next.openedAt >= last.openedAt) ? next : last),
        null,
      );
    strip.push({
      id: goal.id,
      goal: goal.goal,
      runs: runs.length,
      attempts: sum((tally) => tally.attempts),
      kept: sum((tally) => tally.kept),
      in_review: sum((tally) => tally.inReview),
      latest: latest ? { attempt: latest.id, verdict: latest.verdict } : null,
    });
  }
  return { strip, total };
}

export const nowCommand = defineCommand({
  name: "now",
  summary:
    "What needs a human now: reviews, blocked tasks, stale leases, questions; the ready queue and claims",
  effect: "read",
  input: z.object({ ready: z.number().int().min(1).max(50).optional().describe("how many ready tasks") }),
  output: NowView,
  async handler(input, ctx) {
    const now = ctx.now();
    const board = await boardStatus(ctx.store, ctx.config, now);
    const staleIds = new Set(board.stale_claims.map((claim) => claim.id));
    return ctx.store.read(async (tx) => {
      const goals = await goalStrip(tx);
      return {
        as_of: now,
        lease_minutes: ctx.config.claims.lease_minutes,
        counts: board.counts,
        inbox: {
          review: await reviewAttempts(tx),
          blocked: board.blocked,
          stale_claims: board.stale_claims,
          open_asks: board.open_asks,
          open_asks_total: board.open_asks_total,
          open_asks_on_ended: board.open_asks_on_ended,
          unverified: board.unverified,
          unverified_total: board.unverified_total,
        },
        ready: (await readyFor(tx, ctx.config, ctx.actor, input.ready ?? 10)).map(summaryView),
        claims: (await tx.tasks.byStatus("active", 200)).map((task) => ({
          ...summaryView(task),
          claimed_at: task.claimedAt,
          lease_at: task.leaseAt,
          stale: staleIds.has(task.id),
        })),
        goals: goals.strip,
        goals_total: goals.total,
        activity: (await tx.journal.list({ limit: 15 })).map((event) =>
          eventPreview(event, ctx.actor.isOwner),
        ),
      };
    });
  },
  render: (out) =>
    [
      `as of ${out.as_of}`,
      `needs a human: ${out.inbox.review.length} in review, ${out.counts.blocked ?? 0} blocked, ${out.inbox.stale_claims.length} stale claims, ${out.inbox.open_asks_total} open questions${out.inbox.open_asks_on_ended > 0 ? ` ${endedAsksLine(out.inbox.open_asks_on_ended)}` : ""}, ${out.inbox.unverified_total} finished unverified`,
      ...out.inbox.review.map((r) => `  review ${r.attempt} (${r.goal}): ${r.reason}`),
      ...blockedLines(out.inbox.blocked, out.counts.blocked ?? 0),
      // A finish nothing cairn ran vouched for is the person's to look at, as --json already said.
      ...unverifiedLines(out.inbox.unverified, out.inbox.unverified_total),
      `ready: ${out.ready.map((t) => t.id).join(", ") || "(none)"}`,
      ...out.claims.map(
        (c) => `  ${c.id} held by ${c.owner} since ${c.lease_at}${c.stale ? " (stale)" : ""}`,
      ),
    ].join("\n"),
});
