/**
 * Edits git does not see in a checkout: a keep (`git add -A`, then commit) would leave them out,
 * so the tree kept would not be the tree measured. Two ways to make one, both with plain git:
 * marking a file to be skipped, and an index entry that records the file's stat beside content
 * the file does not hold (`git add` through a clean filter set for that once), which git trusts.
 */
import { lstatSync } from "node:fs";
import { join } from "node:path";
import { git } from "../../kernel/git.js";
import { operational } from "../../kernel/outcome.js";
import { ownWorkFolder } from "../../kernel/temp-dir.js";
import { type CheckoutPlaces, checkoutPlaces, marksIn, perCall } from "./git.js";
import { type IndexReading, readIndex, writeIndexCopy } from "./index-copy.js";
import { indexMarks } from "./index-marks.js";

/**
 * Both kinds of hidden edit in `dir`'s checkout (see below), above `dir` too (a workspace made in
 * a package of a monorepo is judged by evaluators that read `../shared/`), the files named once
 * each, repository-relative, from one reading of the index git reads there (`places`, when the
 * caller has asked already). Where that reading shows no file marked (nearly always), git is not
 * asked which are.
 */
export async function hiddenEdits(
  dir: string,
  signal?: AbortSignal,
  places: Promise<CheckoutPlaces | null> = checkoutPlaces(dir, signal),
): Promise<string[]> {
  const found = await places;
  const reading = found ? readIndex(found.index) : null;
  const noneMarked = reading !== null && indexMarks(reading.content) === "none";
  const [marked, misrecorded] = await Promise.all([
    noneMarked ? [] : markedEdits(found?.top ?? dir, signal),
    misrecordedEdits(dir, reading, signal),
  ]);
  return [...new Set([...marked, ...misrecorded])];
}

/**
 * Files under `dir` (a checkout's top, for all of it) that git is told to skip (see `marksIn`) and whose content in the work tree
 * is not what the index holds: edits `git status` does not report and a keep would not commit.
 * A sparse checkout's files outside its cone are absent, not edited, and not named; nor are
 * marked symlinks.
 */
export async function markedEdits(dir: string, signal?: AbortSignal): Promise<string[]> {
  const listed = await git(dir, ["ls-files", "-v", "-z"], { signal });
  if (!listed.ok) throw operational(`git ls-files failed: ${listed.stderr.trim()}`);
  const { assumeUnchanged, skipWorktree } = marksIn(listed.stdout);
  // Regular files only: hash-object reads through a symlink, where the index holds its target.
  const present = [...new Set([...assumeUnchanged, ...skipWorktree])].filter(
    (path) => lstatSync(join(dir, path), { throwIfNoEntry: false })?.isFile() === true,
  );
  const hidden: string[] = [];
  for (const paths of perCall(present)) {
    const [staged, work] = await Promise.all([
      git(dir, ["--literal-pathspecs", "ls-files", "-s", "-z", "--", ...paths], { signal }),
      git(dir, ["hash-object", "--", ...paths], { signal }),
    ]);
    if (!staged.ok || !work.ok)
      throw operational(`git could not compare the files it skips: ${(staged.stderr || work.stderr).trim()}`);
    // `ls-files -s`: "<mode> <blob> <stage>\t<path>".
    const blobOf = new Map(
      staged.stdout
        .split("\0")
        .filter(Boolean)
        .map((entry) => [entry.slice(entry.indexOf("\t") + 1), entry.split(" ")[1]]),
    );
    const blobs = work.stdout.trim().split("\n");
    paths.forEach((path, index) => {
      if (blobOf.get(path) !== blobs[index]) hidden.push(path);
    });
  }
  return hidden;
}

/** The start of the name of the folder holding a comparison's index copies; its pid follows. */
const INDEX_COPIES_PREFIX = "cairn-index-";

/**
 * Files under `dir` whose index entry git takes on its stat and whose content is not what the
 * entry records: `git diff-files` on a copy of the index dated at the epoch's first second, where
 * git reads every file (each entry racily clean), against `git diff-files` on a copy keeping the
 * index's own time, where git reads what it would. A path only the first names is one git would
 * not read. Both copies are of one reading of the index: a `git status` rewriting it meanwhile
 * (refreshing a file touched but unchanged) must not make the two disagree. Content is compared
 * as git adds it, through the checkout's own filters (Git LFS's among them). Reads every tracked
 * file. `reading` is the checkout's index (null where it has none).
 */
export async function misrecordedEdits(
  dir: string,
  reading: IndexReading | null,
  signal?: AbortSignal,
): Promise<string[]> {
  if (!reading) return [];
  // Named with this process's pid: copies a cairn killed outright (kill -9) left while git read
  // through them go at the next comparison, once its pid runs no more; a stop signal's exit
  // removes them too (workFolder), which this function's `finally` never reaches then.
  const folder = ownWorkFolder(INDEX_COPIES_PREFIX);
  const scratch = folder.path;
  try {
    const [asIs, reread] = [join(scratch, "as-is"), join(scratch, "reread")];
    writeIndexCopy(asIs, reading, "as-read");
    writeIndexCopy(reread, reading, "epoch");
    const listed = ["diff-files", "--name-only", "-z"];
    const [read, trusted] = await Promise.all([
      git(dir, listed, { index: reread, signal }),
      git(dir, listed, { index: asIs, signal }),
    ]);
    if (!read.ok || !trusted.ok)
      throw operational(
        `git could not compare the checkout with its index: ${(read.stderr || trusted.stderr).trim()}`,
      );
    const seen = new Set(trusted.stdout.split("\0"));
    return [...new Set(read.stdout.split("\0"))].filter((path) => path !== "" && !seen.has(path));
  } finally {
    folder.remove();
  }
}
