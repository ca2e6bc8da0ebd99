import { existsSync, lstatSync, realpathSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { parse as parseToml } from "smol-toml";
import { os } from "../../kernel/builtins.js";
import { operational } from "../../kernel/outcome.js";
import { readRegularFile } from "../../kernel/regular-file.js";

/** Where a workspace lives: its root (the project) and the state directory holding the database. */
export interface Workspace {
  kind: "project" | "home";
  root: string;
  stateDir: string;
  databasePath: string;
  configPath: string;
}

export const STATE_DIR_NAME = ".cairn";
export const DATABASE_FILE = "cairn.db";
export const CONFIG_FILE = "cairn.toml";

export function projectWorkspace(root: string): Workspace {
  const stateDir = join(root, STATE_DIR_NAME);
  return {
    kind: "project",
    root,
    stateDir,
    databasePath: join(stateDir, DATABASE_FILE),
    configPath: join(stateDir, CONFIG_FILE),
  };
}

export function homeWorkspace(env: NodeJS.ProcessEnv): Workspace {
  const stateDir = resolve(env.CAIRN_HOME || join(env.HOME || os().homedir(), ".config", "cairn"));
  return {
    kind: "home",
    root: stateDir,
    stateDir,
    databasePath: join(stateDir, DATABASE_FILE),
    configPath: join(stateDir, CONFIG_FILE),
  };
}

/**
 * Whether a workspace file is there. One this user may not look at is neither there nor absent:
 * taking it for absent would serve the next workspace up the tree (or none) without a word.
 */
function workspaceFileExists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EACCES" || code === "EPERM") {
      throw operational(
        `the cairn workspace in ${dirname(path)} cannot be read by this user (permission denied); nothing was done`,
        `run cairn as the user who owns ${dirname(path)}, or give this user access to it`,
      );
    }
    // A link to nothing is a workspace whose database went missing, not the absence of one:
    // serving the next workspace up the tree instead would be silent. Opening it says what it is.
    return code === "ENOENT" && lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink() === true;
  }
}

/**
 * A `.cairn/` holding the SQLite file, or a cairn.toml whose `[store]` names a shared server, or
 * any cairn.toml when CAIRN_STORE_URL names that server for every workspace.
 */
const isWorkspace = (workspace: Workspace, env: NodeJS.ProcessEnv) =>
  workspaceFileExists(workspace.databasePath) ||
  declaresSharedStore(workspace.configPath) ||
  (Boolean(env.CAIRN_STORE_URL) && workspaceFileExists(workspace.configPath));

export function declaresSharedStore(configPath: string): boolean {
  try {
    return namesStore(readRegularFile(configPath));
  } catch {
    return false;
  }
}

/**
 * A line opening the `[store]` table, or one setting a `store` key. Only the line's own blanks
 * lead: a blank line is a line start of its own, and `^\s*` ran over every following blank line
 * from every line start (36 s for a cairn.toml of 100 000 blank lines, hours at megabytes).
 */
