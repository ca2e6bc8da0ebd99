import { taskId } from "../domains/tasks/common.js";
import type { Session } from "./context.js";

/**
 * What a stretch of the journal may have changed, as MCP resources see it. The journal says
 * which ids an event is about; a face re-reads only the subscribed resources those ids (or a
 * whole family, such as every brief after a note) could touch, and compares what it reads.
 */
export interface JournalTouch {
  /** Task and goal ids named by an event's subject or data (`T-12`, `G-3`). */
  ids: Set<string>;
  /** Any board event: the board's counts, holders or open questions may have moved. */
  board: boolean;
  /** Knowledge changed (notes, facts, risks, glossary, recorded briefs): any brief may differ. */
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

const ID = /\b[TG]-\d+\b/g;
const KNOWLEDGE = /^(note|fact|risk|glossary|brief)\./;
const GOAL_WORK = /^(goal|run|attempt|evaluator)\./;
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

export function touchOf(events: readonly TouchingEvent[]): JournalTouch {
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
    if (KNOWLEDGE.test(event.action)) touch.briefs = true;
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

/** Whether a `cairn://` resource may read differently after these events (skill files are not journaled). */
export function mayHaveChanged(uri: string, touch: JournalTouch): boolean {
  if (touch === TOUCH_ALL) return uri.startsWith("cairn://");
  if (uri === "cairn://board") return touch.board;
  const task = /^cairn:\/\/task\/([^/]+)(\/brief)?$/.exec(uri);
  if (task) {
    const id = journalId(task[1] as string, taskId);
    return (id !== undefined && touch.ids.has(id)) || (task[2] !== undefined && touch.briefs);
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
