import type { Hash } from "node:crypto";
import {
  type Dirent,
  existsSync,
  lstatSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  rmSync,
  statSync,
} from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { crypto, sha256Hex } from "../../kernel/builtins.js";
import { git } from "../../kernel/git.js";
import { realPathOf } from "../../kernel/inside.js";
import { operational, refuse } from "../../kernel/outcome.js";
import { readRegularBytes } from "../../kernel/regular-file.js";
import { STATE_DIR_NAME } from "../workspace/discover.js";

/** Paths git must never touch or report: cairn's own state lives in the work tree. */
export const EXCLUDE_STATE = `:(exclude)${STATE_DIR_NAME}`;

export async function isGitRepo(dir: string): Promise<boolean> {
  if (!existsSync(dir)) return false;
  return (await git(dir, ["rev-parse", "--is-inside-work-tree"])).ok;
}

/** A path git prints, one to a line: only the line break is cut (a folder's name may end in a space). */
async function revParse(dir: string, flags: string[], signal?: AbortSignal): Promise<string | null> {
  const run = await git(dir, ["rev-parse", ...flags], { signal });
  return run.ok ? fromGit(dir, run.stdout.replace(/\n$/, "")) : null;
}

/**
 * A path git printed in `dir`, made absolute. git names some relative to the folder it ran in
 * (`../.git/index` from a package of a monorepo), and that folder is the real one: resolved from
 * `dir` reached through a link (`CAIRN_DIR=/tmp/link`), `..` was the link's parent, so the index
 * read for hidden edits was none (a forged entry went unseen), and a linked worktree's repository
 * was not taken for the workspace's own.
 */
export const fromGit = (dir: string, path: string) => resolve(realPathOf(dir), path);

/**
 * `dir`'s place in the checkout whose top is `top`, as a repository path ("" at the top, `pkg`
 * below it), taken by real paths as git names its top: from a workspace reached through a link
 * (`CAIRN_DIR=/tmp/link`) the place was `../link`.
 */
export const placeInCheckout = (top: string, dir: string) =>
  relative(realPathOf(top), realPathOf(dir)).split(sep).join("/");

/** The checkout's own git folder (a linked worktree's own, not the main one's), or null outside git. */
export const gitDirOf = (dir: string): Promise<string | null> => revParse(dir, ["--absolute-git-dir"]);

/**
 * The nearest folder at or above `dir` (its real path) holding a `.git`, folder or file: the
 * checkout `dir` is in, as git's own search from `dir` finds it. Null when there is none.
 */
function checkoutRootAbove(dir: string): string | null {
  let at: string;
  try {
    at = realpathSync(dir);
  } catch {
    return null;
  }
  for (;;) {
    if (lstatSafe(join(at, ".git")) !== null) return at;
    const up = dirname(at);
    if (up === at) return null;
    at = up;
  }
}

/** What lstat finds at `path`, or null when it finds nothing it can read. */
export function lstatSafe(path: string) {
  try {
    return lstatSync(path);
  } catch {
    return null;
  }
}

/**
 * `top`, the work tree git reports for `dir`, when it is the checkout `dir` is in; refused
 * otherwise. A repository's configuration is a file whoever can edit the checkout writes, and
 * `core.worktree` there (or in a worktree's `config.worktree`, or a bare folder's config) moves
 * git's work tree elsewhere, which no variable cairn starts git with undoes: with it at a clean
 * copy, the drift check, the measured tree and the keep's commit read the copy while the
 * evaluators ran in the edited checkout, and a revert removed files in the copy.
 */
function ownTop(dir: string, top: string): string {
  const root = checkoutRootAbove(dir);
  if (root !== null && realPathOf(top) === root) return top;
  throw refuse(
    "git",
    `git's work tree for ${dir} is ${top}, not the checkout it is in (${root ?? "none found"}): the repository's configuration moves it (core.worktree), and cairn measures, commits and reverts only the checkout its evaluators run in`,
    `remove the setting (\`git config --unset core.worktree\`, or \`git config --worktree --unset core.worktree\` in a linked worktree), then try again`,
  );
}

/**
 * The top of the checkout holding `dir` (a linked worktree is its own checkout), refused when git
 * reports a work tree elsewhere (see `ownTop`).
 */
export async function checkoutTop(dir: string, signal?: AbortSignal): Promise<string | null> {
  const top = await revParse(dir, ["--show-toplevel"], signal);
  return top === null ? null : ownTop(dir, top);
}

/** Where git finds the checkout holding `dir`: its top, and its index file. */
export interface CheckoutPlaces {
  top: string;
  index: string;
}

/**
 * `dir`'s checkout as git finds it (null outside a work tree), both places from one git where it
 * can: a check of the checkout reads the index git reads, never one cairn located itself (a
 * `.git` file names its folder in a way easy to read otherwise than git does).
 */
