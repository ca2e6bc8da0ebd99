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
 * The files the measured tree is made of (tracked, and untracked but not ignored; frozen inputs
 * are left to input-watch.ts, whose drift sends the attempt to revert), listed beside each of the
 * tree's fingerprints (one git, run at the same time as the fingerprint's): `treeChangeTimes` watches
 * them over the next sample.
 * Listed with the fingerprint, not once for every tree that fingerprint names again: a file
 * moved away while the files were listed (during a base sample, which runs for seconds, by a
 * process the builder left running) and put back by the code under test left the fingerprint as
 * it was, so a list kept for that fingerprint missed the file in every later sample, and a file
 * swapped and put back in each of them passed for the tree kept. A file listed but away when a
 * sample starts is watched too: put back meanwhile, its change time moved.
 */
export async function treeFiles(
  top: string | null,
  watchedElsewhere: ReadonlySet<string>,
): Promise<string[]> {
  if (!top) return [];
  return (await filesOfCheckout(top)).filter((path) => !watchedElsewhere.has(path));
}

/**
 * The change time of each of `files` (see `treeFiles`), taken before a sample; `moved()` after
 * it tells whether any was written meanwhile.
 * The tree's fingerprint before and after a sample misses a passing file swapped in while the
 * evaluator runs and the broken one put back before it ends: the content is the same at both
 * ends, but the change time, which no one can set back, has moved. Files git ignores (build
 * output, caches) are not part of the tree and may be written freely.
 */
export function treeChangeTimes(top: string | null, files: readonly string[]): ChangeTimes {
  if (!top) return { moved: () => false };
  const before = files.map((path) => [path, changedAt(join(top, path))] as const);
  return { moved: () => before.some(([path, at]) => changedAt(join(top, path)) !== at) };
}
