import { existsSync, type FSWatcher, statSync, watch } from "node:fs";
import { dirname } from "node:path";

/** Editors write a file in several steps; one change is announced once they settle. */
const SETTLE_MS = 150;

/** The path itself when it exists, else its nearest existing ancestor (to see it appear). */
function watchable(path: string): { target: string; recursive: boolean } | undefined {
  let target = path;
  while (!existsSync(target)) {
    const parent = dirname(target);
    if (parent === target) return undefined;
    target = parent;
  }
  const own = target === path;
  return { target, recursive: own && statSync(target).isDirectory() };
}

/**
 * Watch the catalog's paths and call `notify` when what the catalog lists has changed: a change
 * on disk rebuilds it and compares a fingerprint, so a log written inside an agent's folder
 * announces nothing. Paths that do not exist yet are watched through their nearest parent.
 */
export function watchCatalog(
  paths: () => Promise<string[]>,
  fingerprint: () => Promise<string>,
  notify: () => void,
): { close(): void } {
  const watchers = new Map<string, FSWatcher>();
  let last: string | undefined;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  const arm = async () => {
    const wanted = new Map<string, boolean>();
    for (const path of await paths()) {
      const spot = watchable(path);
      if (spot) wanted.set(spot.target, (wanted.get(spot.target) ?? false) || spot.recursive);
    }
    for (const [target, watcher] of watchers) {
      if (!wanted.has(target)) {
        watcher.close();
        watchers.delete(target);
      }
    }
    for (const [target, recursive] of wanted) {
      if (watchers.has(target) || closed) continue;
      try {
        const watcher = watch(target, { recursive, persistent: false }, changed);
        watcher.on("error", () => {
          watcher.close();
          watchers.delete(target);
        });
        watchers.set(target, watcher);
      } catch (error) {
        process.stderr.write(`cairn mcp: cannot watch ${target}: ${(error as Error).message}\n`);
      }
    }
  };

  const settle = async () => {
    timer = undefined;
    if (closed) return;
    const now = await fingerprint();
    if (last !== undefined && now !== last) notify();
    last = now;
    await arm();
  };

  function changed() {
    if (closed) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => void settle().catch(() => {}), SETTLE_MS);
    timer.unref();
  }

  void settle().catch(() => {});
  return {
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      for (const watcher of watchers.values()) watcher.close();
      watchers.clear();
    },
  };
}
