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

/**
 * What a preview writes where it left items of a list or fields of an object out: a reader of the
 * journal that looks for the ids an event names (resource subscriptions) cannot see them all.
 */
export const PREVIEW_LEFT_OUT = /\u2026 \[\d+ more (items|fields)\]/;

/** Items of a list an event's preview shows; the rest are counted in a last item. */
export const PREVIEW_ITEMS = 20;
/**
 * About the most characters of JSON an event's data takes as a preview: past them, the rest of
 * its lists and fields are counted, not shown. A page of `activity` (500 events at most) stays
 * within 4 MiB, under what an MCP client reads in one message.
 */
export const PREVIEW_DATA_CHARS = 8 * 1024;

/**
 * A value as a preview, spending `budget.left` characters of JSON: each string as `previewText`
 * (at most `max` characters), each list its first PREVIEW_ITEMS items, and once the budget is
 * spent, the lists' items and objects' fields left are counted ("… [n more items]"). JSON's
 * escapes are counted as written: a string of control characters takes six each.
 */
function previewValue(value: unknown, max: number, budget: { left: number }): unknown {
  if (typeof value === "string") {
    const shown = previewText(value, Math.max(0, Math.min(max, budget.left)));
    budget.left -= JSON.stringify(shown).length + 1;
    return shown;
  }
  if (Array.isArray(value)) {
    const shown: unknown[] = [];
    for (const item of value) {
      if (shown.length >= PREVIEW_ITEMS || budget.left <= 0) break;
      shown.push(previewValue(item, max, budget));
    }
    if (shown.length < value.length) shown.push(`… [${value.length - shown.length} more items]`);
    return shown;
  }
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value);
    const shown: [string, unknown][] = [];
    for (const [key, item] of entries) {
      if (budget.left <= 0) break;
      const name = previewText(key, max);
      budget.left -= JSON.stringify(name).length + 1;
      shown.push([name, previewValue(item, max, budget)]);
    }
    if (shown.length < entries.length) shown.push(["…", `[${entries.length - shown.length} more fields]`]);
    return Object.fromEntries(shown);
  }
  budget.left -= String(value).length + 1;
  return value;
}

/**
 * An event's data as every view shows it, bounded. Events keep what a change carried (a shortcut's
 * command and the one it replaced, a block's whole reason): 250 words of 4 KB made one event 2 MB,
 * `activity` 41 MB and `now` 4.1 MB. Each string is cut to `max` characters, each list to its
 * first items, and the whole to about PREVIEW_DATA_CHARS; what was left out is counted.
 */
export const previewData = (data: Record<string, unknown>, max = TITLE_CHARS): Record<string, unknown> =>
  previewValue(data, max, { left: PREVIEW_DATA_CHARS }) as Record<string, unknown>;

/**
 * An event as a summary shows it (`now`, `activity`): its data as a preview. A block's reason is
 * kept whole on its task (`task show`); fifteen of 256 KiB made `now` carry 4 MB.
 */
export const eventPreview = (event: JournalEvent, owner: boolean): z.infer<typeof EventView> => {
  const view = eventView(event, owner);
  return { ...view, data: previewData(view.data) };
};

export const activityCommand = defineCommand({
  name: "activity",
  summary:
    "The event journal, newest first, filtered by actor, action (or `task.` prefix) and subject; each event's data as a bounded preview; paged",
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
      events: events.map((event) => eventPreview(event, ctx.actor.isOwner)),
      next_before: input.after === undefined && events.length === limit && last ? last.id : null,
    };
  },
  render: (out) =>
    out.events
      .map((e) => `${String(e.id).padStart(6)} ${e.at} ${e.actor.padEnd(8)} ${e.action} ${e.subject}`)
      .join("\n") || "No events match.",
});
