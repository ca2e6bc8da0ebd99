import { realpathSync, statSync } from "node:fs";
import { delimiter, dirname, isAbsolute, join, relative, resolve } from "node:path";
import { z } from "zod";
import { type FolderCopy, startFolderCopy } from "../../kernel/folder-copy.js";
import { isInside, realPathOf } from "../../kernel/inside.js";
import { operational, refuse, usageError } from "../../kernel/outcome.js";
import { DIGEST_BYTES_LIMIT, DIGEST_FILE_LIMIT, type Digest, digestSkill } from "../skills/files.js";
import { homeWorkspace, type Workspace } from "../workspace/discover.js";
import { machineConfig } from "../workspace/machine.js";
import { type LoadedAgent, MANIFEST_FILE } from "./manifest.js";

/**
 * A project's `.cairn/agents/` is a folder any agent with a write tool reaches. A manifest put
 * there naming a `[cairn] identity` had the owner's daemon (or the owner's own `agents run`) mint
 * that identity's child to run the command the manifest's writer chose: a worker could act on the
 * board as an operator. So a project's manifest acts as the identity it names only once the
 * machine's operator has enabled it, in `[agents.identities]` of CAIRN_HOME/cairn.toml (which no
 * cairn tool writes and no repository ships), at the digest of the agent's folder they reviewed
 * (`cairn agents digest NAME` prints the line). Any change to the folder needs enabling again.
 * Manifests in CAIRN_HOME and dotagent's folder are the machine's own and keep their identity.
 *
 * The digest covers the agent's folder (the manifest, and whatever script beside it the command
 * runs) as the skill digest does; what the command reads from elsewhere in the project is the
 * project's, as it is when the run starts.
 */
const AgentsMachineConfig = z
  .object({
    identities: z.record(z.string(), z.union([z.string(), z.array(z.string()).max(64)])).default({}),
  })
  .strict();

/** The project agents the machine's operator enabled to act as their identity, name → digests. */
export function enabledIdentities(env: NodeJS.ProcessEnv): Record<string, string[]> {
  const machine = machineConfig(env);
  const parsed = AgentsMachineConfig.safeParse(machine.config.agents ?? {});
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `agents.${i.path.join(".")}: ${i.message}`).join("; ");
    throw usageError(`${machine.path}: ${issues}`, "fix the [agents] section");
  }
  // Without a prototype: an agent named `constructor` is not enabled by what objects inherit.
  const enabled = Object.create(null) as Record<string, string[]>;
  for (const [name, digests] of Object.entries(parsed.data.identities)) {
    enabled[name] = typeof digests === "string" ? [digests] : digests;
  }
  return enabled;
}

/** Whether `path` is a file with another name (a hard link) somewhere; unreadable counts as one. */
function hardLinked(path: string): boolean {
  try {
    return statSync(path).nlink > 1;
  } catch {
    return true;
  }
}

/** Whether this manifest's identity waits on the machine's enabling: a project's, naming one. */
export function needsEnabling(agent: LoadedAgent, workspace: Workspace, env: NodeJS.ProcessEnv): boolean {
  if (!agent.manifest.cairn.identity || workspace.kind !== "project") return false;
  const projectRoot = resolve(join(workspace.stateDir, "agents"));
  const machine = homeWorkspace(env).stateDir;
  // A project whose agents folder is the machine's own by name (CAIRN_HOME inside it) is the machine's.
  if (projectRoot === resolve(join(machine, "agents"))) return false;
  if (dirname(agent.dir) === projectRoot) return true;
  // Found in the machine's folders, yet lying in the project (CAIRN_HOME/agents/x a link to a folder
  // the repository keeps, dotagent's folder kept in the project): any writer of the project edits
  // it, and it acted as its identity with nobody's review. What lies in CAIRN_HOME is the machine's.
  // So does a manifest linked from a machine's folder to a file the project keeps: the identity it
  // names, and the command, are then any writer's. A hard link shows no path to judge: a manifest
  // with a second one may be a file of the project too, and is never taken for the machine's own.
  const inProject = (path: string) => {
    const real = realPathOf(path);
    return isInside(realPathOf(workspace.root), real) && !isInside(realPathOf(machine), real);
  };
  return inProject(agent.dir) || inProject(agent.path) || hardLinked(agent.path);
}

/**
 * The agent folder's digest, the one the machine's enabling names. Links out of the folder into
 * the project (which agents write) leave it uncovered, as they do a skill's.
 */
export function agentDigest(
  agent: LoadedAgent,
  workspace: Workspace,
  /** Where to write the bytes hashed: the copy an enabled run starts from (kernel/folder-copy.ts). */
  copy?: FolderCopy,
): Digest & { dir: string } {
  const dir = realpathSync.native(agent.dir);
  const digest = digestSkill(dir, "run", workspace.kind === "project" ? [workspace.root] : [], copy);
  // A file the digest could not read (`ln ../evil.py json.py`) is in the folder for an
  // interpreter to load, though not in a run's copy: the folder is not what was reviewed, and
  // `agents digest` says so as a run does.
  return { dir, ...digest, truncated: digest.truncated || digest.unread.length > 0 };
}

/** The line `[agents.identities]` takes for this agent at this digest. */
export const enableLine = (name: string, digest: string) =>
  `${JSON.stringify(name)} = ${JSON.stringify(digest)}`;

const refuseIdentity = (reason: string, next: string) => refuse("identity", reason, next);

/**
 * Refuses unless the manifest may act as the identity it names: a project manifest only as the
 * machine's operator enabled it, at the digest its folder has now. Returns whether it was checked.
 */
