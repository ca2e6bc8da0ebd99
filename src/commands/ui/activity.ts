import { z } from "zod";
import { TITLE_CHARS } from "../../domains/limits/limits.js";
import { previewText } from "../../kernel/text.js";
import type { JournalEvent } from "../../store/store.js";
import { defineCommand } from "../define.js";

export const EventView = z.object({
  id: z.number(),
  at: z.string(),
  actor: z.string(),
  action: z.string(),
  subject: z.string(),
  data: z.record(z.string(), z.unknown()),
});

/**
 * An event as a caller may see it. Attempt events can carry what a hidden evaluator measured,
 * which only the owner sees; anyone else gets those events without their data.
 */
export const eventView = (event: JournalEvent, owner: boolean): z.infer<typeof EventView> => ({
  ...event,
  data: owner || !event.action.startsWith("attempt.") ? event.data : {},
});

/** A value with each string in it as a preview (`previewText`), for views that summarise. */
function previewStrings(value: unknown, max: number): unknown {
  if (typeof value === "string") return previewText(value, max);
  if (Array.isArray(value)) return value.map((item) => previewStrings(item, max));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, previewStrings(item, max)]));
  }
  return value;
}

/**
 * An event as a summary shows it (`now`): its texts as previews. A block's reason is kept whole in
 * the journal, which `activity` pages through; fifteen of 256 KiB made `now` carry 4 MB.
 */
export const eventPreview = (event: JournalEvent, owner: boolean): z.infer<typeof EventView> => {
  const view = eventView(event, owner);
  return { ...view, data: previewStrings(view.data, TITLE_CHARS) as Record<string, unknown> };
};

export const activityCommand = defineCommand({
  name: "activity",
  summary:
    "The event journal, newest first, filtered by actor, action (or `task.` prefix) and subject; paged",
  effect: "read",
  input: z.object({
    actor: z.string().optional().describe("agent id, or owner"),
    action: z.string().optional().describe('e.g. task.claim, or a family such as "task."'),
    subject: z.string().optional().describe("e.g. T-12"),
    after: z.number().int().min(0).optional().describe("only events after this id, oldest first"),
    before: z.number().int().min(1).optional().describe("the page before this id"),
    limit: z.number().int().min(1).max(500).optional(),
    data: z.boolean().optional().describe("false: each event's data left out (who did what to what only)"),
  }),
  output: z.object({ events: z.array(EventView), next_before: z.number().nullable() }),
  async handler(input, ctx) {
    const limit = input.limit ?? 50;
    const events = await ctx.store.read((tx) =>
      tx.journal.list({
        actor: input.actor,
        action: input.action,
        subject: input.subject,
        afterId: input.after,
        beforeId: input.before,
        limit,
        withoutData: input.data === false,
      }),
    );
    const last = events.at(-1);
    return {
      events: events.map((event) => eventView(event, ctx.actor.isOwner)),
      next_before: input.after === undefined && events.length === limit && last ? last.id : null,
    };
  },
  render: (out) =>
    out.events
      .map((e) => `${String(e.id).padStart(6)} ${e.at} ${e.actor.padEnd(8)} ${e.action} ${e.subject}`)
      .join("\n") || "No events match.",
});
