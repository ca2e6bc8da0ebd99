/**
 * The task board's repositories: tasks with criteria and dependencies, asks, queues and
 * shortcuts. SQL-free; the SQLite implementation lives in ./sqlite/tasks.ts and siblings.
 */

import type { Setting } from "../kernel/setting.js";

export const PRIORITIES = ["must", "should", "could", "wont"] as const;
export type Priority = (typeof PRIORITIES)[number];
export const TASK_STATUSES = ["open", "active", "blocked", "done", "dropped"] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

export interface Estimate {
  optimistic: number;
  probable: number;
  pessimistic: number;
}

export interface TaskRecord {
  id: string;
  title: string;
  soThat: string;
  context: string;
  parentId: string | null;
  /** Depth-first position: the ancestors' sequence numbers, root first. */
  sortPath: string;
  priority: Priority;
  status: TaskStatus;
  owner: string | null;
  claimedAt: string | null;
  leaseAt: string | null;
  blockedReason: string | null;
  estimate: Estimate | null;
  traces: string[];
  labels: string[];
  /** Link to a goal milestone; the goals domain sets it. */
  milestoneId: string | null;
  unverified: boolean;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
}

/**
 * What a list shows of a task: enough to name and pick it, none of its long text. A task holds up
 * to 256 KiB of context and 64 KiB of traces; a page of them read whole to print five fields took
 * most of a list's time.
 */
export type TaskSummaryRecord = Pick<TaskRecord, "id" | "title" | "status" | "priority" | "owner">;

/** A ready task as offered: its summary, and the traces a caller's scope is judged by. */
export type ReadyTaskRecord = TaskSummaryRecord & Pick<TaskRecord, "traces" | "createdBy">;

/**
 * The start of a long text and its whole length, both in UTF-16 units as JavaScript counts them:
 * what a preview of it needs (kernel/text.ts, previewOfHead), read without the rest of the text.
 * `head` holds at least the text's first REASON_HEAD_CHARS units (all of it when it is shorter).
 */
export interface TextHead {
  head: string;
  length: number;
}

/** How much of a blocked reason a held task carries: no less than any preview of it shows. */
export const REASON_HEAD_CHARS = 500;

/**
 * A task as the board's status, `now` and `review` show it: its summary, its claim's times and
 * the head of why it is blocked. Those read up to a thousand tasks at every agent's first call;
 * read whole (context, traces, and a reason of up to 256 KiB each) they took most of its time.
 */
export type HeldTaskRecord = TaskSummaryRecord &
  Pick<TaskRecord, "claimedAt" | "leaseAt" | "unverified"> & { blockedReason: TextHead | null };

/** What a dependency shows of the task it waits on: its summary, and who wrote it (a brief says). */
export type DependencyRecord = TaskSummaryRecord & Pick<TaskRecord, "createdBy">;

export interface Evidence {
  argv: string[];
  exit_code: number | null;
  signal: string | null;
  timed_out: boolean;
  duration_ms: number;
  output_bytes: number;
  output_tail: string;
  output_sha256: string;
  git_head: string | null;
  error: string | null;
  at: string;
  /**
   * The tree the command judged: the git tree id of the content of the checkout it ran in (its
   * changes included, committed or not), when that is a git checkout; `tree_after` when the
   * check only added files to it, the one tree the tick then holds for. A finish on any other tree
   * finds the tick stale. Absent on older
   * evidence.
   */
  tree?: string;
  tree_after?: string;
  /** For a criterion verified through a shortcut: the definition that ran. */
  shortcut?: { name: string; version: number; source: "config" | "store"; argv: string[] };
}

export interface CriterionRecord {
  taskId: string;
  n: number;
  text: string;
  verify: string[] | null;
  shortcut: string | null;
  params: Record<string, string>;
  timeoutSeconds: number | null;
  checked: boolean;
  checkedBy: string | null;
  checkedAt: string | null;
  evidence: Evidence | null;
  /**
   * Where its command finds programs and which home it reads: its author's, recorded when it was
   * added (kernel/setting.ts). Null for a criterion without a command, or one added before.
   */
  setting: Setting | null;
  /**
   * The shortcut it names, as defined when it was set: what its check runs, whatever cairn.toml
   * (a file the checked agent can edit) says by then. Null without a shortcut, or set before.
   */
  shortcutDefinition: ShortcutRecord | null;
  /** The agent who added it (`owner` for the workspace owner); null for one added before this was kept. */
  addedBy: string | null;
}

export type NewCriterion = Pick<
  CriterionRecord,
  "text" | "verify" | "shortcut" | "params" | "timeoutSeconds" | "setting" | "addedBy"
