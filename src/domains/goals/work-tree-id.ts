/**
 * The tree a task's check judges, named as git would record it: every change in the checkout
 * added, in an index of cairn's own. A tick holds for that tree alone (tasks/done.ts).
 */
import { lstatSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { crypto } from "../../kernel/builtins.js";
import { git } from "../../kernel/git.js";
import { operational } from "../../kernel/outcome.js";
import { quoteValue } from "../../kernel/text.js";
import { STATE_DIR_NAME } from "../workspace/discover.js";
import { EXCLUDE_STATE, fromGit, marksIn, perCall } from "./git.js";
import { readIndex, writeIndexCopy } from "./index-copy.js";

/**
 * cairn's own index of a checkout, beside the checkout's (`git rev-parse --git-path`: one per
 * linked worktree, gone with it). git trusts an index entry whose recorded stat matches the file,
 * without reading the file, and the checkout's index is a file anyone who runs git there writes:
 * one `git add` through a clean filter set for that once records any content against the stat of
 * a file that holds another. cairn's index is written by cairn's own git alone, so what it
 * trusts, cairn read.
 */
const KEPT_INDEX = "cairn-index";

/**
 * Every path of the checkout, from its top: a workspace may be made in a folder of a repository (a
 * package of a monorepo), and its checks read files above it (`node ../shared/check.js`). Named
 * from the workspace's folder alone, an edit there after a check left the tick standing, and the
 * tree named held the checkout index's version of such a file, not the one the check ran.
 */
const WHOLE_TREE = ":/";

/** A scratch index older than this was left by a process that died (a check takes seconds). */
const ABANDONED_MS = 3_600_000;

/**
 * How to name the tree the checkout at `dir` holds, as often as it is asked (before and after
 * each command of a check), or null outside a git work tree. What does not change within a check
 * is asked once, by three gits at once: where the checkout's index lives (with whether it is a
 * work tree), whether cairn's folder is ignored, and which filter drivers are configured.
 */
export async function workTreeNamer(
  dir: string,
  signal?: AbortSignal,
): Promise<(() => Promise<string>) | null> {
  const [located, stateIgnored, settings] = await Promise.all([
    git(dir, ["rev-parse", "--is-inside-work-tree", "--git-path", "index", "--git-path", KEPT_INDEX], {
      signal,
    }),
    git(dir, ["check-ignore", "-q", "--", STATE_DIR_NAME], { signal }),
    contentSettings(dir, signal),
  ]);
  const [inside, indexPath, keptPath] = located.stdout.trim().split("\n");
  if (!located.ok || inside !== "true" || !indexPath || !keptPath) return null;
  // From the real folder: git names both relative to the folder it ran in (`../.git/index`).
  const own = fromGit(dir, indexPath);
  const kept = fromGit(dir, keptPath);
  removeAbandoned(kept);
  // Where the checkout ignores cairn's folder (`.cairn/` in its .gitignore, as many do), git
  // refuses a pathspec that names it, even one that leaves it out, and `add -A` leaves it out
  // anyway. Elsewhere the pathspec keeps git from reading the database on every check.
  const add = stateIgnored.ok
    ? ["add", "-A", "--", WHOLE_TREE]
    : ["add", "-A", "--", WHOLE_TREE, EXCLUDE_STATE];
  return () => workTreeId({ dir, own, kept, add, settings, signal });
}

/**
 * Did the checkout at `dir` only gain paths between two trees `workTreeNamer` named (every path
 * of `from` still there, unchanged, in `to`)? False where git cannot tell.
 */
export async function treeOnlyGrew(
  dir: string,
  from: string,
  to: string,
  signal?: AbortSignal,
): Promise<boolean> {
  if (from === to) return true;
  const changed = await git(
    dir,
    [
      "diff-tree",
      "-r",
      "--no-renames",
      "--no-ext-diff",
      "--no-textconv",
      "--diff-filter=MDT",
      "--name-only",
      "-z",
      from,
      to,
    ],
    { signal },
  );
  return changed.ok && changed.stdout === "";
}

interface Naming {
  dir: string;
  /** The checkout's index: which files it tracks. */
  own: string;
  /** cairn's index of the checkout (`KEPT_INDEX`): what cairn read of each file, and when. */
  kept: string;
  /** The `git add` that takes in every change. */
  add: string[];
  settings: readonly (readonly [string, string])[];
  signal?: AbortSignal;
}

/**
 * The id of the tree the checkout holds now: what `git write-tree` would record were every change
 * in the checkout added, above `dir` too (untracked files too; ignored ones and cairn's state
 * not). It is computed in cairn's own index of the checkout, which only files changed since cairn
 * last read them cost a read, and is content-addressed: the same files give the same id whether
 * they were committed since or not. Like `git stash`, it writes the blobs of changed files into
 * the object store, unreferenced (git's gc prunes them; the id is of their content, so it needs
 * them no more).
 *
 * The first time, cairn's index starts as a copy of the checkout's, dated so that git reads every
 * file again rather than trust a stat the checkout's index records. After that, the files the
 * checkout's index tracks are tracked in cairn's too (a file added with `git add -f` in spite of an
 * ignore rule is part of the tree), and nothing else is taken from it.
 *
 * Throws, with what git said, where git cannot name it (or `signal` stopped it: a large untracked
 * file takes a while to add). A tree left unnamed is never taken as "no rule": anyone who can
 * write the checkout can make git fail on purpose (an empty repository inside it will do).
 */
async function workTreeId({ dir, own, kept, add, settings, signal }: Naming): Promise<string> {
  // Beside cairn's index, so that the finished one replaces it in one rename.
  const index = `${kept}.${process.pid}.${crypto().randomBytes(4).toString("hex")}`;
  try {
    // cairn's index, trusting what it trusted; else the first time, the checkout's, trusting
    // nothing: every entry is read.
    const keptReading = readIndex(kept);
    const fromKept = keptReading !== null;
    const seed = keptReading ?? readIndex(own);
    if (seed) writeIndexCopy(index, seed, fromKept ? "as-read" : "epoch");
    const run = (args: string[]) => indexGit(dir, args, index, signal, settings);
    // What cairn's index tracks, and what the checkout's does, asked at once.
    const [listed, tracked] = await Promise.all([
      run(["ls-files", "-v", "-z", "--", WHOLE_TREE]),
      fromKept ? indexGit(dir, ["ls-files", "-z", "--", WHOLE_TREE], own, signal) : null,
    ]);
    await unmark(listed, run);
    if (tracked !== null) await trackAsTheCheckoutDoes(dir, tracked, listed, run);
    await run(add);
    // cairn's state is no part of the work, committed (a shared cairn.toml) or not.
    await run(["rm", "-r", "-q", "--cached", "--ignore-unmatch", "--", STATE_DIR_NAME]);
    // Read through, the index is written now whether or not anything changed, so that it is no
    // longer dated at the epoch: what was just read is trusted next time, unless it changes.
    if (!fromKept) await run(["update-index", "--force-write-index"]);
    const tree = (await run(["write-tree", "--missing-ok"])).trim();
    renameSync(index, kept);
    return tree;
  } finally {
    rmSync(index, { force: true });
    rmSync(`${index}.lock`, { force: true });
  }
}

/**
 * Track in cairn's index each file the checkout's index tracks (`tracked`, from `ls-files -z`) and
 * cairn's does not (`listed`, from `ls-files -v -z`): one added with `git add -f` in spite of an
 * ignore rule, or tracked again since. Its content is read by cairn's git; only the list of paths
 * comes from the checkout's index.
 */
async function trackAsTheCheckoutDoes(
  dir: string,
  tracked: string,
  listed: string,
  run: (args: string[]) => Promise<string>,
): Promise<void> {
  const known = new Set(listed.split("\0").map((entry) => entry.slice(2)));
  const missing = [...new Set(tracked.split("\0"))].filter(
    (path) =>
      path !== "" &&
      !known.has(path) &&
      path !== STATE_DIR_NAME &&
      !path.startsWith(`${STATE_DIR_NAME}/`) &&
      // Gone from the work tree: a deletion, which `add -A` records as such.
      lstatSync(join(dir, path), { throwIfNoEntry: false }) !== undefined,
  );
  for (const paths of perCall(missing)) await run(["--literal-pathspecs", "add", "-f", "--", ...paths]);
}

/** Scratch indexes a killed process left beside cairn's index (a lock file of git's among them). */
function removeAbandoned(kept: string): void {
  const prefix = `${basename(kept)}.`;
  const folder = dirname(kept);
  let names: string[];
  try {
    names = readdirSync(folder).filter((name) => name.startsWith(prefix));
  } catch {
    return;
  }
  for (const name of names) {
    const path = join(folder, name);
    const stat = statSync(path, { throwIfNoEntry: false });
    if (stat && Date.now() - stat.mtimeMs > ABANDONED_MS) rmSync(path, { force: true });
  }
}

/** One git on cairn's index copy: its output, or an error quoting what git said. */
async function indexGit(
  dir: string,
  args: string[],
  index: string,
  signal?: AbortSignal,
  settings?: readonly (readonly [string, string])[],
): Promise<string> {
  const run = await git(dir, args, { index, signal, settings });
  if (run.ok) return run.stdout;
  const said = run.stderr.trim().split("\n").slice(0, 2).join(" ");
  throw operational(
    `git could not name the checkout's tree (git ${args[0]}: ${quoteValue(said || "no message", 200)})`,
    "make the checkout one git can add (remove or ignore what git names), then try again",
  );
}

/**
 * What git reads a file's content by, kept to the file itself. Configuration is a file anyone who
 * can write the checkout writes (.git/config, with `.git/info/attributes`, neither in the tree):
 * - a clean filter (`filter.<driver>.clean`, or `.process`) decides the blob `add` records, and
 *   one that prints HEAD's version hid every edit; each configured driver is turned off here, so
 *   the content itself is hashed (a Git LFS file edited since its last commit too: checked, then
 *   committed, it is named by its pointer, and needs the check again);
 * - `core.trustctime=false` or `core.checkStat=minimal` let an edit of the same size, its time put
 *   back, pass for unchanged; git's own defaults are forced, under which any write changes ctime.
 */
async function contentSettings(dir: string, signal?: AbortSignal): Promise<[string, string][]> {
  const listed = await git(dir, ["config", "--name-only", "--get-regexp", "^filter\\."], { signal });
  // `filter.<driver>.<key>`: the driver's name may itself hold dots.
  const drivers = new Set(
    listed.stdout
      .split("\n")
      .filter((key) => key.startsWith("filter."))
      .map((key) => key.slice("filter.".length, key.lastIndexOf("."))),
  );
  return [
    ["core.checkStat", "default"],
    ["core.trustctime", "true"],
    ["core.ignoreStat", "false"],
    // cairn's index stands alone and trusts nothing it did not write itself: no shared index it
    // points into (which git may expire), no cache of untracked folders (which would let an
    // index written by someone else hide a new file), no folder entries in place of files.
    ["core.splitIndex", "false"],
    ["core.untrackedCache", "false"],
    ["index.sparse", "false"],
    ...[...drivers].flatMap((driver): [string, string][] => [
      [`filter.${driver}.clean`, ""],
      [`filter.${driver}.process`, ""],
      [`filter.${driver}.required`, "false"],
    ]),
  ];
}

/**
 * Clear, in cairn's index, the marks that make git skip a tracked file's content:
 * `--assume-unchanged` and `--skip-worktree`, as `listed` (`ls-files -v -z`) shows them. Anyone who
 * can run git in the checkout can set them, and an edit to a marked file is invisible to `add -A`:
 * marked, edited after its check, then unmarked and committed, a change would have been finished
 * unchecked. A sparse checkout's files outside its cone are marked too; cleared, they count as
 * absent, at every check alike. Only a copy of the checkout's index brings marks with it.
 */
async function unmark(listed: string, run: (args: string[]) => Promise<string>): Promise<void> {
  const { assumeUnchanged, skipWorktree } = marksIn(listed);
  const marks = [
    ["--no-assume-unchanged", assumeUnchanged],
    ["--no-skip-worktree", skipWorktree],
  ] as const;
  // One mark per call: given both, update-index applies only one of them.
  for (const [flag, marked] of marks)
    for (const paths of perCall(marked)) await run(["update-index", flag, "--", ...paths]);
}
