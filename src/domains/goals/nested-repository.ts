import { type Dirent, lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { readRegularFile } from "../../kernel/regular-file.js";

/**
 * Does the repository in `folder` (one nested in a checkout) hold a commit? Read from its files,
 * never by running git there: the attempt may have written that repository's configuration. Any
 * form this does not read plainly (a `.git` file pointing elsewhere, a reftable) counts as
 * holding one, so a revert leaves it.
 */
export function holdsCommits(folder: string): boolean {
  const gitDir = join(folder, ".git");
  if (!isDirectory(gitDir)) return true;
  const head = readText(join(gitDir, "HEAD"));
  // A HEAD that names a commit rather than a branch: detached on one.
  if (head === null || !head.startsWith("ref: ")) return true;
  if (isDirectory(join(gitDir, "reftable")) || holdsAFile(join(gitDir, "refs"))) return true;
  const packedRefs = join(gitDir, "packed-refs");
  const packed = readText(packedRefs);
  // There but not read (a FIFO): a form not read plainly.
  if (packed === null) return exists(packedRefs);
  return packed.split("\n").some((line) => line !== "" && !line.startsWith("#"));
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

function isDirectory(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** A regular file's text, else null: a FIFO in the attempt's repository is never waited on. */
function readText(path: string): string | null {
  try {
    return readRegularFile(path);
  } catch {
    return null;
  }
}

/** A file anywhere below `dir` (each ref is one): a branch, a tag, a stash. */
function holdsAFile(dir: string): boolean {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return false;
  }
  return entries.some((entry) => !entry.isDirectory() || holdsAFile(join(dir, entry.name)));
}
