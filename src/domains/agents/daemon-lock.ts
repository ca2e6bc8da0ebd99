import { join } from "node:path";
import { commandLineOf, ownProcessStart, processStart, sameProcessAlive } from "../../kernel/processes.js";
import { readRegularFile } from "../../kernel/regular-file.js";
import type { Workspace } from "../workspace/discover.js";

// Who holds the daemon lock and what its last beat said, apart from the loop itself: `status`
// reads them without loading the scheduler, runner and child-process code behind the loop.

export const DAEMON_META_KEY = "agents.daemon";

export const lockPath = (workspace: Workspace) => join(workspace.stateDir, "daemon.pid");

export interface DaemonBeat {
  pid: number;
  started_at: string;
  beat_at: string;
  next_event_at: string | null;
  supervising: number;
}

/**
 * What the lock file holds: the daemon's pid and its start. A daemon killed outright leaves its
 * file behind, and its pid may since belong to any other process: the start tells them apart.
 */
export const lockContent = () => `${process.pid} ${ownProcessStart() ?? ""}\n`;

/** A lock file's holder: its pid, and its start (none in a file from before starts were kept). */
export function lockHolder(content: string): { pid: number; start: string | null } {
  const [pid, start] = content.trim().split(" ");
  return { pid: Number(pid), start: start || null };
}

/**
 * The pid holding the workspace's daemon lock, if that process is alive: the very process that
 * took it, when the file names its start.
 */
export const daemonPid = (workspace: Workspace): number | undefined => livePidIn(lockPath(workspace));

/** The live process a lock file names, if any. */
export function livePidIn(path: string): number | undefined {
  try {
    // Only a regular file: a FIFO here would hold `status` (and every server asking) in its read.
    const { pid, start } = lockHolder(readRegularFile(path));
    if (!Number.isInteger(pid) || pid <= 0 || !sameProcessAlive(pid, start)) return undefined;
    return runsCairnDaemon(pid, start !== null) ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether the live process a lock names is a cairn daemon, by its command line. Any writer of the
 * folder can name any live process, with its start too (both are in /proc): `1`, or its own
 * `sleep`, kept every daemon from starting while `status` said one ran. Where command lines cannot
 * be read, a lock naming its holder's start is trusted, and one without (a file from before
 * starts were kept) only where starts cannot be read either.
 */
function runsCairnDaemon(pid: number, startNamed: boolean): boolean {
  // This very process: a daemon loop it runs (one in a test's process, too) took the lock.
  if (pid === process.pid) return true;
  const words = commandLineOf(pid);
  if (words === null) return startNamed || processStart(pid) === null;
  return words.includes("daemon") && words.some((word) => word.includes("cairn"));
}
