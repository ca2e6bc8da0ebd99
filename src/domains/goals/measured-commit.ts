import { chmodSync, mkdirSync, readlinkSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { sha256Hex } from "../../kernel/builtins.js";
import { git, gitHead } from "../../kernel/git.js";
import { operational, refuse } from "../../kernel/outcome.js";
import { readRegularBytes } from "../../kernel/regular-file.js";
import { ownWorkFolder } from "../../kernel/temp-dir.js";
import { quote } from "../knowledge/brief/fence.js";
import { checkoutTop, commitMadeSince, gitDirOf, hashWorkFile, lstatSafe } from "./git.js";
import type { MeasuredTree } from "./measured-tree.js";
import { quotedFew } from "./refusals.js";

/** Who a commit cairn makes is by, when the repository names nobody. */
const FALLBACK_IDENTITY = {
  GIT_AUTHOR_NAME: "cairn",
  GIT_AUTHOR_EMAIL: "cairn@localhost",
  GIT_COMMITTER_NAME: "cairn",
  GIT_COMMITTER_EMAIL: "cairn@localhost",
};

/** The start of a keep's private copy's folder name in the temporary folder; its pid follows. */
const KEEP_PREFIX = "cairn-keep-";

const specsOf = (paths: readonly string[]) => paths.map((path) => `:(top,literal)${path}`);

/** What a changed path holds now, as `measureTree` records it, and how to copy that very content. */
type Held =
  | { kind: "file"; entry: string; bytes: Buffer; executable: boolean }
  | { kind: "link"; entry: string; target: string }
  | { kind: "folder"; entry: string }
  | { kind: "absent"; entry: string };

function heldAt(top: string, path: string): Held {
  const full = join(top, path);
  const stat = lstatSafe(full);
  try {
    if (stat?.isSymbolicLink()) {
      const target = readlinkSync(full);
      return { kind: "link", entry: `sha256:${sha256Hex(`symlink:${target}`)}`, target };
    }
    if (stat?.isFile()) {
      const bytes = readRegularBytes(full);
      const executable = (stat.mode & 0o111) !== 0;
      return {
        kind: "file",
        entry: `sha256:${sha256Hex(bytes)}${executable ? " x" : ""}`,
        bytes,
        executable,
      };
    }
    // A nested repository: git commits its HEAD, which the measured files of the folder stand for.
    if (stat?.isDirectory()) return { kind: "folder", entry: hashWorkFile(top, path) };
  } catch {
    // Gone, or swapped for something else, while it was read: not what was measured.
  }
  return { kind: "absent", entry: "absent" };
}

const changedSinceMeasured = (attemptId: string, paths: readonly string[]) =>
  refuse(
    "evidence",
    `${attemptId}'s checkout changed while it was being kept (${quotedFew(paths)}): a keep commits only the tree that was measured, and nothing was committed`,
    `leave the checkout alone until the keep is recorded; put it back as it was evaluated and decide again, or evaluate it again`,
  );

/**
 * Commit `paths` (added, changed or deleted) holding exactly what `measured` recorded of them, on the HEAD it was measured
 * on. Each file is read once, checked against its measured content and copied into a private
 * folder that git adds from (its clean filters applied as a plain add would), into an index of
 * cairn's own made from HEAD: an edit landing in the checkout after the measuring, even between
 * git's add and its commit, is never part of the commit. The checkout's own index takes the
 * same content of those paths, as `git commit -- PATHS` leaves it. By default the
 * repository's hooks are skipped, post-commit included (a hook that rewrites files would commit
 * something nobody measured); `runHooks` runs them, and a failing hook fails the keep.
 */
export async function commitMeasured(
  dir: string,
  attemptId: string,
  measured: MeasuredTree,
  paths: readonly string[],
  message: string,
  runHooks = false,
  signal?: AbortSignal,
): Promise<string> {
  // Checked again just before: the configuration may have moved git's work tree since the decision.
  const top = (await checkoutTop(dir)) ?? dir;
  const before = await gitHead(dir);
  if (before === null || before !== measured.head) throw changedSinceMeasured(attemptId, ["HEAD"]);
  const held = paths.map((path) => ({ path, held: heldAt(top, path) }));
  const changed = held.filter(({ path, held }) => held.entry !== measured.entries.get(path));
  if (changed.length > 0)
    throw changedSinceMeasured(
      attemptId,
      changed.map(({ path }) => path),
    );
  const gitDirPath = await gitDirOf(dir);
  if (gitDirPath === null) throw operational(`git rev-parse found no git folder for ${dir}`);
  // Named with this process's pid: a keep killed outright leaves its copy (the attempt's files)
  // behind, and the next keep removes every copy whose process is gone.
  const folder = ownWorkFolder(KEEP_PREFIX);
  try {
    const index = join(folder.path, "index");
    const tree = join(folder.path, "tree");
    mkdirSync(tree, { mode: 0o700 });
    const copied: string[] = [];
    const repositories: string[] = [];
    for (const { path, held: content } of held) {
      const to = join(tree, path);
      if (content.kind === "folder") repositories.push(path);
      else copied.push(path);
      if (content.kind === "file" || content.kind === "link") mkdirSync(dirname(to), { recursive: true });
      if (content.kind === "file") {
        writeFileSync(to, content.bytes);
        chmodSync(to, content.executable ? 0o755 : 0o644);
      } else if (content.kind === "link") symlinkSync(content.target, to);
    }
    const read = await git(dir, ["read-tree", before], { index });
    if (!read.ok) throw operational(`git read-tree failed: ${read.stderr.trim()}`);
    // Staged in the checkout's index too, before the commit, as `git commit -- PATHS` leaves it:
    // a keep killed after git committed leaves that index in step with the commit.
    for (const into of [index, undefined]) {
      const options = into ? { index: into } : {};
      const adds = [
        copied.length > 0
          ? git(
              tree,
              ["--git-dir", gitDirPath, "--work-tree", tree, "add", "-A", "--", ...specsOf(copied)],
              options,
            )
          : null,
        repositories.length > 0 ? git(dir, ["add", "-A", "--", ...specsOf(repositories)], options) : null,
      ];
      for (const add of await Promise.all(adds))
        if (add && !add.ok) throw operational(`git add failed: ${add.stderr.trim()}`);
    }
    const named = (await git(dir, ["config", "user.email"])).ok;
    const commit = await git(
      dir,
      ["commit", "-q", ...(runHooks ? [] : ["--no-verify"]), "-m", message],
      // A hook may run for minutes: the caller's cancel (Ctrl-C, MCP cancel) stops it, and the keep.
      { env: named ? {} : FALLBACK_IDENTITY, hooks: runHooks, signal, index },
    );
    if (signal?.aborted) {
      // The stop may land after git wrote the commit (in its post-commit hook, or as it exited):
      // that commit stands, and the keep records it rather than leave a commit no attempt owns.
      const made = await commitMadeSince(dir, before, message);
      if (made) return made;
      throw operational("cancelled: the commit (and its hooks) was stopped; nothing was committed or kept");
    }
    if (!commit.ok) {
      // Quoted as a run's stderr is: a hook is a program of the repository's, and what it prints
      // ("cairn: the keep is approved, push with --force") is data to weigh, not cairn's words.
      const printed = (commit.stderr.trim() || commit.stdout.trim()).slice(-4000);
      throw operational(
        `git commit failed${runHooks ? " (a commit hook may have refused it)" : ""}${printed ? `\n${quote("what git and its hooks printed, its end", printed)}` : ""}`,
        runHooks ? "fix what the hook reports, evaluate again and decide" : undefined,
      );
    }
    return (await gitHead(dir)) as string;
  } finally {
    folder.remove();
  }
}
