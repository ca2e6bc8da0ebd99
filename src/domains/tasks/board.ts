import { conflict, refuse, usageError } from "../../kernel/outcome.js";
import type { Setting } from "../../kernel/setting.js";
import { shortIdNumber, shortIdStart } from "../../kernel/short-id.js";
import { previewText } from "../../kernel/text.js";
import type { AskRecord } from "../../store/asks.js";
import type { NoteRecord } from "../../store/knowledge.js";
import type { Store, Tx } from "../../store/store.js";
import type {
  CriterionRecord,
  DependencyRecord,
  IdPage,
  Priority,
  TaskFilter,
  TaskNote,
  TaskRecord,
  TaskStatus,
  TaskSummaryRecord,
} from "../../store/tasks.js";
import { type Actor, OWNER } from "../identity/actor.js";
import { taskScope } from "../knowledge/text.js";
import { requireTotalChars } from "../limits/limits.js";
import { WorkspaceConfig } from "../workspace/config.js";
import { RULES_CHANGED, type RulesChange, rulesChanges } from "../workspace/rules-watch.js";
import { ASKS_SHOWN, askPreview, NOTE_PREVIEW_CHARS, taskNotePreview } from "./asks.js";
import { requireWipRoom } from "./claims.js";
import {
  journal,
  loadTask,
  parseEstimate,
  requireEpicHolder,
  requireOwnersStopKept,
  requirePlanAuthority,
  who,
} from "./common.js";
import { type CriterionInput, toCriterion, withShortcutDefinitions } from "./criteria.js";
import { requireNoWaitOnOwnEpic } from "./epic-waits.js";
import { requireTasks, requireTreeRoom } from "./tree.js";

export interface AddTaskRequest {
  title: string;
  so_that?: string;
  context?: string;
  parent?: string;
  priority?: Priority;
  criteria?: (string | CriterionInput)[];
  depends_on?: string[];
  estimate?: string;
  traces?: string[];
  labels?: string[];
}

/**
 * The most characters a task's traces hold in all (a thousand paths of 64). Each path alone may
 * hold 4 KiB and a list a thousand items, so a task could carry 4 MB of them; and every scoped
 * agent's `task ready` (next_task) reads and matches the traces of each open task it passes over:
 * a hundred such tasks, which any agent with a write grant can add, kept it busy for seconds.
 */
export const MAX_TRACE_CHARS = 64 * 1024;

/** `setting`: the adder's, kept with each criterion that names a command (see toCriterion). */
export async function addTask(
  store: Store,
  actor: Actor,
  request: AddTaskRequest,
  now: string,
  setting: Setting,
  /** For the shortcuts criteria name; without it, only those in the store (none from cairn.toml). */
  config: WorkspaceConfig = WorkspaceConfig.parse({}),
) {
  if (request.title.trim() === "") throw usageError("a task needs a title");
  const estimate = parseEstimate(request.estimate);
  requireTotalChars(
    "traces",
    request.traces ?? [],
    MAX_TRACE_CHARS,
    "name the folders the work touches rather than each file, or split the task (`cairn task add --parent`)",
  );
  const criteria = (request.criteria ?? []).map((criterion) => toCriterion(criterion, setting, actor.id));
  return store.write(async (tx) => {
    const parent = request.parent ? await loadTask(tx, request.parent) : undefined;
    if (parent) {
      await requireEpicHolder(tx, parent, actor);
      requireTreeRoom(parent, 1);
    }
    const dependsOn = await requireTasks(tx, request.depends_on ?? []);
    const task = await tx.tasks.insert(
      {
        title: request.title.trim(),
        soThat: request.so_that ?? "",
        context: request.context ?? "",
        parentId: parent?.id ?? null,
        priority: request.priority ?? "should",
        estimate,
        traces: request.traces ?? [],
        labels: request.labels ?? [],
        createdBy: actor.id,
      },
      now,
    );
    for (const criterion of await withShortcutDefinitions(tx, config, criteria))
      await tx.tasks.addCriterion(task.id, criterion);
    await requireNoWaitOnOwnEpic(tx, task.id, task.parentId, dependsOn);
    for (const dependency of dependsOn) await tx.tasks.addDependency(task.id, dependency);
    await journal(tx, actor, now, "task.add", task.id, { title: task.title, parent: task.parentId });
    return task;
  });
}

