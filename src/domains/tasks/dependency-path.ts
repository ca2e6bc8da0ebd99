import type { Tx } from "../../store/store.js";

/**
 * The dependency path from `from` to the first of `targets` it reaches (itself included), if any:
 * breadth-first, so the shortest. `cleared` holds tasks an earlier search toward the same targets
 * walked without finding one: nothing below them leads there, so they are not walked again, and
 * this search's tasks join them when it finds no path. Without it, one call naming a thousand
 * dependencies atop a long chain walked the chain a thousand times, holding the write lock for
 * most of a minute.
 */
export async function dependencyPath(
  tx: Tx,
  from: string,
  targets: ReadonlySet<string>,
  cleared: Set<string> = new Set(),
): Promise<string[] | null> {
  if (cleared.has(from)) return null;
  const previous = new Map<string, string | null>([[from, null]]);
  const queue = [from];
  for (let head = 0; head < queue.length; head++) {
    const current = queue[head] as string;
    if (targets.has(current)) {
      const path: string[] = [];
      for (let step: string | null = current; step; step = previous.get(step) ?? null) path.unshift(step);
      return path;
    }
    for (const next of await tx.tasks.dependencies(current)) {
      if (previous.has(next.id) || cleared.has(next.id)) continue;
      previous.set(next.id, current);
      queue.push(next.id);
    }
  }
  for (const walked of queue) cleared.add(walked);
  return null;
}
