/**
 * A cycle among `edges` (each node to the nodes it points at), as its path (a → b → a), or
 * undefined. Depth-first, with an explicit stack: an imported task tree or dependency chain may be
 * thousands deep, past what recursion takes.
 */
export function findCycle(edges: ReadonlyMap<string, readonly string[]>): string[] | undefined {
  const state = new Map<string, "visiting" | "done">();
  for (const start of edges.keys()) {
    if (state.has(start)) continue;
    const path: string[] = [start];
    const next: number[] = [0];
    state.set(start, "visiting");
    while (path.length > 0) {
      const node = path.at(-1) as string;
      const index = next.at(-1) as number;
      const targets = edges.get(node) ?? [];
      if (index >= targets.length) {
        state.set(node, "done");
        path.pop();
        next.pop();
        continue;
      }
      next[next.length - 1] = index + 1;
      const target = targets[index] as string;
      const seen = state.get(target);
      if (seen === "visiting") return [...path.slice(path.indexOf(target)), target];
      if (seen === "done") continue;
      state.set(target, "visiting");
      path.push(target);
      next.push(0);
    }
  }
  return undefined;
}
