import type { AskRecord } from "../tasks.js";

/** Rows of the task-extras tables as both stores read them, and their records (shared, not copied). */
export interface AskRow {
  id: string;
  task_id: string;
  question: string;
  asked_by: string;
  to_role: string;
  asked_at: string;
  answer: string | null;
  answered_by: string | null;
  answered_at: string | null;
}

export const toAsk = (row: AskRow): AskRecord => ({
  id: row.id,
  taskId: row.task_id,
  question: row.question,
  askedBy: row.asked_by,
  toRole: row.to_role,
  askedAt: row.asked_at,
  answer: row.answer,
  answeredBy: row.answered_by,
  answeredAt: row.answered_at,
});

/** The condition on open questions, all or one role's or one task's, with its values (both stores' SQL). */
export function openWhere(filter: { toRole?: string; taskId?: string; askedBy?: string }): {
  where: string;
  values: unknown[];
} {
  const where = ["answered_at IS NULL"];
  const values: unknown[] = [];
  if (filter.toRole !== undefined) {
    where.push("to_role = ?");
    values.push(filter.toRole);
  }
  if (filter.taskId !== undefined) {
    where.push("task_id = ?");
    values.push(filter.taskId);
  }
  if (filter.askedBy !== undefined) {
    where.push("asked_by = ?");
    values.push(filter.askedBy);
  }
  return { where: where.join(" AND "), values };
}