export interface TaskDetail {
  task: TaskRecord;
  criteria: CriterionRecord[];
  /** The first RELATED_SHOWN tasks it waits on; `dependsOnTotal` counts them all. */
  dependsOn: DependencyRecord[];
  dependsOnTotal: number;
  /** The first RELATED_SHOWN tasks waiting on it; `dependentsTotal` counts them all. */
  dependents: TaskSummaryRecord[];
  dependentsTotal: number;
  /** Its first RELATED_SHOWN children in tree order; `childrenTotal` counts them all. */
  children: TaskSummaryRecord[];
  childrenTotal: number;
  /** Its oldest open questions, at most ASKS_SHOWN, each previewed; `openAsks` counts them all. */
  asks: AskRecord[];
  openAsks: number;
  /**
   * Its newest notes of each kind (its own, the answers; the knowledge notes scoped to it), at most
   * NOTES_SHOWN of each, each previewed, oldest first; `notesTotal` counts them all.
   */
  notes: TaskNote[];
  notesTotal: number;
  /**
   * Changes of cairn.toml's rules first seen since it was added (to its finish, or to now), newest
   * first, at most RULES_CHANGES_SHOWN: none means it was finished under the rules it was added
   * under; a finish held to rules its holder may have loosened is the owner's to look at.
   */
  rulesChanged: RulesChange[];
  /** Earlier changes in that span were left out: more than RULES_CHANGES_SHOWN. */
  rulesChangedMore: boolean;
}

/** How many rules changes a task's page names. */
const RULES_CHANGES_SHOWN = 10;

/**
 * The journal's span of a task's life that its finish rests on: from its adding to its finish (a
 * finished one) or to now. It opens at the changes the task was added under that agents' calls
 * first saw (back to one an owner's call saw): an agent that loosens the rules, then adds its own
 * task and finishes it, finishes under rules that changed in its own span. A task whose adding is
 * not in the journal is looked at from the start.
 */
async function taskSpan(tx: Tx, task: TaskRecord): Promise<{ afterId?: number; beforeId?: number }> {
  const [added] = await tx.journal.list({ subject: task.id, action: "task.add", limit: 1 });
  const [finish] =
    task.status === "done"
      ? await tx.journal.list({ subject: task.id, action: "task.finish", limit: 1 })
      : [];
  // Newest first; one more than a page names, so a longer run still says earlier ones were left out.
  const addedUnder = added
    ? await tx.journal.list({
        action: RULES_CHANGED,
        subject: "cairn.toml",
        beforeId: added.id,
        limit: RULES_CHANGES_SHOWN + 1,
      })
    : [];
  // The whole run of changes agents' calls first saw: opened at its newest alone, an agent that
  // emptied [done] and then added a role in a second edit showed the role and not the [done].
  let opensAt: number | undefined;
  for (const change of addedUnder) {
    if (change.data.first_seen_in_call_of === OWNER.id) break;
    opensAt = change.id;
  }
  const after = opensAt !== undefined ? opensAt - 1 : added?.id;
  return { ...(after !== undefined ? { afterId: after } : {}), ...(finish ? { beforeId: finish.id } : {}) };
}

/** A knowledge note (decision, finding, metric, ref) as one line of a task's notes. */
function noteLine(note: NoteRecord, taskId: string): TaskNote {
  const body = note.body;
  const text =
    body.kind === "decision"
      ? `chose ${body.chose}; rejected ${body.rejected}; because ${body.because}`
      : body.kind === "finding"
        ? `[${body.severity}, ${body.trust}] ${body.text}`
        : body.kind === "metric"
          ? `goal: ${body.goal} question: ${body.question} metric: ${body.metric}`
          : `${body.target}${body.summary ? ` — ${body.summary}` : ""}`;
  return {
    taskId,
    at: note.createdAt,
    author: note.author,
    kind: `${body.kind} ${note.id}`,
    text: previewText(text, NOTE_PREVIEW_CHARS, `\`cairn note show ${note.id}\``),
  };
}