export async function checkoutPlaces(dir: string, signal?: AbortSignal): Promise<CheckoutPlaces | null> {
  const asked = await git(dir, ["rev-parse", "--show-toplevel", "--git-path", "index"], { signal });
  if (!asked.ok) return null;
  const lines = asked.stdout.split("\n");
  if (lines.length === 3 && lines[2] === "")
    return { top: ownTop(dir, fromGit(dir, lines[0] as string)), index: fromGit(dir, lines[1] as string) };
  // A path with a line break in it: asked one at a time, each answer whole.
  const [top, index] = await Promise.all([
    checkoutTop(dir, signal),
    revParse(dir, ["--git-path", "index"], signal),
  ]);
  return top && index ? { top, index } : null;
}

/** The top of `places`' checkout, for what needs only that. */
export const topOf = async (places: Promise<CheckoutPlaces | null>) => (await places)?.top ?? null;

/**
 * The directory an attempt opened from `cwd` works in: the workspace root as seen from the
 * checkout `cwd` belongs to. In a linked worktree of the workspace's repository that is the same
 * relative place inside the worktree; anywhere else it is the workspace root itself. The place is
 * taken by real paths, as git names its tops: a workspace reached through a link
 * (`CAIRN_DIR=/tmp/link`) made it `../link`, and an attempt opened in a worktree worked in the
 * main checkout, through the link.
 */
export async function checkoutFor(cwd: string, workspaceRoot: string): Promise<string> {
  const [here, main, hereCommon, mainCommon] = await Promise.all([
    checkoutTop(cwd),
    checkoutTop(workspaceRoot),
    revParse(cwd, ["--git-common-dir"]),
    revParse(workspaceRoot, ["--git-common-dir"]),
  ]);
  if (!here || !main || here === main || hereCommon !== mainCommon) return workspaceRoot;
  return join(here, placeInCheckout(main, workspaceRoot));
}

/** Fields before the path in each kind of `git status --porcelain=v2` entry (`?`: untracked). */
const FIELDS_BEFORE_PATH: Readonly<Record<string, number>> = { "1": 8, "2": 9, u: 10, "?": 1 };

/**
 * HEAD (null before a first commit) and the paths that differ from it (modified, staged,
 * untracked), repository-relative, state excluded: one `git status`, which reports both. Under
 * `dir` only, unless `whole`: then in the whole checkout, above `dir` too.
 */
export async function checkoutStatus(
  dir: string,
  whole = false,
): Promise<{ head: string | null; paths: string[] }> {
  const status = await git(dir, [
    "status",
    "--porcelain=v2",
    "--branch",
    "-z",
    "--untracked-files=all",
    "--",
    whole ? ":/" : ".",
    EXCLUDE_STATE,
  ]);
  if (!status.ok) throw operational(`git status failed: ${status.stderr.trim()}`);
  const entries = status.stdout.split("\0");
  let head: string | null = null;
  const paths: string[] = [];
  for (let index = 0; index < entries.length; index++) {
    const entry = entries[index] as string;
    if (entry.startsWith("# branch.oid ")) {
      const oid = entry.slice("# branch.oid ".length);
      head = oid === "(initial)" ? null : oid;
      continue;
    }
    const fields = FIELDS_BEFORE_PATH[entry[0] ?? ""];
    if (fields === undefined) continue;
    let at = 0;
    for (let field = 0; field < fields; field++) at = entry.indexOf(" ", at) + 1;
    paths.push(entry.slice(at));
    // A rename or copy carries its source path as the next entry: both paths changed.
    if (entry[0] === "2") {
      index++;
      const source = entries[index];
      if (source) paths.push(source);
    }
  }
  return { head, paths: [...new Set(paths)].sort() };
}

/** Paths that differ from HEAD (modified, staged, untracked), repository-relative, state excluded. */
export async function changedPaths(dir: string): Promise<string[]> {
  return (await checkoutStatus(dir)).paths;
}

/**
 * The tracked files `git ls-files -v -z` shows as marked so that git skips their content: a
 * lower-case tag is `--assume-unchanged`, `S` (or `s`, both) `--skip-worktree`.
 */
export function marksIn(listing: string): { assumeUnchanged: string[]; skipWorktree: string[] } {
  const entries = listing.split("\0").filter((entry) => entry.length > 2);
  const paths = (tag: RegExp) => entries.filter((entry) => tag.test(entry)).map((entry) => entry.slice(2));
  return { assumeUnchanged: paths(/^[a-z] /), skipWorktree: paths(/^[sS] /) };
}

/** `paths` in runs short enough for one git call's arguments: far below any system's limit. */
export function* perCall(paths: readonly string[]): Generator<string[]> {
  for (let at = 0; at < paths.length; at += 1_000) yield paths.slice(at, at + 1_000);
}

/** Files tracked at HEAD plus untracked, non-ignored ones: what an input glob can match. */
export async function workFiles(dir: string): Promise<string[]> {
  const top = await checkoutTop(dir);
  return top ? filesOfCheckout(top) : [];
}

/** `workFiles` of the checkout whose top is already known: one git fewer. */
export async function filesOfCheckout(top: string): Promise<string[]> {
  const listed = await git(top, ["ls-files", "-z", "--cached", "--others", "--exclude-standard"]);
  if (!listed.ok) throw operational(`git ls-files failed: ${listed.stderr.trim()}`);
  return [...new Set(listed.stdout.split("\0").filter((path) => path !== ""))].sort();
}