> &
  Partial<Pick<CriterionRecord, "shortcutDefinition">>;

export interface NewTask {
  title: string;
  soThat: string;
  context: string;
  parentId: string | null;
  priority: Priority;
  estimate: Estimate | null;
  traces: string[];
  labels: string[];
  createdBy: string;
}

export type TaskChange = Partial<
  Pick<
    TaskRecord,
    | "title"
    | "soThat"
    | "context"
    | "status"
    | "owner"
    | "claimedAt"
    | "leaseAt"
    | "blockedReason"
    | "unverified"
    | "milestoneId"
  >
>;

export interface TaskFilter {
  status?: TaskStatus[];
  owner?: string;
  label?: string;
  parent?: string;
  text?: string;
  /** Tree order (depth-first) unless asked otherwise. */
  order?: TaskOrder;
  /**
   * Tree order only: the tasks after this one (by id), where a page that goes on from the last
   * task listed starts. Tasks that enter or leave the list before it move nothing after it, as
   * they move every offset.
   */
  after?: string;
  limit: number;
  offset: number;
}

export const TASK_ORDERS = ["tree", "priority", "status", "updated", "created", "title"] as const;
export type TaskOrder = (typeof TASK_ORDERS)[number];

/** A page of ids and how many there are in all. */
export interface IdPage {
  ids: string[];
  total: number;
}

export interface TaskNote {
  taskId: string;
  at: string;
  author: string;
  kind: string;
  text: string;
}

/** Lease stamps (ISO times) from `from` to `to`: the ones a sweep or a renewal leaves alone. */
export interface LeaseWindow {
  from: string;
  to: string;
}

export interface TaskRepo {
  insert(task: NewTask, at: string): Promise<TaskRecord>;
  byId(id: string): Promise<TaskRecord | undefined>;
  /** The tasks named that exist, in the order named, as summaries. */
  byIds(ids: readonly string[]): Promise<TaskSummaryRecord[]>;
  update(id: string, change: TaskChange, at: string): Promise<void>;
  /** Re-parent a task and its whole subtree (depth-first positions follow). */
  move(id: string, parentId: string | null, at: string): Promise<void>;
  /** `total` may stop counting past the page: then `capped` is true and the true count is higher. */
  list(filter: TaskFilter): Promise<{ tasks: TaskRecord[]; total: number; capped?: boolean }>;
  /** The same page as `list`, reading only each task's summary. */
  listSummaries(filter: TaskFilter): Promise<{ tasks: TaskSummaryRecord[]; total: number; capped?: boolean }>;
  /** The same page as `list`, each task read as a held task (a board card, a sweep): not whole. */
  listHeld(filter: TaskFilter): Promise<{ tasks: HeldTaskRecord[]; total: number; capped?: boolean }>;
  /** A task's children, oldest first, as summaries (a task shows every one of them). */
  children(id: string): Promise<TaskSummaryRecord[]>;
  /**
   * Ids of the tasks in these statuses that start with `prefix` (byte for byte), lowest number
   * first, at most `limit`; `total` counts every match. Completion asks it at each keystroke.
   */
  idsStartingWith(prefix: string, statuses: readonly TaskStatus[], limit: number): Promise<IdPage>;
  /**
   * Open tasks none of whose dependencies is still unfinished, best first (priority, then
   * depth-first order, then age), each read as its summary and traces. `accept` filters lazily so
   * only what is needed is read.
   */
  ready(
    accept: (task: ReadyTaskRecord) => boolean,
    limit: number,
    excluding?: string,
  ): Promise<ReadyTaskRecord[]>;
  countByStatus(): Promise<Record<string, number>>;
  /** The tasks `owner` holds active, oldest first, as summaries (a WIP cap counts them). */
  activeBy(owner: string): Promise<TaskSummaryRecord[]>;
  /** The first `limit` tasks in `status`, oldest first, each as a held task (not whole). */
  byStatus(status: TaskStatus, limit: number): Promise<HeldTaskRecord[]>;
  /** The newest `limit` tasks finished unverified, each as a held task (not whole). */
  unverifiedDone(limit: number): Promise<HeldTaskRecord[]>;
  /** How many tasks were finished unverified, beyond the page `unverifiedDone` lists. */
  countUnverifiedDone(): Promise<number>;
  /**
   * Active claims whose lease lies outside `live` (stamped before its start or after its end),
   * each as a held task (not whole).
   */
  staleClaims(live: LeaseWindow): Promise<HeldTaskRecord[]>;
  /** Renew every lease `owner` holds that lies outside `fresh`; returns how many. */
  renewLeases(owner: string, fresh: LeaseWindow, at: string): Promise<number>;
  hasStaleLease(owner: string, fresh: LeaseWindow): Promise<boolean>;
  /**
   * The time leases are stamped and judged by: `local` (the caller's clock) on a store one
   * machine holds; the server's own on a shared one. Machines sharing a store disagree on the
   * time, and a sweeper whose clock ran 40 minutes fast released every live claim it read.
   */
  leaseClock(local: string): Promise<string>;