/**
 * Notes a task's detail shows at most of each kind: its own (answers) and the knowledge notes
 * scoped to it. Anyone may answer or record a finding on any task, a read-only agent too: 210
 * findings of 120 KB made every show of a task 24 MB. The rest are a `note list --scope` (and
 * `asks --all`) away.
 */
export const NOTES_SHOWN = 20;

/**
 * Children, dependents and dependencies shown at most on one task (and its board card). Any writer
 * can put tasks under a task or make them wait on it, or make it wait on a thousand: ten thousand
 * of them would make every show of it (and a model's context) about a megabyte. Children are a
 * `task list --parent` away.
 */
export const RELATED_SHOWN = 100;

/** Task ids (`T-12`) in the order the tasks were made. */
const byNumber = (a: string, b: string) => shortIdNumber(a) - shortIdNumber(b);

/** Everything on one task: its own notes (answers, proposals) and the knowledge notes scoped to it. */
export async function showTask(store: Store, raw: string): Promise<TaskDetail> {
  return store.read(async (tx) => {
    const task = await loadTask(tx, raw);
    const dependents = (await tx.tasks.dependents(task.id)).sort(byNumber);
    const children = await tx.tasks.children(task.id);
    const scope = taskScope(task.id);
    // Newest first from the store; oldest first here, as the task's own, before they are merged.
    const scoped = (await tx.notes.list({ scopes: [scope], limit: NOTES_SHOWN })).reverse();
    const own = await tx.tasks.notes(task.id, NOTES_SHOWN);
    const notes = [...own.map(taskNotePreview), ...scoped.map((note) => noteLine(note, task.id))].sort(
      (a, b) => a.at.localeCompare(b.at),
    );
    // Any writer may make another's task wait on a thousand others.
    const dependsOn = await tx.tasks.dependencies(task.id);
    const rulesChanged =
      task.status === "dropped"
        ? { changes: [], more: false }
        : await rulesChanges(tx, await taskSpan(tx, task), RULES_CHANGES_SHOWN);
    return {
      task,
      criteria: await tx.tasks.criteria(task.id),
      dependsOn: dependsOn.slice(0, RELATED_SHOWN),
      dependsOnTotal: dependsOn.length,
      dependents: await tx.tasks.byIds(dependents.slice(0, RELATED_SHOWN)),
      dependentsTotal: dependents.length,
      children: children.slice(0, RELATED_SHOWN),
      childrenTotal: children.length,
      // Anyone may ask, a read-only agent too: a flood of questions must not make every show huge.
      asks: (await tx.asks.openHeads({ taskId: task.id, limit: ASKS_SHOWN })).map(askPreview),
      openAsks: await tx.asks.countOpen({ taskId: task.id }),
      notes,
      notesTotal: (await tx.tasks.countNotes(task.id)) + (await tx.notes.countInScope(scope)),
      rulesChanged: rulesChanged.changes,
      rulesChangedMore: rulesChanged.more,
    };
  });
}

/** A page of the board, each task as its summary: a list shows none of a task's long text. */
export async function listTasks(store: Store, filter: TaskFilter) {
  return store.read(async (tx) => {
    const parent = filter.parent !== undefined ? (await loadTask(tx, filter.parent)).id : undefined;
    return tx.tasks.listSummaries({ ...filter, parent });
  });
}

/** The tasks worth offering by id: the ones being worked on or waiting to be. */
export const LIVE_STATUSES: readonly TaskStatus[] = ["active", "open", "blocked"];

/**
 * Live task ids that start with what was typed, lowest number first, with how many there are:
 * `T-13`, `t-13` and `13` each offer T-13 and T-130…, as any of them names a task; `T` or
 * nothing offers every live task.
 */
export async function liveTaskIdsStartingWith(store: Store, typed: string, limit: number): Promise<IdPage> {
  const prefix = shortIdStart(typed, "T");
  if (prefix === undefined) return { ids: [], total: 0 };
  return store.read((tx) => tx.tasks.idsStartingWith(prefix, LIVE_STATUSES, limit));
}

const FINAL: readonly TaskStatus[] = ["done", "dropped"];

