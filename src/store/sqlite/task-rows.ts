import type { Setting } from "../../kernel/setting.js";
import {
  type CriterionRecord,
  type DependencyRecord,
  type Estimate,
  type Evidence,
  type HeldTaskRecord,
  type Priority,
  REASON_HEAD_CHARS,
  type ReadyTaskRecord,
  type ShortcutRecord,
  type TaskRecord,
  type TaskStatus,
  type TaskSummaryRecord,
} from "../tasks.js";
import { headColumns, textHeadOf } from "./text-heads.js";

/** Rows of the board's tables and their mapping to records. */
export interface TaskRow {
  id: string;
  title: string;
  so_that: string;
  context: string;
  parent_id: string | null;
  sort_path: string;
  priority: Priority;
  status: TaskStatus;
  owner: string | null;
  claimed_at: string | null;
  lease_at: string | null;
  blocked_reason: string | null;
  estimate: string | null;
  traces: string;
  labels: string;
  milestone_id: string | null;
  unverified: number;
  created_by: string;
  created_at: string;
  updated_at: string;
}

/** A task row read as values (a statement in raw mode), COLUMNS in their order from `at`. */
export const taskRowOf = (v: readonly unknown[], at = 0): TaskRow => ({
  id: v[at] as string,
  title: v[at + 1] as string,
  so_that: v[at + 2] as string,
  context: v[at + 3] as string,
  parent_id: v[at + 4] as string | null,
  sort_path: v[at + 5] as string,
  priority: v[at + 6] as Priority,
  status: v[at + 7] as TaskStatus,
  owner: v[at + 8] as string | null,
  claimed_at: v[at + 9] as string | null,
  lease_at: v[at + 10] as string | null,
  blocked_reason: v[at + 11] as string | null,
  estimate: v[at + 12] as string | null,
  traces: v[at + 13] as string,
  labels: v[at + 14] as string,
  milestone_id: v[at + 15] as string | null,
  unverified: v[at + 16] as number,
  created_by: v[at + 17] as string,
  created_at: v[at + 18] as string,
  updated_at: v[at + 19] as string,
});

/**
 * What a list shows of a task, and its tree position (a page merged from runs is ordered by it):
 * none of the long columns (context, traces) a task row may hold hundreds of KiB of. SQLite still
 * steps through a long context's overflow pages to reach the columns stored after it (status,
 * priority, owner), but copies and parses none of it; PostgreSQL never fetches what is not named.
 */
export const SUMMARY_COLUMNS = "id, title, status, priority, owner, sort_path";
export type SummaryRow = TaskSummaryRecord & { sort_path: string };

/** A summary row read as values, SUMMARY_COLUMNS in their order. */
export const summaryRowOf = (v: readonly unknown[]): SummaryRow => ({
  id: v[0] as string,
  title: v[1] as string,
  status: v[2] as TaskStatus,
  priority: v[3] as Priority,
  owner: v[4] as string | null,
  sort_path: v[5] as string,
});

/**
 * The summary of any row that holds one (a list's, without the position it was ordered by; a held
 * task's; a dependency's): every record that starts with a summary starts with this.
 */
export const toSummary = (row: TaskSummaryRecord): TaskSummaryRecord => ({
  id: row.id,
  title: row.title,
  status: row.status,
  priority: row.priority,
  owner: row.owner,
});
/** A summary read as values, SUMMARY_COLUMNS in their order. */
export const summaryOf = (v: readonly unknown[]): TaskSummaryRecord => toSummary(summaryRowOf(v));

/**
 * A ready task's columns: its summary's, then the traces its scope is judged by and who wrote it
 * (a list of what to take next quotes each title as its author's words).
 */
export const READY_COLUMNS = `${SUMMARY_COLUMNS}, traces, created_by`;

/** A ready task from its row: keyed (PostgreSQL) or read as values in READY_COLUMNS order (SQLite). */
export const toReadyTask = (row: SummaryRow & { traces: string; created_by: string }): ReadyTaskRecord => ({
  ...toSummary(row),
  traces: JSON.parse(row.traces) as string[],
  createdBy: row.created_by,
});
export const readyTaskOf = (v: readonly unknown[]): ReadyTaskRecord =>
  toReadyTask({ ...summaryRowOf(v), traces: v[6] as string, created_by: v[7] as string });

/**
 * A held task's columns: its summary's and its claim's, then its blocked reason's head and length
 * (headColumns: read whole where SQL does not count as JavaScript does): still none of the task's
 * context or traces.
 */
