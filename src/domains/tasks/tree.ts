/**
 * Where a task sits among the others: its place in the tree (under which parent, how deep) and
 * the tasks it waits on. Moving a task and changing its dependencies keep both sound: no tree
 * deeper than it may grow, no dependency cycle.
 */
import { notFound, refuse, usageError } from "../../kernel/outcome.js";
import type { Store, Tx } from "../../store/store.js";
import type { TaskRecord } from "../../store/tasks.js";
import type { Actor } from "../identity/actor.js";
import { journal, loadTask, requireEpicHolder, requirePlanAuthority, taskId, who } from "./common.js";
import { dependencyPath } from "./dependency-path.js";
import { requireMoveKeepsEpicsFinishable, requireNoWaitOnOwnEpic } from "./epic-waits.js";

/** The tasks named, each once, refused as not found when any is not there. */
export async function requireTasks(tx: Tx, ids: readonly string[]): Promise<string[]> {
  const wanted = [...new Set(ids.map(taskId))];
  const found = new Set((await tx.tasks.byIds(wanted)).map((task) => task.id));
  const missing = wanted.filter((id) => !found.has(id));
  if (missing.length > 0) throw notFound(`no task ${missing.join(", ")}`, "see `cairn task list`");
  return wanted;
}

/**
 * How many levels the task tree holds. Every task keeps the path of its ancestors (its tree
 * order, ten characters a level), so a chain of nested tasks costs storage by the square of its
 * length (an agent adding 6,600 of them made a 900 MB database in 90 s), and past 6,553 levels
 * the path outgrew what an import takes, so every export of the workspace was refused.
 */
export const MAX_TASK_DEPTH = 1_000;

/** Refuse putting `levels` levels of tasks under `parent` when the tree would outgrow its depth. */
export function requireTreeRoom(parent: TaskRecord, levels: number): void {
  const depth = parent.sortPath.split("/").length;
  if (depth + levels > MAX_TASK_DEPTH) {
    throw refuse(
      "tree",
      `${parent.id} is ${depth} levels deep; ${levels} more would pass the ${MAX_TASK_DEPTH} levels the task tree holds`,
      "put the task under a parent nearer the top",
    );
  }
}

/** The levels of tasks from `task` down to its deepest descendant: 1 for a task with no children. */
async function levelsFrom(tx: Tx, task: TaskRecord): Promise<number> {
  let levels = 1;
  for (let level = [task.id]; ; levels++) {
    const next: string[] = [];
    for (const id of level) for (const child of await tx.tasks.children(id)) next.push(child.id);
    if (next.length === 0) return levels;
    level = next;
  }
}

/**
 * Re-parent a task; under itself or one of its own descendants would make the tree a loop. Where
 * a task sits is its author's plan, as its dependencies are: its parents' why leads every brief
 * of it, so another agent moving an unheld task under one of its own rewrote that why.
 */
export async function moveTask(
  store: Store,
  actor: Actor,
  raw: string,
  rawParent: string | undefined,
  now: string,
) {
  return store.write(async (tx) => {
    const task = await loadTask(tx, raw);
    await requirePlanAuthority(tx, task, actor, "move");
    const parent = rawParent ? await loadTask(tx, rawParent) : undefined;
    // A part is its epic's to finish first, as `task drop` holds it: its holder taking it out of
    // the epic (claim the part, move it out, release it) let the epic finish with the part open.
    if (
      task.owner &&
      task.parentId &&
      parent?.id !== task.parentId &&
      !actor.isOwner &&
      task.createdBy !== actor.id
    ) {
      throw refuse(
        "ownership",
        `${task.id} is a part of ${task.parentId}, written by ${await who(tx, task.createdBy)}; only its author or the workspace owner may move it out`,
        `finish it, or release it (\`cairn task release ${task.id}\`) and ask why it is there (\`cairn ask ${task.id} "your reason"\`)`,
      );
    }
    if (parent && (parent.id === task.id || parent.sortPath.startsWith(`${task.sortPath}/`))) {
      throw refuse(
        "tree",
        `moving ${task.id} under ${parent.id} would make a loop: ${parent.id === task.id ? "a task cannot be its own parent" : `${parent.id} is inside ${task.id}`}`,
        `choose a parent outside ${task.id}'s subtree, or move ${parent.id} out first`,
      );
    }
    // Moved under an epic its holder is working on, it is a part that holder must finish first.
    if (parent && parent.id !== task.parentId) await requireEpicHolder(tx, parent, actor);
    if (parent) requireTreeRoom(parent, await levelsFrom(tx, task));
    if (parent && parent.id !== task.parentId) await requireMoveKeepsEpicsFinishable(tx, task.id, parent.id);
    await tx.tasks.move(task.id, parent?.id ?? null, now);
    await journal(tx, actor, now, "task.move", task.id, { from: task.parentId, to: parent?.id ?? null });
    return (await tx.tasks.byId(task.id)) as TaskRecord;
  });
}

export async function dependTask(
  store: Store,
  actor: Actor,
  raw: string,
  change: { on?: string[]; remove?: string[] },
  now: string,
) {
  if ((change.on ?? []).length === 0 && (change.remove ?? []).length === 0) {
    throw usageError("name dependencies to add (--on T-1) or remove (--remove T-1)");
  }
  return store.write(async (tx) => {
    const task = await loadTask(tx, raw);
    const removed = await requireTasks(tx, change.remove ?? []);
    // What a task waits on is its plan, as its criteria are: removing a dependency lifts a gate,
    // and adding one on an unheld task of another's made it wait on any stuck task of the adder's,
    // which no one but its author or the owner could undo.
    await requirePlanAuthority(
      tx,
      task,
      actor,
      removed.length > 0 ? "remove dependencies of" : "add dependencies to",
    );
    const added = await requireTasks(tx, change.on ?? []);
    const cleared = new Set<string>();
    for (const dependency of added) {
      if (dependency === task.id)
        throw refuse("dependencies", `${task.id} cannot depend on itself`, "name another task");
      const loop = await dependencyPath(tx, dependency, new Set([task.id]), cleared);
      if (loop) {
        throw refuse(
          "dependencies",
          `${task.id} → ${dependency} would close a cycle: ${[task.id, ...loop].join(" → ")}`,
          `remove one of those dependencies first (\`cairn task depend ${loop.at(-2) ?? dependency} --remove ${task.id}\`)`,
        );
      }
      await requireNoWaitOnOwnEpic(tx, task.id, task.parentId, [dependency]);
      await tx.tasks.addDependency(task.id, dependency);
    }
    for (const dependency of removed) await tx.tasks.removeDependency(task.id, dependency);
    await journal(tx, actor, now, "task.depend", task.id, { added, removed });
    return { task, dependsOn: await tx.tasks.dependencies(task.id) };
  });
}
