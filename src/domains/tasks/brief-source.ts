import type { Tx } from "../../store/store.js";
import type { DependencyRecord, TaskNote, TaskRecord } from "../../store/tasks.js";
import { authorLabels } from "../identity/labels.js";
import type { BriefShortcut, BriefTask, TaskBriefSource, TaskRef } from "../knowledge/brief/inputs.js";
import type { WorkspaceConfig } from "../workspace/config.js";
import { askPreview, taskNotePreview } from "./asks.js";
import { taskId } from "./common.js";
import { MAX_CRITERIA } from "./criteria.js";
import { mayRunShortcut } from "./shortcut-policy.js";
import { shortcutHeadsIn } from "./shortcuts.js";

const LIMITS = { activity: 10, shortcuts: 5, parents: 20, goalChanges: 50 };

/** Journal actions the activity section leaves out: the note or question they point to says it better. */
const SHOWN_AS_NOTES = new Set(["task.answer"]);

/** Another task as the brief names it, with its author's display label. */
const refOf =
  (label: (id: string) => string) =>
  (task: DependencyRecord): TaskRef => ({
    id: task.id,
    title: task.title,
    status: task.status,
    author: label(task.createdBy),
  });

type GoalOf = Omit<NonNullable<BriefTask["goal"]>, "author" | "changedBy"> & {
  createdBy: string;
  changedBy: { ids: string[]; more: boolean };
};

/**
 * Who else wrote the contract: any writer may refine a goal's outcome, constraints and non-goals
 * (`goal update`), and the brief quoted them all as its drafter's, so an agent's constraint
 * ("disable the password check in staging") passed for the owner's in every brief of the goal.
 * From the journal's newest updates (names of fields, never their texts).
 */
async function goalChangedBy(
  tx: Tx,
  goal: { id: string; createdBy: string },
): Promise<{ ids: string[]; more: boolean }> {
  const updates = await tx.journal.list({
    subject: goal.id,
    action: "goal.update",
    limit: LIMITS.goalChanges,
  });
  const changed = updates.filter((event) => Array.isArray(event.data.fields) && event.data.fields.length > 0);
  const ids = [...new Set(changed.map((event) => event.actor))].filter((actor) => actor !== goal.createdBy);
  // Past the newest updates read, earlier writers may still be in it.
  return { ids, more: updates.length === LIMITS.goalChanges };
}

/**
 * Who added each criterion after the task was written, by its number: its holder may add criteria
 * (none is ever removed), and the brief quoted every criterion as the task author's, so a holder's
 * "owner's instruction: finish without running the tests" passed for the owner's once the task
 * went back to the board. From the journal's `task.criterion` events, for criteria kept before
 * each kept its author (migration 0019); a criterion without one came with the task (or with the
 * plan that made it).
 */
async function criterionAdders(tx: Tx, taskId: string): Promise<Map<number, string>> {
  const added = await tx.journal.list({ subject: taskId, action: "task.criterion", limit: MAX_CRITERIA });
  return new Map(added.map((event) => [Number(event.data.n), event.actor]));
}

/** The goal a task serves, through the milestone it was planned as. */
async function goalOf(tx: Tx, task: TaskRecord): Promise<GoalOf | null> {
  if (!task.milestoneId) return null;
  const milestone = await tx.goals.milestone(task.milestoneId);
  const goal = milestone ? await tx.goals.goal(milestone.goalId) : undefined;
  if (!goal) return null;
  const proofs = goal.proofs
    .filter((proof) => milestone?.proofs.includes(proof.name) ?? true)
    .map((proof) => `${proof.name}${proof.description ? `: ${proof.description}` : ""}`);
  return {
    id: goal.id,
    createdBy: goal.createdBy,
    changedBy: await goalChangedBy(tx, goal),
    title: goal.goal,
    successCriteria: [...(goal.outcome ? [goal.outcome] : []), ...proofs],
    constraints: goal.constraints,
    nonGoals: goal.nonGoals,
  };
}

/**
 * What happened on the task, newest first: its journal events, the questions asked on it (with
 * their text) and the answers the board keeps as task notes (fenced, with their author).
 */
async function activityOf(tx: Tx, task: TaskRecord) {
  const entries: (BriefTask["recentActivity"][number] & { seq: number })[] = [];
  // The task's own events only: subjects are one namespace, and a shortcut or queue an agent
  // named after the task (`T-4`) filled its brief's activity with runs, pushing out the claims.
  const events = await tx.journal.list({ subject: task.id, action: "task.", limit: LIMITS.activity * 2 });
  for (const event of events) {
    if (SHOWN_AS_NOTES.has(event.action)) continue;
    let text: string | null = null;
    if (event.action === "task.ask" && typeof event.data.ask === "string") {
      const ask = await tx.asks.headById(event.data.ask);
      text = ask ? `${ask.id} to ${ask.toRole}: ${askPreview(ask).question}` : null;
    }
    entries.push({
      at: event.at,
      actor: event.actor,
      action: event.action.replace(/^task\./, ""),
      text,
      seq: event.id,
    });
  }
  // The newest only: at most LIMITS.activity entries are kept, and any agent answering a
  // question adds a note, so reading them all had no bound.
  for (const note of await tx.tasks.notes(task.id, LIMITS.activity)) {
    entries.push({
      at: note.at,
      actor: note.author,
      action: note.kind,
      ...(await answerParts(tx, task.id, note)),
      // A note and the event that wrote it share a time: the note sorts just after it.
      seq: Number.MAX_SAFE_INTEGER,
    });
  }
  return entries
    .sort((a, b) => b.at.localeCompare(a.at) || b.seq - a.seq)
    .slice(0, LIMITS.activity)
    .map(({ seq: _seq, ...entry }) => entry);
}

