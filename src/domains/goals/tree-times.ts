import { statSync } from "node:fs";
import { join } from "node:path";
import { filesOfCheckout } from "./git.js";

/** When a file's inode last changed (nanoseconds; null when there is none): any write moves it. */
function changedAt(path: string): bigint | null {
  try {
    return statSync(path, { bigint: true }).ctimeNs;
  } catch {
    return null;
  }
}

/** Taken before a sample: `moved()` after it tells whether any file of the tree was written meanwhile. */
export interface ChangeTimes {
  moved(): boolean;
}

/**
 * The change time of every file the measured tree is made of (tracked, and untracked but not
 * ignored; frozen inputs are left to input-watch.ts, whose drift sends the attempt to revert),
 * taken before each sample of an evaluation.
 * The tree's fingerprint before and after a sample misses a passing file swapped in while the
 * evaluator runs and the broken one put back before it ends: the content is the same at both
 * ends, but the change time, which no one can set back, has moved. Files git ignores (build
 * output, caches) are not part of the tree and may be written freely.
 *
 * The files are listed again only when the tree's fingerprint differs from the one taken before
 * they were last listed: a file can join the tree only as a path `git status` reports (untracked,
 * added, or HEAD moved), which changes the fingerprint. Listing them before every sample cost a
 * git process each time, most of what cairn added to a sample.
 */
export function treeChangeTimes(
  top: string | null,
  watchedElsewhere: ReadonlySet<string>,
): (fingerprint: string) => Promise<ChangeTimes> {
  let listed: { fingerprint: string; files: string[] } | undefined;
  return async (fingerprint) => {
    if (!top) return { moved: () => false };
    if (listed?.fingerprint !== fingerprint) {
      const files = (await filesOfCheckout(top)).filter((path) => !watchedElsewhere.has(path));
      listed = { fingerprint, files };
    }
    const before = listed.files.map((path) => [path, changedAt(join(top, path))] as const);
    return { moved: () => before.some(([path, at]) => changedAt(join(top, path)) !== at) };
  };
}
