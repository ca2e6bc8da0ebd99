import { statSync } from "node:fs";
import { join } from "node:path";
import { workFiles } from "./git.js";

/** When a file's inode last changed (nanoseconds; null when there is none): any write moves it. */
function changedAt(path: string): bigint | null {
  try {
    return statSync(path, { bigint: true }).ctimeNs;
  } catch {
    return null;
  }
}

/**
 * The change time of every file the measured tree is made of (tracked, and untracked but not
 * ignored; frozen inputs are left to input-watch.ts, whose drift sends the attempt to revert),
 * taken before a sample; `moved()` after it tells whether any was written meanwhile.
 * The tree's fingerprint before and after a sample misses a passing file swapped in while the
 * evaluator runs and the broken one put back before it ends: the content is the same at both
 * ends, but the change time, which no one can set back, has moved. Files git ignores (build
 * output, caches) are not part of the tree and may be written freely.
 */
export async function treeChangeTimes(
  dir: string,
  top: string | null,
  watchedElsewhere: ReadonlySet<string>,
): Promise<{ moved: () => boolean }> {
  if (!top) return { moved: () => false };
  const files = (await workFiles(dir)).filter((path) => !watchedElsewhere.has(path));
  const before = files.map((path) => [path, changedAt(join(top, path))] as const);
  return { moved: () => before.some(([path, at]) => changedAt(join(top, path)) !== at) };
}