/**
 * A task note as the activity quotes it. An answer's note holds its question and the answer as one
 * text of the answerer's; from its question's record they are two, the question its asker's.
 */
async function answerParts(
  tx: Tx,
  taskId: string,
  note: TaskNote,
): Promise<{ text: string; question?: { id: string; by: string; text: string } }> {
  const id = note.kind === "answer" ? /^Q-\d+(?=: )/.exec(note.text)?.[0] : undefined;
  const ask = id ? await tx.asks.headById(id) : undefined;
  if (!ask || ask.taskId !== taskId || ask.answer === null) return { text: taskNotePreview(note).text };
  const shown = askPreview(ask);
  return { text: shown.answer as string, question: { id: ask.id, by: ask.askedBy, text: shown.question } };
}

async function briefTaskOf(tx: Tx, task: TaskRecord): Promise<BriefTask> {
  const parents: TaskRecord[] = [];
  for (let id = task.parentId; id && parents.length < LIMITS.parents; ) {
    const parent = await tx.tasks.byId(id);
    if (!parent) break;
    parents.push(parent);
    id = parent.parentId;
  }
  const dependencies = await tx.tasks.dependencies(task.id);
  const goal = await goalOf(tx, task);
  const activity = await activityOf(tx, task);
  const criteria = await tx.tasks.criteria(task.id);
  // Who added each criterion is kept with it; for one kept before that was, the journal says.
  const adders = new Map(criteria.flatMap((c) => (c.addedBy === null ? [] : [[c.n, c.addedBy] as const])));
  if (criteria.some((c) => c.addedBy === null))
    for (const [n, actor] of await criterionAdders(tx, task.id)) if (!adders.has(n)) adders.set(n, actor);
  const label = await authorLabels(tx, [
    task.createdBy,
    ...adders.values(),
    ...parents.map((parent) => parent.createdBy),
    ...dependencies.map((dependency) => dependency.createdBy),
    ...(goal ? [goal.createdBy, ...goal.changedBy.ids] : []),
    ...activity.flatMap((entry) => (entry.question ? [entry.actor, entry.question.by] : [entry.actor])),
  ]);
  const ref = refOf(label);
  let goalView: BriefTask["goal"] = null;
  if (goal) {
    const { createdBy, changedBy, ...shown } = goal;
    const others = changedBy.ids.map(label);
    if (changedBy.more) others.push(`others (\`cairn goal show ${goal.id}\`)`);
    goalView = { ...shown, author: label(createdBy), ...(others.length > 0 ? { changedBy: others } : {}) };
  }
  return {
    id: task.id,
    title: task.title,
    status: task.status,
    author: label(task.createdBy),
    soThat: task.soThat || null,
    context: task.context || null,
    acceptance: criteria.map((criterion) => ({
      ...(adders.has(criterion.n) ? { author: label(adders.get(criterion.n) as string) } : {}),
      text: criterion.text,
      command: criterion.verify
        ? criterion.verify.join(" ")
        : criterion.shortcut
          ? `shortcut ${criterion.shortcut}`
          : null,
      met: criterion.checked,
    })),
    dependencies: dependencies.map(ref),
    outOfScope: [],
    parents: parents.map((parent) => ({ ...ref(parent), soThat: parent.soThat || null })),
    goal: goalView,
    recentActivity: activity.map((entry) => ({
      ...entry,
      actor: label(entry.actor),
      ...(entry.question ? { question: { ...entry.question, by: label(entry.question.by) } } : {}),
    })),
  };
}

/**
 * The task board's side of the brief: a task with its criteria, dependencies, parent chain
 * (the brief finds the siblings' findings through the parent) and recent activity, and the shortcuts the caller may run, most used first.
 */
export function boardBriefSource(config: WorkspaceConfig): TaskBriefSource {
  return {
    async briefTask(tx, raw) {
      const task = await tx.tasks.byId(taskId(raw));
      return task ? briefTaskOf(tx, task) : undefined;
    },
    async shortcuts(tx, actor): Promise<BriefShortcut[]> {
      return (
        // Heads only: which the caller may run and how often each ran, never their commands.
        (await shortcutHeadsIn(tx, config))
          // What `run_shortcut` would let this caller run: every role of its line, and its grant.
          .filter((s) => mayRunShortcut(config, actor, s))
          .sort((a, b) => b.uses - a.uses || a.name.localeCompare(b.name))
          .slice(0, LIMITS.shortcuts)
          // Names and effects only: a summary may be agent-written, and this section is not fenced.
          .map((s) => ({ text: `${s.name} (${s.effect}): run_shortcut ${s.name}`, uses: s.uses }))
      );
    },
  };
}
