import { lstatSync } from "node:fs";
import { join } from "node:path";
import { crypto } from "../../kernel/builtins.js";
import { refuse } from "../../kernel/outcome.js";
import { type CheckoutPlaces, checkoutStatus, checkoutTop, hashWorkFile, placeInCheckout } from "./git.js";
import { hiddenEdits } from "./hidden-edits.js";
import { quotedFew } from "./refusals.js";

/**
 * The tree an evaluation judges, as one fingerprint: HEAD and the content of every path of the
 * checkout that differs from it (cairn's state excluded), with its executable bit. Any edit after
 * an evaluation changes it, so a decision can tell the tree it keeps from the tree that was
 * measured. Above `dir` too: a workspace may be made in a folder of a repository (a monorepo's
 * package), and its evaluators read files above it (`require('../shared/lib.js')`); an edit there
 * made for the evaluation and undone before the decision left the fingerprint as it was, and the
 * attempt was kept on a tree its evaluators never passed.
 */
export async function treeFingerprint(dir: string, topOfCheckout = checkoutTop(dir)): Promise<string> {
  return (await measureTree(dir, topOfCheckout)).fingerprint;
}

/**
 * A tree as measured: its fingerprint, the HEAD it stands on and what each changed path under
 * `dir` held (`hashWorkFile`, then " x" when executable). A keep commits exactly these contents,
 * so an edit made after the measuring is never committed under its verdict.
 */
export interface MeasuredTree {
  fingerprint: string;
  head: string | null;
  entries: ReadonlyMap<string, string>;
}

export async function measureTree(dir: string, topOfCheckout = checkoutTop(dir)): Promise<MeasuredTree> {
  // Two gits at once (HEAD comes with the status): taken after every sample, the three it took
  // one after another were most of what cairn added to an evaluator's own time. An evaluation
  // passes the top it found once (see fingerprintsOf).
  const [found, { head, paths: changed }] = await Promise.all([topOfCheckout, checkoutStatus(dir, true)]);
  const top = found ?? dir;
  const folder = folderIn(top, dir);
  const hash = crypto()
    .createHash("sha256")
    .update(`HEAD ${head ?? "(no commit)"}\n`);
  const entries = new Map<string, string>();
  // The executable bit too: git commits it, and a tool measured runnable may be kept as not.
  for (const path of changed) {
    const entry = `${hashWorkFile(top, path)}${executable(join(top, path)) ? " x" : ""}`;
    if (folder === "" || path.startsWith(folder)) entries.set(path, entry);
    hash.update(`${path}\0${entry}\n`);
  }
  return { fingerprint: `sha256:${hash.digest("hex")}`, head, entries };
}

/** `dir`'s place in the checkout at `top`, as a prefix of repository-relative paths ("" at the top). */
function folderIn(top: string, dir: string): string {
  const place = placeInCheckout(top, dir);
  return place === "" ? "" : `${place}/`;
}

/**
 * `treeFingerprint` of `dir` again and again (after every sample of an evaluation), the top of its
 * checkout found once: a git process fewer per sample, on a machine where starting one costs
 * several milliseconds. Moving `.git` aside meanwhile makes `git status` fail, and a repository
 * made anew above `dir` names other paths, so neither passes for the tree measured.
 */
export function fingerprintsOf(dir: string, top: Promise<string | null>): () => Promise<string> {
  return () => treeFingerprint(dir, top);
}

function executable(path: string): boolean {
  try {
    const stat = lstatSync(path);
    return stat.isFile() && (stat.mode & 0o111) !== 0;
  } catch {
    return false;
  }
}

/**
 * Refuse to measure, or keep, a checkout with edits git does not see (`hiddenEdits`): they would
 * count in the evaluators' run and be left out of the commit, so the tree kept would not be the
 * tree measured (and, brought to git's eyes later, they would land unmeasured).
 */
export async function refuseHiddenEdits(
  dir: string,
  attemptId: string,
  doing: string,
  places: Promise<CheckoutPlaces | null>,
): Promise<void> {
  const hidden = await hiddenEdits(dir, undefined, places);
  if (hidden.length === 0) return;
  throw refuse(
    "evidence",
    `${attemptId}'s checkout has edits git does not see (a file marked assume-unchanged or skip-worktree, or an index entry that records other content than its file holds): ${quotedFew(hidden)}; ${doing} would judge them, and a keep would not commit them`,
    "clear each mark (git update-index --no-assume-unchanged PATH, or --no-skip-worktree PATH), or touch each file so that git reads it again, or put the file back; then try again",
  );
}
