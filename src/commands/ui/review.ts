import { z } from "zod";
import type { Tx } from "../../store/store.js";
import { defineCommand } from "../define.js";

/** Attempts decided `review` and not reverted since: each waits for its owner's judgment. */
export async function reviewAttempts(tx: Tx) {
  const found: { attempt: string; run: string; goal: string; reason: string; decided_at: string | null }[] =
    [];
  for (const run of await tx.goals.runs()) {
    // Only those in review are read: every look at now reads this, and runs hold thousands.
    for (const attempt of await tx.goals.attemptsInReview(run.id)) {
      const reasons = (attempt.decision?.reasons as string[] | undefined) ?? [];
      found.push({
        attempt: attempt.id,
        run: run.id,
        goal: run.goalId,
        reason: reasons[0] ?? "within noise",
        decided_at: attempt.decidedAt,
      });
    }
  }
  return found;
}

export const reviewCommand = defineCommand({
  name: "review",
  summary: "The review queue: attempts waiting for a person's judgment, and tasks finished unverified",
  effect: "read",
  input: z.object({}),
  output: z.object({
    attempts: z.array(
      z.object({
        attempt: z.string(),
        run: z.string(),
        goal: z.string(),
        reason: z.string(),
        decided_at: z.string().nullable(),
      }),
    ),
    unverified: z.array(z.object({ id: z.string(), title: z.string(), owner: z.string().nullable() })),
    /** All tasks finished unverified; `unverified` lists the newest 200. */
    unverified_total: z.number().int(),
  }),
  async handler(_input, ctx) {
    return ctx.store.read(async (tx) => ({
      attempts: await reviewAttempts(tx),
      unverified: (await tx.tasks.unverifiedDone(200)).map((t) => ({
        id: t.id,
        title: t.title,
        owner: t.owner,
      })),
      unverified_total: await tx.tasks.countUnverifiedDone(),
    }));
  },
  render: (out) =>
    [
      ...out.attempts.map((a) => `${a.attempt} (${a.goal}, ${a.run}): ${a.reason}`),
      ...out.unverified.map((t) => `${t.id} finished unverified: ${t.title}`),
      ...(out.unverified_total > out.unverified.length
        ? [
            `… and ${out.unverified_total - out.unverified.length} more finished unverified (the newest are listed)`,
          ]
        : []),
    ].join("\n") || "Nothing waits for review.",
});
