import { refuse } from "../../kernel/outcome.js";
import type { Tx } from "../../store/store.js";
import { dependencyPath } from "./dependency-path.js";

/**
 * An epic finishes only once its parts are done or dropped, and a task is claimed only once what
 * it waits on is: a part that waits on an epic above it (however indirectly, through other tasks)
 * waits on itself, and neither ever finishes. Any writer may add a part to an unheld epic, and
 * one that did so with the epic as its dependency left the epic's next holder unable to finish,
 * and the part unable to be claimed or dropped by anyone but its author or the owner.
 */

/**
 * The ids of the epics above a task, its parent first. Finished ones too, as are finished tasks on
 * the way: reopened, each would close the wait again.
 */
async function epicsAbove(tx: Tx, parentId: string | null): Promise<string[]> {
  const found: string[] = [];
  for (let id = parentId; id && !found.includes(id); ) {
    found.push(id);
    id = (await tx.tasks.byId(id))?.parentId ?? null;
  }
  return found;
}

const refusal = (part: string, path: string[]) =>
  refuse(
    "dependencies",
    `${[part, ...path].join(" → ")} would leave ${part} waiting on ${path.at(-1)}, an epic above it, which finishes only after its parts: neither could ever finish`,
    "make the epic wait on the part instead, or put the part outside that epic",
  );

/**
 * Refused when `taskId`, waiting on `dependencies` (new ones), would wait on an epic above it, or
 * above any task that waits on it: `parentId` is where the task sits (a new task's parent).
 */
export async function requireNoWaitOnOwnEpic(
  tx: Tx,
  taskId: string,
  parentId: string | null,
  dependencies: readonly string[],
): Promise<void> {
  if (dependencies.length === 0) return;
  // The task and every task waiting on it, however indirectly, each with the epics above it.
  const waiting = new Map<string, string | null>([[taskId, parentId]]);
  const queue = [taskId];
  for (let head = 0; head < queue.length; head++) {
    for (const dependent of await tx.tasks.dependents(queue[head] as string)) {
      if (waiting.has(dependent)) continue;
      waiting.set(dependent, (await tx.tasks.byId(dependent))?.parentId ?? null);
      queue.push(dependent);
    }
  }
  const epics = new Set<string>();
  for (const parent of waiting.values()) for (const epic of await epicsAbove(tx, parent)) epics.add(epic);
  if (epics.size === 0) return;
  const cleared = new Set<string>();
  for (const dependency of dependencies) {
    const path = await dependencyPath(tx, dependency, epics, cleared);
    if (path) throw refusal(taskId, path);
  }
}

/**
 * Refused when moving `taskId` under `parentId` would leave a task of its subtree waiting on one
 * of its new epics above.
 */
export async function requireMoveKeepsEpicsFinishable(
  tx: Tx,
  taskId: string,
  parentId: string | null,
): Promise<void> {
  const epics = new Set(await epicsAbove(tx, parentId));
  if (epics.size === 0) return;
  const cleared = new Set<string>();
  const subtree = [taskId];
  for (let head = 0; head < subtree.length; head++) {
    const current = subtree[head] as string;
    for (const dependency of await tx.tasks.dependencies(current)) {
      const path = await dependencyPath(tx, dependency.id, epics, cleared);
      if (path) throw refusal(current, path);
    }
    for (const child of await tx.tasks.children(current)) subtree.push(child.id);
  }
}
