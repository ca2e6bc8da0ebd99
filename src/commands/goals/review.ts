import { z } from "zod";
import { describeReview, settleReview } from "../../domains/goals/verdict.js";
import { defineCommand } from "../define.js";
import { shortId } from "../ids.js";
import { Attempt, attemptView, hooksSaid } from "./views.js";

const Settled = z.object({
  attempt: Attempt,
  kept_commit: z.string().nullable().describe("set only when accepting made a commit"),
  hooks: z.enum(["ran", "skipped"]).nullable(),
  next: z.string().nullable(),
});

const renderSettled = (out: z.infer<typeof Settled>) => {
  const r = out.attempt.resolution;
  const head = `${out.attempt.id}: ${r?.outcome ?? "settled"} by ${r?.by ?? "?"}${r?.reason ? ` (${r.reason})` : ""}`;
  const kept = out.kept_commit
    ? ` — kept as commit ${out.kept_commit.slice(0, 12)}${hooksSaid(out.hooks)}`
    : out.attempt.verdict === "keep"
      ? " — nothing to commit"
      : "";
  return [`${head}${kept}`, ...(out.next ? [`next: ${out.next}`] : [])].join("\n");
};

export const attemptAccept = defineCommand({
  name: "attempt accept",
  supervises: true,
  judgment: true,
  summary:
    "Workspace owner only: settle a review by keeping the attempt (commits its own changes; the owner's judgment)",
  effect: "write",
  positional: ["attempt"],
  input: z.object({
    attempt: shortId("AT").describe("attempt id in review"),
    reason: z.string().max(2000).optional().describe("why it is kept"),
    run_hooks: z.boolean().optional().describe("run the repository's commit hooks (default: skipped)"),
  }),
  output: Settled,
  personSees: (input, ctx) => describeReview(ctx.store, input.attempt, "accepted"),
  async handler(input, ctx) {
    const settled = await settleReview(
      ctx.store,
      ctx.workspace.root,
      input.attempt,
      ctx.actor,
      "accepted",
      input.reason,
      ctx.now(),
      { runHooks: input.run_hooks, signal: ctx.signal },
    );
    return {
      attempt: attemptView(settled.attempt),
      kept_commit: settled.attempt.resolution.keptCommit,
      hooks: settled.hooks,
      next: settled.next,
    };
  },
  render: renderSettled,
});

export const attemptReject = defineCommand({
  name: "attempt reject",
  judgment: true,
  summary:
    "Workspace owner only: settle a review by rejecting the attempt, with a reason; it then goes to revert",
  effect: "write",
  positional: ["attempt"],
  input: z.object({
    attempt: shortId("AT").describe("attempt id in review"),
    reason: z.string().min(1).max(2000).describe("why it is rejected"),
  }),
  output: Settled,
  personSees: (input, ctx) => describeReview(ctx.store, input.attempt, "rejected"),
  async handler(input, ctx) {
    const settled = await settleReview(
      ctx.store,
      ctx.workspace.root,
      input.attempt,
      ctx.actor,
      "rejected",
      input.reason,
      ctx.now(),
    );
    return { attempt: attemptView(settled.attempt), kept_commit: null, hooks: null, next: settled.next };
  },
  render: renderSettled,
});