  criteria(taskId: string): Promise<CriterionRecord[]>;
  /**
   * A task's criteria counted, none read: all of them, those checked, and those checked by a
   * command cairn ran that exited 0, set by the task's author or the owner (`owner`), or before
   * authors were kept. A board card shows these, and a task may hold a thousand criteria of 64 KiB each.
   */
  criteriaCounts(taskId: string): Promise<CriteriaCounts>;
  addCriterion(taskId: string, criterion: NewCriterion): Promise<CriterionRecord>;
  setCriterion(
    taskId: string,
    n: number,
    result: { checked: boolean; by: string; at: string; evidence: Evidence | null },
  ): Promise<void>;

  dependencies(taskId: string): Promise<DependencyRecord[]>;
  dependents(taskId: string): Promise<string[]>;
  addDependency(taskId: string, dependsOn: string): Promise<void>;
  removeDependency(taskId: string, dependsOn: string): Promise<void>;

  addNote(note: TaskNote): Promise<void>;
  /**
   * A task's newest `limit` notes, oldest first. Any agent that answers a question adds one, so
   * their number has no bound: a show or a brief reads a page of them and counts the rest.
   */
  notes(taskId: string, limit: number): Promise<TaskNote[]>;
  /** How many notes a task has in all. */
  countNotes(taskId: string): Promise<number>;
  /** Journal events of one action, newest first (sweeps, shortcut runs, proposals). */
  eventsOf(
    action: string,
    limit: number,
  ): Promise<{ at: string; actor: string; subject: string; data: Record<string, unknown> }[]>;
  countEvents(action: string): Promise<Record<string, number>>;
}

export interface CriteriaCounts {
  total: number;
  checked: number;
  verified: number;
}

export interface QueueRecord {
  name: string;
  steps: string[];
  cursor: number;
  createdAt: string;
}

/** What a list shows of a queue: where its cursor is and the step there, not every step. */
export interface QueueHead {
  name: string;
  cursor: number;
  /** How many steps it has. */
  steps: number;
  /** The step at the cursor; null once the cursor is past the last. */
  step: string | null;
  createdAt: string;
}

export interface QueueRepo {
  insert(name: string, steps: string[], at: string): Promise<void>;
  byName(name: string): Promise<QueueRecord | undefined>;
  /**
   * One page of the queues, first added first, each as its head (the other steps are not read
   * into the page: a queue may hold 256 KiB of them), and how many queues there are.
   */
  page(query: { limit: number; offset: number }): Promise<{ queues: QueueHead[]; total: number }>;
  /** Record a key once; false when it was already recorded (a replay). */
  claimKey(name: string, key: string, at: string): Promise<boolean>;
  setCursor(name: string, cursor: number): Promise<void>;
}

export const SHORTCUT_EFFECTS = ["read", "write", "destructive", "none"] as const;
export type ShortcutEffect = (typeof SHORTCUT_EFFECTS)[number];

export interface ShortcutRecord {
  name: string;
  argv: string[];
  effect: ShortcutEffect;
  roles: string[];
  summary: string;
  source: "config" | "store";
  /** Who defined it: `owner` for cairn.toml; only they (or the owner) may redefine it. */
  addedBy: string;
  /** 1 for the first definition, +1 per redefinition; 0 for cairn.toml (its file is the version). */
  version: number;
}

/** What decides who may run a shortcut, without its command or summary. */
export type ShortcutHead = Pick<ShortcutRecord, "name" | "effect" | "roles" | "source" | "addedBy">;

export interface ShortcutRepo {
  upsert(shortcut: Omit<ShortcutRecord, "source">, at: string): Promise<void>;
  byName(name: string): Promise<ShortcutRecord | undefined>;
  list(): Promise<ShortcutRecord[]>;
  /** Every stored shortcut's head, by name. */
  heads(): Promise<ShortcutHead[]>;
  /** A page of the stored shortcuts by name, leaving out the names in `excluding`, and how many there are. */
  page(window: {
    limit: number;
    offset: number;
    excluding: readonly string[];
  }): Promise<{ shortcuts: ShortcutRecord[]; total: number }>;
}
