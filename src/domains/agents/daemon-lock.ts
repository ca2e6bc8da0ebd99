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
    return start !== null || runsCairnDaemon(pid) ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether a process named by a lock without a start (a file from before starts were kept) is a
 * cairn daemon, by its command line. Any live pid passed for the holder: `1` written into the
 * file kept every daemon from starting, and `status` said one ran. Where command lines cannot be
 * read, the pid is trusted as before.
 */
function runsCairnDaemon(pid: number): boolean {
  const words = commandLineOf(pid);
  if (words === null) return processStart(pid) === null;
  return words.includes("daemon") && words.some((word) => word.includes("cairn"));
}