export const STORE_TABLE = /^[^\S\n\r\u2028\u2029]*\[\s*["']?store["']?\s*[\].]/m;
export const STORE_KEY = /^[^\S\n\r\u2028\u2029]*["']?store["']?\s*[.=]/m;

/**
 * Whether a cairn.toml's text sets `store`, in any form TOML allows: the `[store]` table, an
 * inline `store = {…}`, dotted `store.url = …` keys, a quoted key. The common forms are settled by
 * a look at the lines; only a file that might set it otherwise is parsed. A file that does not
 * parse counts as naming a store when a line could: the config loader then reports the fault,
 * rather than discovery walking past it to another workspace.
 */
export function namesStore(text: string): boolean {
  if (STORE_TABLE.test(text)) return true;
  if (!STORE_KEY.test(text)) return false;
  try {
    return parseToml(text).store !== undefined;
  } catch {
    return true;
  }
}

/** The git directory a linked worktree's `.git` file points to (it may no longer exist). */
function gitDirPointedBy(directory: string): string | undefined {
  const dotGit = join(directory, ".git");
  try {
    if (!statSync(dotGit).isFile()) return undefined;
    const pointer = /^gitdir:\s*(.+)\s*$/m.exec(readRegularFile(dotGit));
    return pointer?.[1] ? resolve(directory, pointer[1].trim()) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A linked git worktree has a `.git` file pointing into the main repository's
 * `.git/worktrees/NAME`; its `commondir` leads back to the main `.git`, whose parent is the
 * main checkout. Agents working in worktrees must share the main checkout's board.
 */
export function mainCheckoutOf(directory: string): string | undefined {
  const gitDir = gitDirPointedBy(directory);
  if (!gitDir) return undefined;
  try {
    const commonDirFile = join(gitDir, "commondir");
    if (!existsSync(commonDirFile)) return undefined;
    const commonDir = readRegularFile(commonDirFile).trim();
    const mainGitDir = isAbsolute(commonDir) ? commonDir : resolve(gitDir, commonDir);
    return linksBack(gitDir, directory) ? dirname(mainGitDir) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether the repository's record of a worktree (`worktrees/NAME/gitdir`, which git writes) names
 * this directory's `.git`. The `.git` file and the `commondir` it leads to are files anyone can
 * lay in a folder (an unpacked archive, an agent's scratch directory): trusted alone, they sent
 * cairn to any other workspace of this user, a folder that is not even a repository included.
 */
function linksBack(gitDir: string, directory: string): boolean {
  const recorded = readRegularFile(join(gitDir, "gitdir")).trim();
  const dotGit = isAbsolute(recorded) ? recorded : resolve(gitDir, recorded);
  return realpathSync(dotGit) === realpathSync(join(directory, ".git"));
}

/** The git directory a `.git` file points to, when that directory no longer exists. */
function missingGitDirOf(directory: string): string | undefined {
  const gitDir = gitDirPointedBy(directory);
  return gitDir && !existsSync(gitDir) ? gitDir : undefined;
}

/**
 * A workspace found by walking up must be this user's, as git asks of a repository: a `.cairn/`
 * another user put in a shared parent (/tmp, a group folder) would otherwise serve everyone below
 * it, its cairn.toml choosing the commands, checks and OS rules their calls run, and its
 * database receiving what they write. `CAIRN_DIR` names one deliberately and is not asked.
 */
function ownWorkspace(workspace: Workspace): Workspace {
  const uid = process.getuid?.();
  if (uid === undefined) return workspace;
  const owner = statSync(workspace.stateDir).uid;
  if (owner !== uid) {
    throw operational(
      `the cairn workspace in ${workspace.stateDir} belongs to another user (uid ${owner}, this is uid ${uid}); nothing was done`,
      `if it is meant to serve you, set CAIRN_DIR=${workspace.root}; otherwise run \`cairn init\` in your own project`,
    );
  }
  return workspace;
}

/**
 * Find the workspace serving `cwd`: `CAIRN_DIR` if set; else walk up like git, following a
 * linked worktree to its main checkout; else the home workspace if it exists.
 */
export function discoverWorkspace(cwd: string, env: NodeJS.ProcessEnv): Workspace | undefined {
  if (env.CAIRN_DIR) {
    const pinned = projectWorkspace(resolve(cwd, env.CAIRN_DIR));
    return isWorkspace(pinned, env) ? pinned : undefined;
  }
  let directory = resolve(cwd);
  // The folders walked through, nearest first: in a linked worktree, each stands for the same
  // folder of the main checkout, where a workspace made in a package of a monorepo (pkg/.cairn)
  // lives; only the main checkout's top was looked at, and an agent in the worktree's pkg/ was
  // served by the home workspace, or by none.
  const walked: string[] = [];
  for (;;) {
    const here = projectWorkspace(directory);
    if (isWorkspace(here, env)) return ownWorkspace(here);
    walked.push(directory);
    const mainCheckout = mainCheckoutOf(directory);
    if (mainCheckout) {
      for (const folder of walked) {
        const shared = projectWorkspace(join(mainCheckout, relative(directory, folder)));
        if (isWorkspace(shared, env)) return ownWorkspace(shared);
      }
    } else {
      const gone = missingGitDirOf(directory);
      if (gone) {
        // Its board is the main checkout's; a workspace further up, or the home one, is not it.
        throw operational(
          `${directory} is a linked git worktree whose repository ${gone} is gone, so the workspace it shares cannot be found; nothing was done`,
          "run cairn from the main checkout, or set CAIRN_DIR to the workspace this worktree should use",
        );
      }
    }
    const parent = dirname(directory);
    if (parent === directory) break;
    directory = parent;
  }
  const home = homeWorkspace(env);
  return isWorkspace(home, env) ? home : undefined;
}

/**
 * Why a new workspace at `root` may be a mistake: it sits inside another workspace (whose agents
 * will no longer see it), or below the root of its git checkout (agents started elsewhere in the
 * repository will not find it). Each warning names the root it means.
 */
export function initWarnings(root: string, env: NodeJS.ProcessEnv = {}): string[] {
  const warnings: string[] = [];
  let enclosingWorkspace: string | undefined;
  let gitRoot: string | undefined;
  for (let directory = dirname(resolve(root)); ; directory = dirname(directory)) {
    if (!enclosingWorkspace && isWorkspace(projectWorkspace(directory), env)) enclosingWorkspace = directory;
    if (!gitRoot && existsSync(join(directory, ".git"))) gitRoot = directory;
    if (dirname(directory) === directory) break;
  }
  const ownGit = existsSync(join(root, ".git"));
  if (enclosingWorkspace) {
    warnings.push(
      `${root} is inside the workspace at ${enclosingWorkspace}: commands run here now use this new workspace, not that one`,
    );
  }
  if (gitRoot && !ownGit) {
    warnings.push(
      `${root} is below the git root ${gitRoot}: agents started elsewhere in that repository will not find this workspace (consider \`cairn init\` in ${gitRoot})`,
    );
  }
  return warnings;
}
