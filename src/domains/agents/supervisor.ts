import { isThisMachine } from "../../kernel/machine.js";
import { sameProcessAlive } from "../../kernel/processes.js";
import type { AgentRunRecord } from "../../store/store.js";

type Supervised = Pick<AgentRunRecord, "status" | "supervisorPid" | "supervisorHost" | "supervisorStart">;

/**
 * A run recorded as running whose supervising cairn process, on this machine, is gone (killed
 * outright, crashed): the run is over, though no reaper (`cairn sweep`, the daemon) has written
 * so yet. Another machine's supervisor (a shared store) is its own daemon's to judge.
 */
export function supervisorGone(run: Supervised): boolean {
  if (run.status !== "running") return false;
  if (run.supervisorHost !== null && !isThisMachine(run.supervisorHost)) return false;
  return !sameProcessAlive(run.supervisorPid, run.supervisorStart);
}

/**
 * A run as it stands: one whose supervisor is gone reads as interrupted, as the reaper will record
 * it, and never as still running (which status counted as ok for as long as no one swept).
 */
export function asItStands<T extends AgentRunRecord>(run: T): T {
  if (!supervisorGone(run)) return run;
  return {
    ...run,
    status: "interrupted",
    reason: `its supervisor (pid ${run.supervisorPid}) died; \`cairn sweep\` records it`,
  };
}
