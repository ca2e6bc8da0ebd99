import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Workspace } from "../workspace/discover.js";
import { processAlive } from "./orphans.js";

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

/** The pid holding the workspace's daemon lock, if that process is alive. */
export function daemonPid(workspace: Workspace): number | undefined {
  try {
    const pid = Number(readFileSync(lockPath(workspace), "utf8").trim());
    return Number.isInteger(pid) && pid > 0 && processAlive(pid) ? pid : undefined;
  } catch {
    return undefined;
  }
}
