import { join } from "node:path";
import { ownProcessStart, sameProcessAlive } from "../../kernel/processes.js";
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
    return Number.isInteger(pid) && pid > 0 && sameProcessAlive(pid, start) ? pid : undefined;
  } catch {
    return undefined;
  }
}
