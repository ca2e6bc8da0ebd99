import { z } from "zod";
import { TITLE_CHARS } from "../../domains/limits/limits.js";
import { RELATED_SHOWN } from "../../domains/tasks/board.js";
import { previewOfHead } from "../../kernel/text.js";
import type { Tx } from "../../store/store.js";
import { type HeldTaskRecord, TASK_STATUSES, type TaskStatus } from "../../store/tasks.js";
import { defineCommand } from "../define.js";
import { summaryView, TaskSummary } from "../tasks/views.js";

const Card = TaskSummary.extend({
  lease_at: z.string().nullable(),
  blocked_reason: z.string().nullable(),
  unverified: z.boolean(),
  criteria: z.object({
    total: z.number(),
    verified: z.number().describe("checked by cairn running the criterion's command"),
    claimed: z.number().describe("ticked by the owner with no command cairn could run"),
  }),
  depends_on: z
    .array(z.object({ id: z.string(), status: z.enum(TASK_STATUSES) }))
    .describe("the first 100 tasks it waits on"),
  depends_on_total: z.number(),
});

const Column = z.object({
  status: z.enum(TASK_STATUSES),
  total: z.number(),
  cards: z.array(Card),
});

async function card(tx: Tx, task: HeldTaskRecord): Promise<z.infer<typeof Card>> {
  // Counted in the store: a card shows no criterion's text or evidence.
  const { total, checked, verified } = await tx.tasks.criteriaCounts(task.id);
  const dependsOn = await tx.tasks.dependencies(task.id);
  return {
    ...summaryView(task),
    lease_at: task.leaseAt,
    // A preview, as in status: a column of cards each holding 256 KiB made a board no client reads.
    blocked_reason: task.blockedReason === null ? null : previewOfHead(task.blockedReason, TITLE_CHARS),
    unverified: task.unverified,
    criteria: { total, verified, claimed: checked - verified },
    // The first RELATED_SHOWN, as a task's detail: any writer may make a task wait on a thousand
    // others, and each card listed them all (35 KB a card).
    depends_on: dependsOn.slice(0, RELATED_SHOWN).map((d) => ({ id: d.id, status: d.status })),
    depends_on_total: dependsOn.length,
  };
}

export const boardCommand = defineCommand({
  name: "board",
  summary: "The board by status: each column's count and its first cards (criteria verified, owner, lease)",
  effect: "read",
  input: z.object({
    dropped: z.boolean().optional().describe("include the dropped column"),
    limit: z.number().int().min(1).max(200).optional().describe("cards per column"),
  }),
  output: z.object({ columns: z.array(Column) }),
  async handler(input, ctx) {
    const limit = input.limit ?? 50;
    const statuses: TaskStatus[] = [
      "open",
      "active",
      "blocked",
      "done",
      ...(input.dropped ? ["dropped" as const] : []),
    ];
    return ctx.store.read(async (tx) => {
      const columns = [];
      for (const status of statuses) {
        // Finished work reads best newest first; work to do reads best by priority.
        const order = status === "done" || status === "dropped" ? "updated" : "priority";
        const { tasks, total } = await tx.tasks.listHeld({ status: [status], order, limit, offset: 0 });
        const cards = [];
        for (const task of tasks) cards.push(await card(tx, task));
        columns.push({ status, total, cards });
      }
      return { columns };
    });
  },
  render: (out) =>
    out.columns
      .map(
        (c) =>
          `${c.status} (${c.total})\n${c.cards.map((t) => `  ${t.id} ${t.title} ${t.criteria.verified}/${t.criteria.total} verified${t.unverified ? " (finished unverified)" : ""}${t.owner ? ` [${t.owner}]` : ""}`).join("\n")}`,
      )
      .join("\n"),
});
