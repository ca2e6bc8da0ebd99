import { statSync } from "node:fs";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { runChild } from "../../kernel/child.js";
import { forcedGitEnv } from "../../kernel/git.js";
import { isInside, realPathOf } from "../../kernel/inside.js";
import { familyOf } from "./family.js";
import { GIT_VALUE_OPTIONS, gitSubcommand } from "./git-args.js";

/**
 * git runs programs its configuration names (core.fsmonitor on `git status`, hooks on `git
 * commit`, a textconv driver on `git diff`, a `!` alias), and a repository's own configuration
 * and hooks are files whoever can edit the workspace writes. An OS run of git for a model
 * therefore (1) starts git with hooks, fsmonitor, editors and pagers turned off by variables
 * that outrank every configuration file (kernel/git.ts), submodules kept out too, and (2) is
 * refused when the repository's configuration (its local and worktree scopes, includes
 * followed) names a program anyway. The operator's own configuration (global, system) is theirs
 * and is left as it is.
 */

/** Whether the program run is git (by the name given or the file PATH resolves it to). */
export function isGit(bin: string, realName: string | undefined): boolean {
  return [bin, realName].some((name) => name !== undefined && (name === "git" || familyOf(name) === "git"));
}

/** For a model's run, beyond the programs every git cairn starts has turned off (kernel/git.ts). */
const SUBMODULES_OUT: readonly (readonly [string, string])[] = [
  // A submodule is a repository of its own whose configuration is not looked at: git is kept out.
  ["diff.ignoreSubmodules", "all"],
  ["submodule.recurse", "false"],
  ["fetch.recurseSubmodules", "false"],
];

/**
 * The subcommands that reach another repository only to read from it. Every other one is run with
 * git's local transport turned off (`protocol.file.allow=never`): a push to a repository on this
 * machine (a path, a `file://` URL, or a remote or alias naming one) runs that repository's
 * receive-pack with its own configuration and hooks, which git starts without the settings
 * cairn forces, and writes its refs and objects, out of the workspace too (see `gitWrites`).
 */
const READS_FROM_REMOTE = new Set(["fetch", "pull", "clone", "ls-remote", "remote"]);
const LOCAL_TRANSPORT_OFF = ["protocol.file.allow", "never"] as const;

/** The variables an OS run of git with `args` is started with. */
export function gitEnv(env: NodeJS.ProcessEnv, args: readonly string[]): Record<string, string> {
  const { sub } = gitSubcommand(args);
  const reads = sub !== undefined && READS_FROM_REMOTE.has(sub);
  return forcedGitEnv(env, reads ? SUBMODULES_OUT : [...SUBMODULES_OUT, LOCAL_TRANSPORT_OFF]);
}

/** The last part of a key that names a program git runs (`diff.<driver>.textconv`, `gpg.program`). */
const RUNS_PROGRAM =
  /\.(command|cmd|program|driver|textconv|clean|smudge|process|helper|editor|pager|sshcommand|askpass|gitproxy|tunnel|uploadpack|receivepack|external|difffilter|sendmailcmd|alternaterefscommand|defaultkeycommand|fsmonitor|hookspath)$/;

/** Why `key = value` from the repository's configuration may run a program, or nothing. */
function programKey(key: string, value: string, args: readonly string[]): string | undefined {
  const lower = key.toLowerCase();
  if (lower.startsWith("alias.")) {
    const name = key.slice("alias.".length);
    // A `!` alias runs a shell; one named on the command line may stand for a denied command.
    if (value.trimStart().startsWith("!") || args.includes(name)) return key;
    return undefined;
  }
  if (lower.startsWith("pager.") || lower === "sequence.editor") return key;
  if (/^(browser|man|difftool|mergetool)\..*\.path$/.test(lower)) return key;
  if (lower.startsWith("submodule.") && lower.endsWith(".update") && value.trimStart().startsWith("!"))
    return key;
  if (/^protocol\.(.*\.)?allow$/.test(lower)) return key;
  if (lower === "core.fsmonitor" || lower === "core.hookspath") return undefined; // forced off
  return RUNS_PROGRAM.test(lower) ? key : undefined;
}

/**
 * The leading options that choose the repository (`-C dir`, `--git-dir=…`, `--work-tree=…`,
 * `--bare`), so its configuration is the one read; every other option is left out of the look.
 */
