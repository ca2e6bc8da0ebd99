import { type FSWatcher, watch } from "node:fs";

/**
 * One inotify watch per path for the whole server, shared by every catalog watcher (the
 * tools catalog and the Skills extension both watch every skill folder: 500 skills cost 500
 * watches, not 1,000). A watcher re-arms after each settled change, so that a folder deleted and
 * made again is watched anew; a path re-armed by one watcher is not re-armed again by the next
 * one until some change has been seen since.
 */

interface Held {
  watcher: FSWatcher;
  listeners: Set<() => void>;
  /** The count of changes seen when this watch was made. */
  madeAt: number;
}

const held = new Map<string, Held>();
let changesSeen = 0;

function open(path: string, entry: Pick<Held, "listeners">): FSWatcher {
  const watcher = watch(path, { persistent: false }, () => {
    changesSeen++;
    for (const listener of [...entry.listeners]) listener();
  });
  watcher.on("error", () => {
    watcher.close();
    if (held.get(path)?.watcher === watcher) held.delete(path);
  });
  return watcher;
}

/**
 * Watch `path` for `listener`: a fresh watch, unless one made since the last change is held.
 * Throws when the path cannot be watched (then no one watches it).
 */
export function subscribe(path: string, listener: () => void): void {
  const entry = held.get(path);
  if (entry && entry.madeAt === changesSeen) {
    entry.listeners.add(listener);
    return;
  }
  const listeners = entry?.listeners ?? new Set<() => void>();
  entry?.watcher.close();
  held.delete(path);
  const next = { listeners, madeAt: changesSeen } as Held;
  next.watcher = open(path, next);
  listeners.add(listener);
  held.set(path, next);
}

/** Stop watching `path` for `listener`; the watch closes with its last listener. */
export function unsubscribe(path: string, listener: () => void): void {
  const entry = held.get(path);
  if (!entry) return;
  entry.listeners.delete(listener);
  if (entry.listeners.size > 0) return;
  entry.watcher.close();
  held.delete(path);
}

/**
 * How many listeners share the watch of `path`, or undefined when it is not watched (for tests:
 * a count of every watched path would also count those of other servers in the same process).
 */
export function listenersOf(path: string): number | undefined {
  return held.get(path)?.listeners.size;
}
