import { runChild } from "./child.js";
import { childEnv } from "./child-env.js";
import { operational } from "./outcome.js";

/**
 * git runs programs its configuration names (core.fsmonitor on `git status`, hooks on `git
 * commit` or `git worktree add`), and a repository's own configuration and hooks are files
 * whoever can edit the workspace writes. Every git cairn starts (its own bookkeeping for goals and
 * evidence, and an OS run of git for a model) is started with these turned off by variables that
 * outrank every configuration file, as `-c` settings would. Not every such program: the clean
 * and smudge filters `.gitattributes` names (Git LFS among them) still run when cairn's own git
 * adds or restores files; an OS run of git is refused when the repository's configuration names
 * one (domains/os/git.ts).
 */
const PROGRAMS_OFF: readonly (readonly [string, string])[] = [
  ["core.fsmonitor", "false"],
  ["protocol.ext.allow", "never"],
  // A misspelt command is never run as the one git guesses (`git pusj` as a denied `git push`).
  ["help.autocorrect", "0"],
];

/**
 * Hooks too (`post-checkout` on a worktree cairn adds, `post-commit` on a kept attempt, which
 * `--no-verify` does not skip), unless a person asked for them (`attempt decide --run-hooks`).
 */
const HOOKS_OFF = ["core.hooksPath", "/dev/null"] as const;

/**
 * What git reads a commit as: its own objects. A replace ref (`git replace BASE FORGED`, a ref
 * whoever can edit the workspace makes) or a graft (`.git/info/grafts`) has git show another
 * commit's tree, or other parents, in place of the one named: the base cairn measured and
 * reverted to was the forged one, and a keep's commit took its frozen files from it. The graft
 * file is named where none can be (a file below `/dev/null`), so git reads no graft and, unlike
 * with an empty file, prints no deprecation hint.
 */
const OWN_OBJECTS = { GIT_NO_REPLACE_OBJECTS: "1", GIT_GRAFT_FILE: "/dev/null/grafts" } as const;

/**
 * The variables git is started with: the programs turned off (hooks too, unless `hooks`), then
 * `settings`, after any settings the environment already holds; replace refs and grafts ignored.
 */
export function forcedGitEnv(
  env: NodeJS.ProcessEnv,
  settings: readonly (readonly [string, string])[] = [],
  hooks = false,
): Record<string, string> {
  const forced = [...PROGRAMS_OFF, ...(hooks ? [] : [HOOKS_OFF]), ...settings];
  const base = Number.parseInt(env.GIT_CONFIG_COUNT ?? "0", 10);
  const start = Number.isInteger(base) && base > 0 ? base : 0;
  const out: Record<string, string> = {
    GIT_CONFIG_COUNT: String(start + forced.length),
    GIT_PAGER: "cat",
    GIT_EDITOR: "true",
    GIT_SEQUENCE_EDITOR: "true",
    GIT_TERMINAL_PROMPT: "0",
    ...OWN_OBJECTS,
  };
  forced.forEach(([key, value], index) => {
    out[`GIT_CONFIG_KEY_${start + index}`] = key;
    out[`GIT_CONFIG_VALUE_${start + index}`] = value;
  });
  return out;
}

/** git on a small repository answers in milliseconds; a minute means it is stuck on a lock. */
const GIT_TIMEOUT_MS = 60_000;

export interface GitRun {
  ok: boolean;
  stdout: string;
  stderr: string;
}

/** How one git is run: variables added, the repository's hooks allowed, a cancel that stops it. */
export interface GitOptions {
  env?: Record<string, string>;
  hooks?: boolean;
  signal?: AbortSignal;
  /** An index file of cairn's own (GIT_INDEX_FILE), in place of the checkout's. */
  index?: string;
  /** Configuration that outranks every file's and the caller's (see `forcedGitEnv`). */
  settings?: readonly (readonly [string, string])[];
}

/**
 * Variables that point git at another repository, work tree, index or object store than the one
 * holding `dir`. cairn's git looks at the checkout it names: with `GIT_WORK_TREE` at a clean
 * copy, a builder had the drift check and the measured tree read the copy while the
 * evaluators ran in its edited checkout.
 */
const LOCATING = [
  "GIT_DIR",
  "GIT_WORK_TREE",
  "GIT_INDEX_FILE",
  "GIT_OBJECT_DIRECTORY",
  "GIT_ALTERNATE_OBJECT_DIRECTORIES",
  "GIT_COMMON_DIR",
  "GIT_NAMESPACE",
];

/**
 * Run git through the supervised child runner: argv, its own group, no cairn credential, no
 * fsmonitor, the repository's hooks only when `hooks`, and the repository found from `dir`.
 */
export async function git(dir: string, args: string[], options: GitOptions = {}): Promise<GitRun> {
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  const env = childEnv(process.env, {
    ...forcedGitEnv(process.env, options.settings, options.hooks),
    ...options.env,
  });
  for (const name of LOCATING) delete env[name];
  if (options.index) env.GIT_INDEX_FILE = options.index;
  const result = await runChild({
    argv: ["git", ...args],
    cwd: dir,
    env,
    timeoutMs: GIT_TIMEOUT_MS,
    signal: options.signal,
    onOutput: (chunk, stream) => (stream === "stdout" ? out : err).push(chunk),
    // A keep's commit hooks run for as long as they like: a cairn killed mid-commit must not
    // leave git to commit later, for an attempt that records no keep, so the sweep can find it.
    marked: true,
  });
  if (result.error?.startsWith("command not found"))
    throw operational("git could not run: it is not installed", "install git");
  const stderr = Buffer.concat(err).toString("utf8");
  return {
    ok: result.exitCode === 0,
    stdout: Buffer.concat(out).toString("utf8"),
    stderr: result.error ? `${stderr}\n${result.error}`.trim() : stderr,
  };
}

/**
 * The commit checked out at `dir`, or null outside a git checkout, before a first commit, or on a
 * machine without git (evidence is still taken there; it names no commit).
 */
export async function gitHead(dir: string): Promise<string | null> {
  const head = await git(dir, ["rev-parse", "--verify", "-q", "HEAD"]).catch(() => undefined);
  return head?.ok ? head.stdout.trim() : null;
}