/**
 * Files git ignores inside `folders` (repository-relative, each listed whole): what a `.gitignore`
 * or `.git/info/exclude` entry hides from `workFiles` but an evaluator still reads.
 */
export async function ignoredFilesUnder(top: string, folders: readonly string[]): Promise<string[]> {
  if (folders.length === 0) return [];
  const specs = folders.map((folder) => `:(top,literal)${folder}`);
  const listed = await git(top, [
    "ls-files",
    "-z",
    "--others",
    "--ignored",
    "--exclude-standard",
    "--",
    ...specs,
  ]);
  if (!listed.ok) throw operational(`git ls-files failed: ${listed.stderr.trim()}`);
  return listed.stdout.split("\0").filter((path) => path !== "");
}

/**
 * The files below a real folder, relative to it, sorted, `.git` left out: what git shows as one
 * entry (a nested repository, a submodule) and what a folder named as an input holds.
 */
export function filesBelow(folder: string): string[] {
  const found: string[] = [];
  const walk = (dir: string, prefix: string) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (entry.name === ".git") continue;
      const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(join(dir, entry.name), rel);
      else if (entry.isFile() || entry.isSymbolicLink()) found.push(rel);
    }
  };
  walk(folder, "");
  return found.sort();
}

/**
 * Content hash of a repository-relative path in a checkout; a symlink hashes its target text. A
 * real folder (a nested repository or submodule git shows as one path, a folder named as an input)
 * hashes every file below it, its executable bit too: as one entry its content would read
 * `absent` whatever was edited inside.
 */
export function hashWorkFile(top: string, path: string): string {
  const full = join(top, path);
  try {
    const stat = lstatSync(full);
    const hash = crypto().createHash("sha256");
    if (stat.isSymbolicLink()) hash.update(`symlink:${readlinkSync(full)}`);
    else if (stat.isFile()) hash.update(readRegularBytes(full));
    else if (stat.isDirectory()) hashFolder(full, hash);
    else return "absent";
    return `sha256:${hash.digest("hex")}`;
  } catch {
    return "absent";
  }
}

function hashFolder(full: string, hash: Hash): void {
  hash.update("folder:");
  for (const rel of filesBelow(full)) {
    const file = join(full, rel);
    const stat = lstatSync(file);
    const content = stat.isSymbolicLink() ? `symlink:${readlinkSync(file)}` : readRegularBytes(file);
    const digest = sha256Hex(content);
    hash.update(`${rel}\0${digest}${(stat.mode & 0o111) !== 0 && stat.isFile() ? " x" : ""}\n`);
  }
}

/**
 * The hash of an evaluator's input: like `hashWorkFile`, but a symlink also hashes what it points
 * to (a file's content, a folder's files), since the evaluator reads through it; editing the
 * target is editing the input.
 */
export function hashInputFile(top: string, path: string): string {
  const full = join(top, path);
  try {
    if (!lstatSync(full).isSymbolicLink()) return hashWorkFile(top, path);
    const hash = crypto()
      .createHash("sha256")
      .update(`symlink:${readlinkSync(full)}\0`);
    const target = statSync(full);
    if (target.isFile()) hash.update(readRegularBytes(full, { follow: true }));
    else if (target.isDirectory()) hashFolder(full, hash);
    return `sha256:${hash.digest("hex")}`;
  } catch {
    return hashWorkFile(top, path);
  }
}

/** Commits reachable from HEAD but not from `base`, newest first (short sha and subject). */
export async function commitsSince(dir: string, base: string): Promise<string[]> {
  const listed = await git(dir, ["log", "--format=%h %s", `${base}..HEAD`]);
  if (!listed.ok) throw operational(`git log failed: ${listed.stderr.trim()}`);
  return listed.stdout.split("\n").filter((line) => line !== "");
}

/** A detached worktree of `commit` in `path`: the base measured beside the attempt. */
export async function addWorktree(dir: string, path: string, commit: string): Promise<void> {
  const run = await git(dir, ["worktree", "add", "--detach", "-q", path, commit]);
  if (!run.ok) throw operational(`git worktree add failed: ${run.stderr.trim()}`);
}

export async function removeWorktree(dir: string, path: string): Promise<void> {
  await git(dir, ["worktree", "remove", "--force", path]);
  rmSync(path, { recursive: true, force: true });
  await pruneWorktrees(dir);
}

/** Have git forget the worktrees whose folders are gone. */
export async function pruneWorktrees(dir: string): Promise<void> {
  await git(dir, ["worktree", "prune"]);
}

/** The commit `message` made on top of `before`, if HEAD is now exactly that; else null. */
export async function commitMadeSince(
  dir: string,
  before: string | null,
  message: string,
): Promise<string | null> {
  const head = await git(dir, ["log", "-1", "--format=%H%x00%P%x00%B"]);
  if (!head.ok) return null;
  const [sha = "", parents = "", body = ""] = head.stdout.split("\0");
  const onBefore = before === null ? parents === "" : parents === before;
  return sha !== before && onBefore && body.trim() === message ? sha : null;
}
