import { type FSWatcher, statSync, watch } from "node:fs";
import { join } from "node:path";
import type { FrozenEvaluatorRecord } from "../../store/store.js";

/**
 * More folders than this are not watched: each is a kernel watch, and a user's limit can be as
 * low as 8,192. Past it, change times still show any file written and put back.
 */
const MAX_FOLDERS = 4_000;

/** The folders a frozen file's path runs through, each with the entry the path takes there. */
function stepsOf(top: string, path: string): { folder: string; entry: string }[] {
  const parts = path.split("/");
  const steps: { folder: string; entry: string }[] = [];
  let folder = top;
  for (const entry of parts) {
    steps.push({ folder, entry });
    folder = join(folder, entry);
    // A file not there yet (an absent named input, a would-be shadowing module) is watched for
    // in the deepest folder that exists: creating it, or the folder on its way, shows there.
    try {
      if (!statSync(folder).isDirectory()) break;
    } catch {
      break;
    }
  }
  return steps;
}

/** When a file's inode last changed (nanoseconds; null when there is none): a write moves it. */
function changedAt(path: string): bigint | null {
  try {
    return statSync(path, { bigint: true }).ctimeNs;
  } catch {
    return null;
  }
}

/**
 * Watch every frozen input file of a run in the checkout at `top` while its evaluators run.
 * Hashing the inputs before and after an evaluation misses code under test that rewrites a frozen
 * test or data file while a sample runs and puts it back before it exits. Two records of the
 * write itself outlast the undo:
 * - a file's change time, which any write moves and no one can set back: through a hard link, or
 *   a shared memory map, too (the kernel reports neither to a watch of the file's folder);
 * - the folders on each file's path, watched (inotify on Linux), for what a change time cannot
 *   show: a file created where an absent input was named and removed again, or a folder on the
 *   way moved aside for another and put back.
 * A frozen file written, touched, created, deleted or renamed meanwhile counts as drifted whatever
 * it holds afterwards. Reading a file records nothing.
 */
export function watchFrozenInputs(manifest: readonly FrozenEvaluatorRecord[], top: string | null) {
  const touched = new Set<string>();
  const watchers: FSWatcher[] = [];
  const paths = new Set(manifest.flatMap((entry) => Object.keys(entry.inputs?.files ?? {})));
  const before = new Map([...paths].map((path) => [path, top ? changedAt(join(top, path)) : null]));
  if (top) {
    // folder → entry in it → the frozen files reached through that entry
    const folders = new Map<string, Map<string, string[]>>();
    for (const path of paths)
      for (const { folder, entry } of stepsOf(top, path)) {
        const entries = folders.get(folder) ?? new Map<string, string[]>();
        folders.set(folder, entries);
        const reached = entries.get(entry) ?? [];
        entries.set(entry, reached);
        reached.push(path);
      }
    for (const [folder, entries] of [...folders].slice(0, MAX_FOLDERS)) {
      try {
        const watcher = watch(folder, { persistent: false }, (_event, name) => {
          // No name (the kernel's queue overflowed): any file watched here may have changed.
          const hit = name ? entries.get(name.toString()) : [...entries.values()].flat();
          for (const path of hit ?? []) touched.add(path);
        });
        // A folder removed while watched ends its watch with an error; the removal itself was
        // reported to the folder above it.
        watcher.on("error", () => watcher.close());
        watchers.push(watcher);
      } catch {
        // Out of kernel watches, or the folder is gone: the hashes before and after still hold.
      }
    }
  }
  return {
    /** Stop watching; the frozen files written meanwhile, repository-relative and sorted. */
    async stop(): Promise<string[]> {
      // A write made before the last evaluator exited is queued in the kernel already; one turn of
      // the event loop's poll delivers it.
      await new Promise((settle) => setTimeout(settle, 10));
      for (const watcher of watchers) watcher.close();
      if (top) for (const [path, at] of before) if (changedAt(join(top, path)) !== at) touched.add(path);
      return [...touched].sort();
    },
  };
}