function repositoryOptions(args: readonly string[]): string[] {
  const out: string[] = [];
  for (let at = 0; at < args.length; at++) {
    const arg = args[at] as string;
    if (!arg.startsWith("-")) break;
    if (arg === "-C" || arg === "--git-dir" || arg === "--work-tree" || arg === "--namespace") {
      const value = args[at + 1];
      if (value === undefined) break;
      out.push(arg, value);
      at++;
    } else if (/^--(git-dir|work-tree|namespace)=/.test(arg) || arg === "--bare") out.push(arg);
    else if (arg.startsWith("-C") && arg.length > 2) out.push("-C", arg.slice(2));
    // Another option's value (`--super-prefix x/`) is no subcommand: the options go on past it.
    else if (GIT_VALUE_OPTIONS.has(arg)) at++;
  }
  return out;
}

/**
 * The leading option that points git at a repository or folder out of the workspace (`-C ~`,
 * `--git-dir=../other/.git`), if any. git then reads and writes there: `git -C ~ init`, a fetch
 * and `git -C ~ checkout FETCH_HEAD -- .profile` put an agent's file in the user's home, and a
 * repository elsewhere takes its objects and refs. `-C` options compose, as in git; `--git-dir`
 * is taken from the folder they reach.
 */
export function repositoryOutside(args: readonly string[], workspace: string): string | undefined {
  const root = realPathOf(workspace);
  const options = repositoryOptions(args);
  let dir = workspace;
  for (let at = 0; at < options.length; at++) {
    const option = options[at] as string;
    const value = option.startsWith("--git-dir=") ? option.slice("--git-dir=".length) : options[at + 1];
    if (option === "-C") {
      dir = resolve(dir, value as string);
      at++;
      if (!isInside(root, realPathOf(dir))) return `-C ${value}`;
    } else if (option === "--git-dir" || option.startsWith("--git-dir=")) {
      if (option === "--git-dir") at++;
      if (!isInside(root, realPathOf(resolve(dir, value as string)))) return `--git-dir ${value}`;
    } else if (option === "--work-tree" || option === "--namespace") at++;
  }
  return undefined;
}

/** The folder git runs in: the workspace, then each leading `-C` in turn. */
function commandDir(args: readonly string[], workspace: string): string {
  const options = repositoryOptions(args);
  let dir = workspace;
  for (let at = 0; at < options.length; at++) {
    if (options[at] === "-C") dir = resolve(dir, options[++at] as string);
    else if (!(options[at] as string).includes("=") && options[at] !== "--bare") at++;
  }
  return dir;
}

/** A path's name as a case-insensitive file system (macOS, Windows) takes it: `.GIT.` is `.git`. */
const isDotGit = (name: string) => name.toLowerCase().replace(/[. ]+$/, "") === ".git";

/**
 * Where `git mv` would put a file out of the work tree git checks: it renames the file first and
 * only then finds the path invalid for the index. So `git mv x .git` puts x in `.git/x`, `git mv
 * x sub/.git` makes a `.git` file (a `gitdir:` link git follows, to a repository anywhere), and a
 * destination past a tracked symbolic link (`git mv x lnk/hooks/pre-commit`, lnk → .git, or lnk
 * → ~) writes a hook the user's own git runs, or a file out of the workspace. Each destination
 * is judged by its real path.
 */
export function moveOutside(args: readonly string[], workspace: string): string | undefined {
  const { sub, rest } = gitSubcommand(args);
  if (sub !== "mv") return undefined;
  const dashes = rest.indexOf("--");
  const operands = [
    ...(dashes < 0 ? rest : rest.slice(0, dashes)).filter((arg) => !arg.startsWith("-")),
    ...(dashes < 0 ? [] : rest.slice(dashes + 1)),
  ];
  if (operands.length < 2) return undefined;
  const root = realPathOf(workspace);
  const dir = commandDir(args, workspace);
  const destination = resolve(dir, operands[operands.length - 1] as string);
  const sources = operands.slice(0, -1);
  let intoFolder = sources.length > 1;
  try {
    intoFolder ||= statSync(destination).isDirectory();
  } catch {
    // Not there yet: the file's new name.
  }
  const targets = intoFolder ? sources.map((source) => join(destination, basename(source))) : [destination];
  for (const target of targets) {
    const real = join(realPathOf(dirname(target)), basename(target));
    if (!isInside(root, real) || relative(root, real).split(sep).some(isDotGit))
      return `mv … ${operands[operands.length - 1]}`;
  }
  return undefined;
}