export function checkIdentityEnabled(
  agent: LoadedAgent,
  workspace: Workspace,
  env: NodeJS.ProcessEnv,
  copy?: FolderCopy,
): boolean {
  if (!needsEnabling(agent, workspace, env)) return false;
  const identity = JSON.stringify(agent.manifest.cairn.identity);
  const approved = enabledIdentities(env)[agent.name] ?? [];
  const howToEnable = `the operator reviews ${agent.dir} and adds the line \`cairn agents digest ${agent.name}\` prints under [agents.identities] in the machine's cairn.toml (CAIRN_HOME)`;
  if (approved.length === 0) {
    throw refuseIdentity(
      `this machine's configuration (CAIRN_HOME/cairn.toml) does not enable the project's agent ${agent.name} to act as ${identity}`,
      howToEnable,
    );
  }
  let digest: ReturnType<typeof agentDigest>;
  try {
    digest = agentDigest(agent, workspace, copy);
  } catch (error) {
    throw refuseIdentity(`${agent.dir} cannot be read: ${(error as Error).message}`, howToEnable);
  }
  if (digest.truncated) {
    throw refuseIdentity(
      `${agent.dir} holds files its digest does not cover (over ${DIGEST_FILE_LIMIT} files, ${DIGEST_BYTES_LIMIT / 1024 / 1024} MiB, folders nested too deep, a file it cannot read or with a second hard link${digest.unread.length > 0 ? `: ${JSON.stringify(digest.unread[0]?.slice(0, 80))}` : ""}, or a link into the project or to a folder the digest passes over): it does not act as ${identity}`,
      "keep what the agent reads elsewhere, out of the project; then the operator enables it again",
    );
  }
  // The manifest this run was parsed from must be the one hashed: a file rewritten in between
  // (its stamp kept) would otherwise run one manifest under another's enabling.
  if (digest.files.find((file) => file.path === MANIFEST_FILE)?.sha256 !== agent.hash) {
    throw refuseIdentity(
      `${agent.path} is not the file this run read (changed meanwhile, or a link)`,
      "run it again; a manifest that is a link is never enabled",
    );
  }
  if (!approved.includes(digest.digest)) {
    throw refuseIdentity(
      `the project's agent ${agent.name} changed since the operator enabled it to act as ${identity} (now ${digest.digest.slice(0, 19)}…)`,
      `the operator reviews the change and updates [agents.identities] with \`cairn agents digest ${agent.name}\``,
    );
  }
  return true;
}

/** Where an enabled run starts: a copy of the bytes its enabling was checked over. */
export interface EnabledRun {
  /** The copy's real path: the run's AGENT_HOME. */
  dir: string;
  cwd: string;
  argv: string[];
  /** The manifest's `[env] extra`, its paths into the agent's folder pointed at the copy. */
  extra: Record<string, string>;
  remove(): void;
}

const COPY_PREFIX = "cairn-agent-run-";

/**
 * For a project's agent acting as its identity: check the enabling while copying what is hashed
 * into a private folder in CAIRN_HOME (kernel/folder-copy.ts), and point the run there. Checking the
 * folder and then running it by path left a window between the two, in which whoever can write
 * the folder, renaming a script in a loop, had a script nobody enabled run as the identity (4 of
 * 30 runs). The copy also holds no `__pycache__`, which the digest leaves out: a compiled module
 * planted there is not loaded, not even by a `python3 -E` that ignores PYTHONPYCACHEPREFIX.
 *
 * The working folder, and the arguments and `[env] extra` paths inside the agent's folder, are
 * pointed at the copy; what the command reads from elsewhere in the project is read where it is.
 */
export function startEnabledRun(
  agent: LoadedAgent,
  workspace: Workspace,
  env: NodeJS.ProcessEnv,
  cwd: string,
  argv: readonly string[],
): EnabledRun | undefined {
  if (!needsEnabling(agent, workspace, env)) return undefined;
  const parent = join(homeWorkspace(env).stateDir, "agent-runs");
  let realDir: string;
  let copy: FolderCopy;
  try {
    realDir = realpathSync.native(agent.dir);
    copy = startFolderCopy(realDir, parent, COPY_PREFIX);
  } catch (error) {
    throw operational(`cannot make the run's copy of ${agent.dir} in ${parent}: ${(error as Error).message}`);
  }
  try {
    checkIdentityEnabled(agent, workspace, env, copy);
  } catch (error) {
    copy.remove();
    throw error;
  }
  const intoCopy = (path: string): string => {
    const folder = [resolve(agent.dir), realDir].find((candidate) => isInside(candidate, path));
    return folder === undefined ? path : join(copy.dir, relative(folder, path));
  };
  // Working outside its folder (in the project's root, say), the run names its own files by paths
  // relative to there (`.cairn/agents/x/run.sh`): those lead to the copy too. Left to the folder,
  // a worker renaming the script in a loop had its own bytes run as the identity (3 of 40 runs).
  const workingInside = intoCopy(cwd) !== cwd;
  const fromCwd = (arg: string): string => {
    if (workingInside) return arg;
    const path = resolve(cwd, arg);
    const copied = intoCopy(path);
    return copied === path ? arg : copied;
  };
  const intoRun = (arg: string): string => (isAbsolute(arg) ? intoCopy(arg) : fromCwd(arg));
  // A variable may name a folder of the agent's (`PYTHONPATH = "<its folder>/lib"`), alone or in
  // a list: read there, the modules a worker swaps in would run as the identity.
  const extra = Object.fromEntries(
    Object.entries(agent.manifest.env.extra).map(([name, value]) => [
      name,
      value
        .split(delimiter)
        .map((part) => (part === "" ? part : intoRun(part)))
        .join(delimiter),
    ]),
  );
  return {
    dir: copy.dir,
    cwd: intoCopy(cwd),
    argv: argv.map(intoRun),
    extra,
    remove: copy.remove,
  };
}
