import { spawnSync } from "node:child_process";
import { operational } from "../../kernel/outcome.js";
import { STATE_DIR_NAME } from "../workspace/discover.js";

/** Paths git must never touch or report: cairn's own state lives in the work tree. */
const EXCLUDE_STATE = `:(exclude)${STATE_DIR_NAME}`;

function git(
  root: string,
  args: string[],
  env?: NodeJS.ProcessEnv,
): { ok: boolean; stdout: string; stderr: string } {
  const run = spawnSync("git", args, {
    cwd: root,
    encoding: "utf8",
    env: env ? { ...process.env, ...env } : undefined,
  });
  if (run.error)
    throw operational(
      `git could not run: ${run.error.message}`,
      "install git or run cairn inside a git repository",
    );
  return { ok: run.status === 0, stdout: run.stdout, stderr: run.stderr };
}

export function gitHead(root: string): string | null {
  const head = git(root, ["rev-parse", "--verify", "-q", "HEAD"]);
  return head.ok ? head.stdout.trim() : null;
}

export function isGitRepo(root: string): boolean {
  return git(root, ["rev-parse", "--is-inside-work-tree"]).ok;
}

/** Paths that differ from HEAD (modified, staged, untracked), cairn's state excluded. */
export function changedPaths(root: string): string[] {
  const status = git(root, [
    "status",
    "--porcelain=v1",
    "-z",
    "--untracked-files=all",
    "--",
    ".",
    EXCLUDE_STATE,
  ]);
  if (!status.ok) throw operational(`git status failed: ${status.stderr.trim()}`);
  const entries = status.stdout.split("\0").filter((entry) => entry !== "");
  const paths: string[] = [];
  for (let index = 0; index < entries.length; index++) {
    const entry = entries[index] as string;
    paths.push(entry.slice(3));
    // A rename carries its source path as the next entry.
    if (entry[0] === "R" || entry[0] === "C") index++;
  }
  return paths.sort();
}

/** Put the work tree back at `base`: tracked files reset, files the attempt created removed. */
export function restoreBase(root: string, base: string): void {
  const reset = git(root, ["reset", "--hard", "-q", base]);
  if (!reset.ok) throw operational(`git reset failed: ${reset.stderr.trim()}`);
  const clean = git(root, ["clean", "-fdq", "-e", STATE_DIR_NAME, "--", "."]);
  if (!clean.ok) throw operational(`git clean failed: ${clean.stderr.trim()}`);
}

/** Who a commit cairn makes is by, when the repository names nobody. */
const FALLBACK_IDENTITY = {
  GIT_AUTHOR_NAME: "cairn",
  GIT_AUTHOR_EMAIL: "cairn@localhost",
  GIT_COMMITTER_NAME: "cairn",
  GIT_COMMITTER_EMAIL: "cairn@localhost",
};

/**
 * Commit exactly `paths` (added, changed or deleted) and return the new HEAD. Hooks are skipped:
 * cairn's own evaluators already judged this state. Other staged or changed paths are left as
 * they are.
 */
export function commitPaths(root: string, paths: string[], message: string): string {
  // Status paths are relative to the repository's top, which may be above the workspace root.
  const specs = paths.map((path) => `:(top,literal)${path}`);
  const add = git(root, ["add", "-A", "--", ...specs]);
  if (!add.ok) throw operational(`git add failed: ${add.stderr.trim()}`);
  const named = git(root, ["config", "user.email"]).ok;
  const commit = git(
    root,
    ["commit", "-q", "--no-verify", "-m", message, "--", ...specs],
    named ? undefined : FALLBACK_IDENTITY,
  );
  if (!commit.ok) throw operational(`git commit failed: ${commit.stderr.trim() || commit.stdout.trim()}`);
  return gitHead(root) as string;
}