/** Most of a git command's output read: a configuration past it is refused, not parsed. */
const OUTPUT_CAP = 4 * 1024 * 1024;

/**
 * What git prints for `command` in the repository the caller's `args` name (their repository
 * options first), read up to OUTPUT_CAP; `over` when it printed more.
 */
async function gitOutput(
  gitPath: string,
  args: readonly string[],
  command: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; signal?: AbortSignal },
): Promise<{ exitCode: number | null; stdout: string; over: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  const run = await runChild({
    argv: [gitPath, ...repositoryOptions(args), ...command],
    cwd: options.cwd,
    env: options.env,
    timeoutMs: 10_000,
    killEscaped: true,
    signal: options.signal,
    onOutput: (chunk, stream) => {
      if (stream !== "stdout" || size > OUTPUT_CAP) return;
      chunks.push(chunk);
      size += chunk.length;
    },
  });
  return { exitCode: run.exitCode, stdout: Buffer.concat(chunks).toString("utf8"), over: size > OUTPUT_CAP };
}

/**
 * The first key of the repository's own configuration that names a program, or a reason the
 * configuration could not be read; nothing when it names none.
 */
export async function gitConfigProblem(
  gitPath: string,
  args: readonly string[],
  options: {
    cwd: string;
    env: NodeJS.ProcessEnv;
    signal?: AbortSignal;
    /** Filled with every alias git would expand, from every scope (the later scope wins, as in git). */
    aliases?: Map<string, string>;
  },
): Promise<string | undefined> {
  const run = await gitOutput(
    gitPath,
    args,
    ["config", "--list", "--show-scope", "--includes", "-z"],
    options,
  );
  if (run.exitCode !== 0) return "its configuration could not be read";
  if (run.over) return "its configuration is over 4 MiB";
  const fields = run.stdout.split("\0");
  let worktreeSet = false;
  for (let at = 0; at + 1 < fields.length; at += 2) {
    const scope = fields[at] as string;
    const entry = fields[at + 1] as string;
    const newline = entry.indexOf("\n");
    const key = newline < 0 ? entry : entry.slice(0, newline);
    const value = newline < 0 ? "" : entry.slice(newline + 1);
    if (key.toLowerCase().startsWith("alias.")) options.aliases?.set(key.slice("alias.".length), value);
    if (scope !== "local" && scope !== "worktree") continue;
    if (key.toLowerCase() === "core.worktree") worktreeSet = true;
    const found = programKey(key, value, args);
    if (found)
      return `its configuration sets \`${found.slice(0, 120)}\`, which names a program git would run`;
  }
  return worktreeSet ? workTreeProblem(gitPath, args, options) : undefined;
}

/**
 * The work tree git checks files out into, resets and stashes, when the configuration sets it
 * (`core.worktree`): one out of the workspace (`git config core.worktree ~`, then `git checkout`)
 * puts the repository's files there (a ~/.bashrc), as `--work-tree` on the command line would.
 * A submodule's own repository sets it to the submodule's folder, inside the workspace.
 */
async function workTreeProblem(
  gitPath: string,
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; signal?: AbortSignal },
): Promise<string | undefined> {
  const run = await gitOutput(gitPath, args, ["rev-parse", "--show-toplevel"], options);
  const top = run.stdout.replace(/\n$/, "");
  if (run.exitCode === 0 && top !== "" && isInside(realPathOf(options.cwd), realPathOf(top)))
    return undefined;
  return "its configuration sets `core.worktree` to a folder out of the workspace, where git would write the work tree's files";
}

/**
 * The command lines git runs in place of `args` by expanding aliases (`git p` with `alias.p =
 * push` runs `git push`), each expansion in turn; a `!` alias, which runs the operator's own shell
 * line, ends them. What the machine denies or needs a person for is judged on each, since the
 * lists name commands and an alias of the operator's global configuration is another name for one.
 */
export function aliasExpansions(args: readonly string[], aliases: ReadonlyMap<string, string>): string[][] {
  const out: string[][] = [];
  const seen = new Set<string>();
  let current = [...args];
  for (;;) {
    const { sub, rest } = gitSubcommand(current);
    const value = sub === undefined ? undefined : aliases.get(sub);
    if (sub === undefined || value === undefined || value.trimStart().startsWith("!") || seen.has(sub)) break;
    seen.add(sub);
    const global = current.slice(0, current.length - rest.length - 1);
    current = [...global, ...value.trim().split(/\s+/).filter(Boolean), ...rest];
    out.push(current);
  }
  return out;
}
