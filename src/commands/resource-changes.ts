import { taskId } from "../domains/tasks/common.js";
import type { Session } from "./context.js";
import { PREVIEW_LEFT_OUT } from "./ui/activity.js";

/**
 * What a stretch of the journal may have changed, as MCP resources see it. The journal says
 * which ids an event is about; a face re-reads only the subscribed resources those ids (or a
 * whole family, such as every brief after a note) could touch, and compares what it reads.
 */
export interface JournalTouch {
  /** Ids named by an event's subject or data: tasks, goals, notes, questions (`T-12`, `G-3`, `N-4`, `Q-2`). */
  ids: Set<string>;
  /** Any board event: the board's counts, holders or open questions may have moved. */
  board: boolean;
  /**
   * Anything a brief gathers may have changed: besides its task, a brief quotes the workspace's
   * knowledge, related tasks, the goal its milestone serves, the role's instructions and the
   * shortcuts. Only bookkeeping (heartbeats, runs, lease renewals) leaves briefs as they were.
   */
  briefs: boolean;
  /** A goal's runs, attempts or evaluators moved: any goal may differ. */
  goals: boolean;
  /** A task or goal entered or left the listed set: `resources/list` differs. */
  listChanged: boolean;
}

/** Just enough of a journal event to decide what it touched; the face never forwards it. */
export interface TouchingEvent {
  action: string;
  subject: string;
  data: Record<string, unknown>;
}

/** An id as cairn spells it: a task, goal, note, question... (`T-12`, `N-4`, `RK-2`). */
const ID = /\b[A-Z]{1,3}-\d+\b/g;
const GOAL_WORK = /^(goal|run|attempt|evaluator)\./;
/**
 * Bookkeeping no brief shows: a local agent's run-time events, and lease renewals (about the
 * agent, not a task; the board still hears them, its stale claims may clear).
 */
const BOOKKEEPING = /^(agent\.(daemon|schedule|run|remediation)|task\.lease_renew$)/;
/** Events that add a task or goal to the listed set (open, active, blocked) or take one out. */
const LISTING = new Set([
  "task.add",
  "task.drop",
  "task.finish",
  "task.reopen",
  "goal.create",
  "workspace.import",
]);

function collectIds(value: unknown, into: Set<string>, depth = 0): void {
  if (typeof value === "string") {
    for (const match of value.matchAll(ID)) into.add(match[0]);
  } else if (depth < 3 && value && typeof value === "object") {
    for (const inner of Object.values(value)) collectIds(inner, into, depth + 1);
  }
}

/**
 * The ids a resource's content shows: a task shows its dependencies, dependents, children,
 * questions and notes, so an event naming one of them may change it though it never names the task.
 */
export function idsShown(content: string): ReadonlySet<string> {
  const ids = new Set<string>();
  collectIds(content, ids);
  return ids;
}

export function touchOf(events: readonly TouchingEvent[]): JournalTouch {
  // An event read as a preview with items of its lists left out (a plan of more milestones than
  // a preview lists, a sweep of many claims) names ids this cannot see: anything may have changed.
  if (events.some((event) => PREVIEW_LEFT_OUT.test(JSON.stringify(event.data)))) return TOUCH_ALL;
  const touch: JournalTouch = {
    ids: new Set(),
    board: false,
    briefs: false,
    goals: false,
    listChanged: false,
  };
  for (const event of events) {
    const named = new Set<string>();
    collectIds(event.subject, named);
    collectIds(event.data, named);
    for (const id of named) touch.ids.add(id);
    if (event.action.startsWith("task.") || [...named].some((id) => id.startsWith("T-"))) touch.board = true;
    if (!BOOKKEEPING.test(event.action)) touch.briefs = true;
    if (GOAL_WORK.test(event.action)) touch.goals = true;
    if (LISTING.has(event.action)) touch.listChanged = true;
    if (event.action === "workspace.import") Object.assign(touch, { board: true, briefs: true, goals: true });
  }
  return touch;
}

/** Everything may have changed: what a reader assumes when it missed more than it can read. */
export const TOUCH_ALL: JournalTouch = {
  ids: new Set(),
  board: true,
  briefs: true,
  goals: true,
  listChanged: true,
};

/**
 * The id a URI's path segment names, spelled as the journal spells it: a task resource reads
 * `t-3` or `3` as T-3, so its subscription must hear what the journal says of T-3. Undefined
 * when the segment names no id.
 */
function journalId(segment: string, canonical: (id: string) => string = (id) => id): string | undefined {
  try {
    return canonical(decodeURIComponent(segment));
  } catch {
    return undefined;
  }
}

/**
 * Whether a `cairn://` resource may read differently after these events (skill files are not
 * journaled). `shown` is what its last read showed (`idsShown`): an event about one of those may
 * change it too.
 */
export function mayHaveChanged(
  uri: string,
  touch: JournalTouch,
  shown: ReadonlySet<string> = new Set(),
): boolean {
  if (touch === TOUCH_ALL) return uri.startsWith("cairn://");
  if (uri === "cairn://board") return touch.board;
  const task = /^cairn:\/\/task\/([^/]+)(\/brief)?$/.exec(uri);
  if (task) {
    const id = journalId(task[1] as string, taskId);
    if (id !== undefined && touch.ids.has(id)) return true;
    if (task[2] !== undefined) return touch.briefs;
    return [...shown].some((other) => touch.ids.has(other));
  }
  const goal = /^cairn:\/\/goal\/([^/]+)$/.exec(uri);
  if (goal) {
    const id = journalId(goal[1] as string);
    return touch.goals || (id !== undefined && touch.ids.has(id));
  }
  return false;
}

/**
 * The store's change signal for a face that cannot reach the store: `onAdvance` runs whenever
 * the workspace may have advanced (another process or machine wrote; PostgreSQL pushes it, SQLite
 * polls `data_version`). It carries no data: the face then reads the journal through commands.
 */
export async function watchWorkspace(session: Session, onAdvance: () => void): Promise<() => void> {
  const ctx = await session.context();
  return ctx.store.changes.subscribe(() => onAdvance());
}
