import { existsSync, type FSWatcher, statSync, watch } from "node:fs";
import { dirname } from "node:path";
import { watchShallow } from "../../kernel/watch.js";

/** Editors write a file in several steps; one change is announced once they settle. */
const SETTLE_MS = 150;

/** The path itself when it exists, else its nearest existing ancestor (to see it appear). */
function watchable(path: string): { target: string; own: boolean } | undefined {
  let target = path;
  while (!existsSync(target)) {
    const parent = dirname(target);
    if (parent === target) return undefined;
    target = parent;
  }
  return { target, own: target === path && statSync(target).isDirectory() };
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
  /** Called after every settled change on disk, listed or not (subscribed files compare themselves). */
  settled?: () => void,
  /**
   * Called at once on every raw change on disk, and whenever the watchers were (re)armed (a
   * change may have gone unseen while they were not): what was built before may be stale.
   */
  touched?: () => void,
): { close(): void } {
  let watchers: FSWatcher[] = [];
  let last: string | undefined;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  /** (Re)watch every path: a folder with its direct subfolders, a missing path via its parent. */
  const arm = async () => {
    const wanted = await paths();
    for (const watcher of watchers) watcher.close();
    watchers = [];
    if (closed) return;
    for (const path of new Set(wanted)) {
      const spot = watchable(path);
      if (!spot) continue;
      if (spot.own) watchers.push(...watchShallow(spot.target, changed));
      else {
        try {
          const watcher = watch(spot.target, { persistent: false }, changed);
          watcher.on("error", () => watcher.close());
          watchers.push(watcher);
        } catch (error) {
          process.stderr.write(`cairn mcp: cannot watch ${spot.target}: ${(error as Error).message}\n`);
        }
      }
    }
    touched?.();
  };

  const settle = async () => {
    timer = undefined;
    if (closed) return;
    const now = await fingerprint();
    if (last !== undefined && now !== last) notify();
    if (last !== undefined) settled?.();
    last = now;
    await arm();
  };

  function changed() {
    if (closed) return;
    touched?.();
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => void settle().catch(() => {}), SETTLE_MS);
    timer.unref();
  }

  void settle().catch(() => {});
  return {
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      for (const watcher of watchers) watcher.close();
      watchers = [];
    },
  };
}
