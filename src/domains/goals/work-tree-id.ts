/**
 * The tree a task's check judges, named as git would record it: every change in the checkout
 * added, in a copy of its index. A tick holds for that tree alone (tasks/done.ts).
 */
import { copyFileSync, existsSync, mkdtempSync, rmSync, statSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { git } from "../../kernel/git.js";
import { operational } from "../../kernel/outcome.js";
import { quoteValue } from "../../kernel/text.js";
import { STATE_DIR_NAME } from "../workspace/discover.js";
import { EXCLUDE_STATE, marksIn, perCall } from "./git.js";

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
    git(dir, ["rev-parse", "--is-inside-work-tree", "--git-path", "index"], { signal }),
    git(dir, ["check-ignore", "-q", "--", STATE_DIR_NAME], { signal }),
    contentSettings(dir, signal),
  ]);
  const [inside, indexPath] = located.stdout.trim().split("\n");
  if (!located.ok || inside !== "true" || !indexPath) return null;
  const own = resolve(dir, indexPath);
  // Where the checkout ignores cairn's folder (`.cairn/` in its .gitignore, as many do), git
  // refuses a pathspec that names it, even one that leaves it out, and `add -A` leaves it out
  // anyway. Elsewhere the pathspec keeps git from reading the database on every check.
  const add = stateIgnored.ok ? ["add", "-A", "--", "."] : ["add", "-A", "--", ".", EXCLUDE_STATE];
  return () => workTreeId(dir, own, add, settings, signal);
}

/**
 * The id of the tree the checkout holds now: what `git write-tree` would record were every change
 * under `dir` added (untracked files too; ignored ones and cairn's state not). It is computed in a
 * copy of the checkout's index (`own`), which stays untouched, and is content-addressed: the same
 * files give the same id whether they were committed since or not. Like `git stash`, it writes
 * the blobs of changed files into the object store, unreferenced (git's gc prunes them).
 *
 * Throws, with what git said, where git cannot name it (or `signal` stopped it: a large untracked
 * file takes a while to add). A tree left unnamed is never taken as "no rule": anyone who can
 * write the checkout can make git fail on purpose (an empty repository inside it will do).
 */
async function workTreeId(
  dir: string,
  own: string,
  add: string[],
  settings: readonly (readonly [string, string])[],
  signal?: AbortSignal,
): Promise<string> {
  const scratch = mkdtempSync(join(tmpdir(), "cairn-index-"));
  try {
    const index = join(scratch, "index");
    // The checkout's index carries what git knows of each file's stat: only changed files are read.
    if (existsSync(own)) {
      copyFileSync(own, index);
      // git trusts an entry whose stat matches only if the file changed before the index was
      // written: one edited in that same second (of the same size) is read again, as racily
      // clean. A copy made now would pass for a later index and lose that. Its time is put back,
      // to the second, so git re-reads what the checkout's own index would have it re-read.
      const { atimeMs, mtimeMs } = statSync(own);
      utimesSync(index, atimeMs / 1000, Math.floor(mtimeMs / 1000));
    }
    await unmark(dir, index, signal);
    const run = (args: string[]) => indexGit(dir, args, index, signal, settings);
    await run(add);
    // cairn's state is no part of the work, committed (a shared cairn.toml) or not.
    await run(["rm", "-r", "-q", "--cached", "--ignore-unmatch", "--", STATE_DIR_NAME]);
    return (await run(["write-tree"])).trim();
  } finally {
    rmSync(scratch, { recursive: true, force: true });
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
    ...[...drivers].flatMap((driver): [string, string][] => [
      [`filter.${driver}.clean`, ""],
      [`filter.${driver}.process`, ""],
      [`filter.${driver}.required`, "false"],
    ]),
  ];
}

/**
 * Clear, in the index copy, the marks that make git skip a tracked file's content:
 * `--assume-unchanged` and `--skip-worktree`. Anyone who can run git in the checkout can set
 * them, and an edit to a marked file is invisible to `add -A`: marked, edited after its check,
 * then unmarked and committed, a change would have been finished unchecked. A sparse checkout's
 * files outside its cone are marked too; cleared, they count as absent, at every check alike.
 */
async function unmark(dir: string, index: string, signal?: AbortSignal): Promise<void> {
  const listed = await indexGit(dir, ["ls-files", "-v", "-z"], index, signal);
  const { assumeUnchanged, skipWorktree } = marksIn(listed);
  const marks = [
    ["--no-assume-unchanged", assumeUnchanged],
    ["--no-skip-worktree", skipWorktree],
  ] as const;
  // One mark per call: given both, update-index applies only one of them.
  for (const [flag, marked] of marks)
    for (const paths of perCall(marked))
      await indexGit(dir, ["update-index", flag, "--", ...paths], index, signal);
}