export async function blockTask(store: Store, actor: Actor, raw: string, reason: string, now: string) {
  if (reason.trim() === "") throw usageError("say why the task is blocked (--reason)");
  return store.write(async (tx) => {
    const task = await loadTask(tx, raw);
    // Unheld, a block only its author or the owner may lift (reopen) is theirs to put, too.
    await requirePlanAuthority(tx, task, actor, "block");
    // Blocked again by its holder, the owner's block would read as the holder's, to lift.
    await requireOwnersStopKept(tx, task, actor, "block");
    if (FINAL.includes(task.status)) {
      throw refuse(
        "status",
        `${task.id} is ${task.status}`,
        `reopen it first (\`cairn task reopen ${task.id}\`)`,
      );
    }
    await tx.tasks.update(task.id, { status: "blocked", blockedReason: reason.trim() }, now);
    await journal(tx, actor, now, "task.block", task.id, { reason: reason.trim() });
    return (await tx.tasks.byId(task.id)) as TaskRecord;
  });
}

/**
 * Back to work: a blocked task its holder still holds becomes active again; anything else
 * returns to the board, unclaimed, with its ticks cleared (done must be shown again).
 */
export async function reopenTask(
  store: Store,
  config: WorkspaceConfig,
  actor: Actor,
  raw: string,
  now: string,
) {
  return store.write(async (tx) => {
    const task = await loadTask(tx, raw);
    // Unheld, a blocked task's block and a dropped task's drop are its author's plan (a gate a
    // claim is refused on, or the choice not to do it at all), not any passing agent's to undo.
    if (task.status === "open" || task.status === "active") {
      throw conflict(`${task.id} is already ${task.status}`);
    }
    await requirePlanAuthority(tx, task, actor, "reopen");
    // The owner's block on a task an agent holds (or wrote), or the owner's drop of a task an agent
    // wrote, stops that agent: not its to lift.
    await requireOwnersStopKept(tx, task, actor, "reopen");
    if (task.status === "blocked" && task.owner) {
      // Back to work counts as a claim: block one, claim another, reopen the first got past the cap.
      if (task.owner === actor.id) await requireWipRoom(tx, config, actor);
      const leaseAt = await tx.tasks.leaseClock(now);
      await tx.tasks.update(task.id, { status: "active", blockedReason: null, leaseAt }, now);
    } else {
      await tx.tasks.update(
        task.id,
        {
          status: "open",
          owner: null,
          claimedAt: null,
          leaseAt: null,
          blockedReason: null,
          unverified: false,
        },
        now,
      );
      if (task.status === "done") {
        for (const criterion of await tx.tasks.criteria(task.id)) {
          await tx.tasks.setCriterion(task.id, criterion.n, {
            checked: false,
            by: actor.id,
            at: now,
            evidence: null,
          });
        }
      }
    }
    await journal(tx, actor, now, "task.reopen", task.id, { from: task.status });
    return (await tx.tasks.byId(task.id)) as TaskRecord;
  });
}

export async function dropTask(
  store: Store,
  actor: Actor,
  raw: string,
  reason: string | undefined,
  now: string,
) {
  return store.write(async (tx) => {
    const task = await loadTask(tx, raw);
    await requirePlanAuthority(tx, task, actor, "drop");
    // Dropped, its author would reopen it unblocked (and claim it): the owner's block stands.
    await requireOwnersStopKept(tx, task, actor, "drop");
    // Holding a task is doing it, not deciding it is unwanted: claim T-1, drop it, and T-2's
    // dependency on it was gone. Its author or the owner drops it; its holder may release it.
    if (task.owner && !actor.isOwner && task.createdBy !== actor.id) {
      throw refuse(
        "ownership",
        `${task.id} was written by ${await who(tx, task.createdBy)}; only its author or the workspace owner may drop it`,
        `release it (\`cairn task release ${task.id}\`) or ask why it is wanted (\`cairn ask ${task.id} "your reason"\`)`,
      );
    }
    if (FINAL.includes(task.status)) throw conflict(`${task.id} is already ${task.status}`);
    await tx.tasks.update(
      task.id,
      { status: "dropped", owner: null, claimedAt: null, leaseAt: null, blockedReason: reason ?? null },
      now,
    );
    await journal(tx, actor, now, "task.drop", task.id, { reason: reason ?? null });
    return (await tx.tasks.byId(task.id)) as TaskRecord;
  });
}
