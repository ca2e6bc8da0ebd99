/**
 * Putting an attempt's own paths back as they were at its base (`attempt revert`): restored,
 * removed, or left in place when they are not the attempt's to discard.
 */
import { lstatSync, readdirSync, rmSync } from "node:fs";
import { basename, join } from "node:path";
import { git } from "../../kernel/git.js";
import { operational } from "../../kernel/outcome.js";
import { checkoutTop, lstatSafe } from "./git.js";
import { holdsCommits } from "./nested-repository.js";

/** What a restore left where it was, and why. */
export interface LeftInPlace {
  /** Paths the base's ignore rules hide: there, ignored, before the attempt un-ignored them. */
  ignored: string[];
  /** Folders holding a git repository with commits: never the attempt's to discard. */
  repositories: string[];
}

/**
 * Put exactly `paths` (repository-relative) back as they were at `base`: a path the base has is
 * restored in the index and work tree, a path it lacks is removed. Nothing else is touched: a
 * path the base's ignore rules hide is left where it is (an attempt that emptied a `.gitignore`
 * shows files that were there, ignored, before it opened, and are not its own), and so is a
 * repository nested in the checkout, whichever made it: hidden at open by a rule outside the
 * tree (`.git/info/exclude`) and shown since, it looks like the attempt's own, and removing it
 * would discard its commits. A nested repository with no commit yet is removed like a folder.
 */
export async function restorePaths(
  dir: string,
  base: string,
  paths: readonly string[],
): Promise<LeftInPlace> {
  if (paths.length === 0) return { ignored: [], repositories: [] };
  const top = (await checkoutTop(dir)) ?? dir;
  const inBase = await git(top, ["ls-tree", "-r", "-z", "--name-only", "--full-tree", base, "--", ...paths]);
  if (!inBase.ok) throw operational(`git ls-tree failed: ${inBase.stderr.trim()}`);
  const known = new Set(inBase.stdout.split("\0").filter((path) => path !== ""));
  // The base's ignore rules first, so what they hide can be told from what the attempt made.
  const rules = paths.filter(
    (path) => known.has(path) && basename(path) === ".gitignore" && isFileOrAbsent(join(top, path)),
  );
  if (rules.length > 0) {
    const specs = rules.map((path) => `:(top,literal)${path}`);
    const run = await git(top, ["restore", `--source=${base}`, "--staged", "--worktree", "--", ...specs]);
    if (!run.ok) throw operational(`git restore failed: ${run.stderr.trim()}`);
  }
  const unknown = paths.filter((path) => !known.has(path));
  const ignored = new Set<string>();
  if (unknown.length > 0) {
    // One path a line, unquoted (-z is for --stdin only): a name holding a newline is never
    // matched back, so it is removed as before.
    const checked = await git(top, [
      "-c",
      "core.quotePath=false",
      "check-ignore",
      "--no-index",
      "--",
      ...unknown,
    ]);
    for (const path of checked.stdout.split("\n")) if (unknown.includes(path)) ignored.add(path);
  }
  const restore = paths.filter((path) => known.has(path) && !rules.includes(path));
  const remove = unknown.filter((path) => !ignored.has(path));
  // git lists untracked files one by one (`--untracked-files=all`): a folder it lists whole is a
  // repository of its own. One with no commit yet (the attempt's `git init`) goes with the rest.
  const folders = new Set(remove.filter((path) => lstatSafe(join(top, path))?.isDirectory() === true));
  const repositories = [...folders].filter((path) => holdsCommits(join(top, path)));
  // Removed first: a symlink the attempt put where a base folder was must go before the folder's
  // files come back (git replaces it, and removing the path afterwards would meet a folder).
  if (remove.length > 0) {
    const specs = remove.map((path) => `:(top,literal)${path}`);
    await git(top, ["rm", "-q", "--cached", "--ignore-unmatch", "--", ...specs]);
    for (const path of remove)
      if (!repositories.includes(path))
        rmSync(join(top, path), { force: true, recursive: folders.has(path) });
  }
  if (restore.length > 0) {
    // A folder the attempt made where a base file was, emptied by the removals above (the base
    // had a file there, so every folder left inside it is the attempt's).
    for (const path of restore)
      if (holdsNoFile(join(top, path))) rmSync(join(top, path), { recursive: true, force: true });
    const specs = restore.map((path) => `:(top,literal)${path}`);
    const run = await git(top, ["restore", `--source=${base}`, "--staged", "--worktree", "--", ...specs]);
    if (!run.ok) throw operational(`git restore failed: ${run.stderr.trim()}`);
  }
  return { ignored: [...ignored], repositories };
}

function isFileOrAbsent(path: string): boolean {
  const stat = lstatSafe(path);
  return stat === null || stat.isFile();
}

/** A real folder (not a symlink) with no file anywhere below it, only folders, or nothing. */
function holdsNoFile(path: string): boolean {
  try {
    if (!lstatSync(path).isDirectory()) return false;
    return readdirSync(path).every((entry) => holdsNoFile(join(path, entry)));
  } catch {
    return false;
  }
}
