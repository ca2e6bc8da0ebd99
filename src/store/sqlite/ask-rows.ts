import { ASK_HEAD_CHARS, type AskHeadRecord, type AskRecord, type OpenAskFilter } from "../asks.js";
import { headColumns, textHeadOf } from "./text-heads.js";

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

/** A listed question's columns: all but its question and answer, and those as heads (headColumns). */
export const ASK_HEAD_COLUMNS = `id, task_id, asked_by, to_role, asked_at, answered_by, answered_at,
  ${headColumns("question", ASK_HEAD_CHARS, "question")}, ${headColumns("answer", ASK_HEAD_CHARS, "answer")}`;

export interface AskHeadRow extends Omit<AskRow, "question" | "answer"> {
  question_head: string;
  question_length: number | null;
  answer_head: string | null;
  answer_length: number | null;
}

export const toAskHead = (row: AskHeadRow): AskHeadRecord => ({
  id: row.id,
  taskId: row.task_id,
  question: textHeadOf(row.question_head, row.question_length) ?? { head: "", length: 0 },
  askedBy: row.asked_by,
  toRole: row.to_role,
  askedAt: row.asked_at,
  answer: textHeadOf(row.answer_head, row.answer_length),
  answeredBy: row.answered_by,
  answeredAt: row.answered_at,
});

/** An open question's task, still live or ended (done or dropped); both stores' SQL. */
const ON_TASKS = {
  live: "EXISTS (SELECT 1 FROM tasks t WHERE t.id = task_asks.task_id AND t.status NOT IN ('done', 'dropped'))",
  ended: "EXISTS (SELECT 1 FROM tasks t WHERE t.id = task_asks.task_id AND t.status IN ('done', 'dropped'))",
} as const;

/**
 * The condition on open questions, all or one role's or one task's, and with `onTasks` only those
 * whose task is live or ended, with its values (both stores' SQL).
 */
export function openWhere(filter: OpenAskFilter): {
  where: string;
  values: unknown[];
} {
  const where = ["answered_at IS NULL"];
  if (filter.onTasks !== undefined) where.push(ON_TASKS[filter.onTasks]);
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
