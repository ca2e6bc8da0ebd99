import { existsSync, readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { subscribe, unsubscribe } from "./shared-watch.js";

/** Editors write a file in several steps; one change is announced once they settle. */
const SETTLE_MS = 150;
/**
 * Changes that never settle (a file rewritten every 50 ms in a watched folder: an agent's
 * scratch file, a build's cache) are looked at this long after the first of them, and again
 * as long as they go on: waiting for a quiet moment, every other change went unannounced.
 */
const LONGEST_SETTLE_MS = 1_000;

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

/** A folder's direct subfolders (one agent or skill each), links to folders included. */
function subfolders(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() || entry.isSymbolicLink())
      .map((entry) => join(dir, entry.name));
  } catch {
    return [];
  }
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
): { close(): void; rearm(): Promise<void> } {
  /** The paths this watcher holds in the shared registry. */
  let watching = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  /** When the first change not yet looked at was seen. */
  let unsettledSince: number | undefined;
  let last: string | undefined;
  let closed = false;

  /** (Re)watch every path: a folder with its direct subfolders, a missing path via its parent. */
  const arm = async () => {
    const wanted = await paths();
    if (closed) return;
    const targets = new Set<string>();
    /** Files and the parents of missing paths: a failure to watch one of those is said. */
    const loud = new Set<string>();
    for (const path of new Set(wanted)) {
      const spot = watchable(path);
      if (!spot) continue;
      targets.add(spot.target);
      if (spot.own) for (const sub of subfolders(spot.target)) targets.add(sub);
      else loud.add(spot.target);
    }
    for (const path of watching) if (!targets.has(path)) unsubscribe(path, changed);
    watching = new Set();
    for (const path of targets) {
      try {
        subscribe(path, changed);
        watching.add(path);
      } catch (error) {
        // A folder gone since the listing, or one we may not read: nothing to watch there.
        if (!loud.has(path)) continue;
        process.stderr.write(`cairn mcp: cannot watch ${path}: ${(error as Error).message}\n`);
      }
    }
    touched?.();
  };

  const settle = async () => {
    timer = undefined;
    unsettledSince = undefined;
    if (closed) return;
    // Arm before reading: re-arming closes watches, and a change still queued on a closed watch
    // is never told. Read first, and a change landing between the read and the re-arming went
    // unannounced for good; armed first, it is either in this read or wakes the next settle.
    await arm();
    if (closed) return;
    const now = await fingerprint();
    if (last !== undefined && now !== last) notify();
    if (last !== undefined) settled?.();
    last = now;
  };

  function changed() {
    if (closed) return;
    touched?.();
    unsettledSince ??= Date.now();
    if (timer) clearTimeout(timer);
    const wait = Math.min(SETTLE_MS, unsettledSince + LONGEST_SETTLE_MS - Date.now());
    timer = setTimeout(() => void settle().catch(() => {}), Math.max(0, wait));
    timer.unref();
  }

  void settle().catch(() => {});
  return {
    /** Watch `paths()` afresh now (what it lists changed), without waiting for a change on disk. */
    rearm: () => arm().catch(() => {}),
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      for (const path of watching) unsubscribe(path, changed);
      watching = new Set();
    },
  };
}
