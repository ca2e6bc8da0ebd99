import { readdirSync, readFileSync } from "node:fs";
import type { Store } from "../../store/store.js";

export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Members of a process group, found in /proc (Linux); empty where /proc is not there. */
function groupMembers(pgid: number): number[] {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return [];
  }
  const members: number[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // Fields after the parenthesised command name: state, ppid, pgrp, ...
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[2]) === pgid) members.push(Number(entry));
    } catch {
      // Gone while we looked.
    }
  }
  return members;
}

const carriesRun = (pid: number, runId: string) => {
  try {
    return readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").includes(`AGENT_RUN_ID=${runId}`);
  } catch {
    return false;
  }
};

/**
 * Kill what is left of an orphaned run's process group, but only after checking that a process
 * in it carries that run's id in its environment: a recycled pid is never someone else's kill.
 */
export function killOrphanGroup(pgid: number, runId: string): boolean {
  const members = groupMembers(pgid);
  if (!members.some((pid) => carriesRun(pid, runId))) return false;
  try {
    process.kill(-pgid, "SIGKILL");
    return true;
  } catch {
    return false;
  }
}

/**
 * Runs recorded as running whose supervising cairn process is gone (a daemon killed with
 * SIGKILL, a crashed server): their processes are killed and they are marked interrupted.
 */
export async function reapOrphans(store: Store, actorId: string, now: () => string): Promise<string[]> {
  const running = await store.read((tx) => tx.agentRuns.running());
  const orphans = running.filter(
    (run) => run.supervisorPid !== process.pid && !processAlive(run.supervisorPid),
  );
  const reaped: string[] = [];
  for (const run of orphans) {
    const killed = run.pid !== null && killOrphanGroup(run.pid, run.id);
    const at = now();
    await store.write(async (tx) => {
      await tx.agentRuns.finish(run.id, {
        status: "interrupted",
        exitCode: null,
        finishedAt: at,
        durationMs: Date.parse(at) - Date.parse(run.startedAt),
        stderrTail: run.stderrTail,
        reason: `its supervisor (pid ${run.supervisorPid}) died${killed ? "; its leftover processes were killed" : ""}`,
      });
      await tx.journal.append({
        at,
        actor: actorId,
        action: "agent.run.interrupted",
        subject: run.id,
        data: { agent: run.agent, supervisor_pid: run.supervisorPid, killed },
      });
    });
    reaped.push(run.id);
  }
  return reaped;
}
