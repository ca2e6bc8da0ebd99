import { readdirSync, readFileSync, realpathSync } from "node:fs";
import { hostname } from "node:os";
import type { Store } from "../../store/store.js";
import type { Workspace } from "../workspace/discover.js";

/** The machine a supervisor records for its runs: only here does its pid mean anything. */
export const supervisorHost = (): string => hostname();

export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

interface ProcessEntry {
  pid: number;
  pgrp: number;
}

/** Every process in /proc with its process group (Linux); empty where /proc is not there. */
function processTable(): ProcessEntry[] {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return [];
  }
  const table: ProcessEntry[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // Fields after the parenthesised command name: state, ppid, pgrp, ...
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      table.push({ pid: Number(entry), pgrp: Number(fields[2]) });
    } catch {
      // Gone while we looked.
    }
  }
  return table;
}

/**
 * What a run's processes carry in their environment that names the run: its id, and its
 * workspace, since run ids repeat from one workspace to the next. The runner injects these last,
 * over the manifest's own variables, and the reaper matches them.
 */
export function runMarks(workspace: Workspace, runId: string): Record<string, string> {
  // The real path: a daemon started through a symlink still knows a server's runs as its own.
  const real = (path: string) => {
    try {
      return realpathSync(path);
    } catch {
      return path;
    }
  };
  return {
    AGENT_RUN_ID: runId,
    ...(workspace.kind === "project"
      ? { CAIRN_DIR: real(workspace.root) }
      : { CAIRN_HOME: real(workspace.stateDir) }),
  };
}

const carriesAll = (pid: number, marks: readonly string[]) => {
  try {
    const environment = new Set(readFileSync(`/proc/${pid}/environ`, "utf8").split("\0"));
    return marks.every((mark) => environment.has(mark));
  } catch {
    return false;
  }
};

/**
 * Kill what is left of an orphaned run: every process group holding a process that carries the
 * run's marks (its id and its workspace) in its environment. The run's recorded pid is not
 * needed, and is not trusted alone: a supervisor killed between the spawn and the write of the
 * pid leaves a run without one, and a recycled pid, or another workspace's run of the same id,
 * is never someone else's kill. Never cairn's own group. Returns whether it killed.
 */
export function killOrphanProcesses(workspace: Workspace, runId: string): boolean {
  const marks = Object.entries(runMarks(workspace, runId)).map(([name, value]) => `${name}=${value}`);
  const table = processTable();
  const own = table.find((entry) => entry.pid === process.pid)?.pgrp;
  const groups = new Set<number>();
  for (const entry of table)
    if (entry.pgrp > 1 && entry.pgrp !== own && carriesAll(entry.pid, marks)) groups.add(entry.pgrp);
  let killed = false;
  for (const group of groups) {
    try {
      process.kill(-group, "SIGKILL");
      killed = true;
    } catch {
      // Gone since we looked.
    }
  }
  return killed;
}

/**
 * Runs recorded as running whose supervising cairn process is gone (a daemon killed with
 * SIGKILL, a crashed server): their processes are killed and they are marked interrupted.
 */
export async function reapOrphans(
  store: Store,
  workspace: Workspace,
  actorId: string,
  now: () => string,
): Promise<string[]> {
  const running = await store.read((tx) => tx.agentRuns.running());
  const here = supervisorHost();
  // Another machine's run (a shared store) is for its own daemon to judge: its pid is not ours.
  const orphans = running.filter(
    (run) =>
      (run.supervisorHost === null || run.supervisorHost === here) &&
      run.supervisorPid !== process.pid &&
      !processAlive(run.supervisorPid),
  );
  const reaped: string[] = [];
  for (const run of orphans) {
    const killed = killOrphanProcesses(workspace, run.id);
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
