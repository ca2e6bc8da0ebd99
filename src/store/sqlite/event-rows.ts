import type { JournalEvent, JournalFilter } from "../store.js";

/** Rows of the journal tables as both stores read them, and their records (shared, not copied). */
export interface EventRow {
  id: number;
  at: string;
  actor: string;
  action: string;
  subject: string;
  data: string;
}

export const toEvent = (row: EventRow): JournalEvent => ({
  ...row,
  data: JSON.parse(row.data) as Record<string, unknown>,
});

/**
 * The WHERE clause of a journal page, with named parameters. `startsWith` is the dialect's test
 * that `action` begins with `@action` ("task." selects a family of actions).
 */
export function journalWhere(
  filter: JournalFilter,
  startsWith: string,
): { clause: string; values: Record<string, unknown> } {
  const where: string[] = [];
  const values: Record<string, unknown> = {};
  if (filter.afterId !== undefined) {
    where.push("id > @after");
    values.after = filter.afterId;
  }
  if (filter.beforeId !== undefined) {
    where.push("id < @before");
    values.before = filter.beforeId;
  }
  if (filter.actor !== undefined) {
    where.push("actor = @actor");
    values.actor = filter.actor;
  }
  if (filter.subject !== undefined) {
    where.push("subject = @subject");
    values.subject = filter.subject;
  }
  if (filter.action !== undefined) {
    // "task." selects a family of actions; anything else is one exact action.
    where.push(filter.action.endsWith(".") ? startsWith : "action = @action");
    values.action = filter.action;
  }
  return { clause: where.length > 0 ? `WHERE ${where.join(" AND ")}` : "", values };
}