export const HELD_COLUMNS = `id, title, status, priority, owner, claimed_at, lease_at,
  ${headColumns("blocked_reason", REASON_HEAD_CHARS, "reason")}, unverified`;

export interface HeldRow {
  id: string;
  title: string;
  status: TaskStatus;
  priority: Priority;
  owner: string | null;
  claimed_at: string | null;
  lease_at: string | null;
  reason_head: string | null;
  /** Null where the reason was read whole. */
  reason_length: number | null;
  unverified: number;
}

/** A held task from its row: keyed (PostgreSQL) or read as values in HELD_COLUMNS order (SQLite). */
export const toHeld = (row: HeldRow): HeldTaskRecord => ({
  ...toSummary(row),
  claimedAt: row.claimed_at,
  leaseAt: row.lease_at,
  unverified: row.unverified === 1,
  blockedReason: textHeadOf(row.reason_head, row.reason_length),
});
/** A held row read as values, HELD_COLUMNS in their order. */
export const heldRowOf = (v: readonly unknown[]): HeldRow => ({
  id: v[0] as string,
  title: v[1] as string,
  status: v[2] as TaskStatus,
  priority: v[3] as Priority,
  owner: v[4] as string | null,
  claimed_at: v[5] as string | null,
  lease_at: v[6] as string | null,
  reason_head: v[7] as string | null,
  reason_length: v[8] as number | null,
  unverified: v[9] as number,
});
export const heldOf = (v: readonly unknown[]): HeldTaskRecord => toHeld(heldRowOf(v));

/** A dependency's columns: its summary's, and its author's. */
export const DEPENDENCY_COLUMNS = "id, title, status, priority, owner, created_by";
export type DependencyRow = TaskSummaryRecord & { created_by: string };
export const toDependency = (row: DependencyRow): DependencyRecord => ({
  ...toSummary(row),
  createdBy: row.created_by,
});

export interface CriterionRow {
  task_id: string;
  n: number;
  text: string;
  verify: string | null;
  shortcut: string | null;
  params: string;
  timeout_seconds: number | null;
  checked: number;
  checked_by: string | null;
  checked_at: string | null;
  evidence: string | null;
  setting: string | null;
  shortcut_definition: string | null;
  added_by: string | null;
}

export const COLUMNS =
  "id, title, so_that, context, parent_id, sort_path, priority, status, owner, claimed_at, lease_at, blocked_reason, estimate, traces, labels, milestone_id, unverified, created_by, created_at, updated_at";

export const RANK: Record<Priority, number> = { must: 0, should: 1, could: 2, wont: 3 };
/**
 * A task's place in the tree and every place under it, given again under a new parent's path
 * (`?` the new path, then where the old one ends, then the old path three times). Below a path
 * is a range of the tree index ("/" sorts just before "0"): `LIKE path || '/%'` with the path
 * bound read every task of the board, 0.14 s a move at 200,000 tasks.
 */
export const SUBTREE_MOVE_SQL =
  "UPDATE tasks SET sort_path = ? || substr(sort_path, ?) WHERE sort_path = ? OR (sort_path > ? || '/' AND sort_path < ? || '0')";

export function toTask(row: TaskRow): TaskRecord {
  return {
    id: row.id,
    title: row.title,
    soThat: row.so_that,
    context: row.context,
    parentId: row.parent_id,
    sortPath: row.sort_path,
    priority: row.priority,
    status: row.status,
    owner: row.owner,
    claimedAt: row.claimed_at,
    leaseAt: row.lease_at,
    blockedReason: row.blocked_reason,
    estimate: row.estimate ? (JSON.parse(row.estimate) as Estimate) : null,
    traces: JSON.parse(row.traces) as string[],
    labels: JSON.parse(row.labels) as string[],
    milestoneId: row.milestone_id,
    unverified: row.unverified === 1,
    createdBy: row.created_by,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function toCriterion(row: CriterionRow): CriterionRecord {
  return {
    taskId: row.task_id,
    n: row.n,
    text: row.text,
    verify: row.verify ? (JSON.parse(row.verify) as string[]) : null,
    shortcut: row.shortcut,
    params: JSON.parse(row.params) as Record<string, string>,
    timeoutSeconds: row.timeout_seconds,
    checked: row.checked === 1,
    checkedBy: row.checked_by,
    checkedAt: row.checked_at,
    evidence: row.evidence ? (JSON.parse(row.evidence) as Evidence) : null,
    setting: row.setting ? (JSON.parse(row.setting) as Setting) : null,
    shortcutDefinition: row.shortcut_definition
      ? (JSON.parse(row.shortcut_definition) as ShortcutRecord)
      : null,
    addedBy: row.added_by,
  };
}
