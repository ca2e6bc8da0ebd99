import { readdirSync, realpathSync, rmSync } from "node:fs";
import { join } from "node:path";
import { os, sha256Hex } from "../../kernel/builtins.js";
import { machineName, thisMachineRecord } from "../../kernel/machine.js";
import {
  killChildrenOfDeadSupervisors,
  killGroupsCarrying,
  ownProcessStart,
  processTable,
} from "../../kernel/processes.js";
import { servedBoard } from "../../kernel/started-for.js";
import type { AgentRunRecord } from "../../store/agent-runs.js";
import type { Store } from "../../store/store.js";
import { retireRunAgent } from "../identity/run-identity.js";
import { releaseClaimsOf } from "../tasks/sweep.js";
import type { Workspace } from "../workspace/discover.js";
import { leftLog } from "./logs.js";
import { judgingClockFor, supervisionOver, supervisorLost, whySupervisionEnded } from "./supervisor.js";

/**
 * How long past a run's own limits its supervisor may take to kill it and write its end: a kill
 * waits out a grace period, and a write on a shared store can queue behind a lock. Generous, since
 * past it another machine's run is declared lost, and clocks of a team's machines differ.
 */
const END_MARGIN_MS = 10 * 60_000;

/**
 * The latest deadline written: a timeout no date reaches (`timeout_seconds` any integer, one meant
 * as "never") made the run's start throw "Invalid time value", and the agent could not run.
 */
const LAST_DEADLINE_MS = Date.parse("9999-12-31T23:59:59.999Z");

/**
 * What a run records of the cairn process that supervises it: its pid, its machine (only there
 * does the pid mean anything: its host name and install, kernel/machine.ts), when it started (so
 * a reused pid is not taken for it), and the deadline by which, if it lives, it will have ended
 * the run started `at` (on the store's clock) and limited to `limitMs` (its timeouts, summed) and
 * written so.
 */
export function thisSupervisor(
  at: string,
  limitMs: number,
): {
  supervisorPid: number;
  supervisorHost: string;
  supervisorStart: string | null;
  deadlineAt: string;
} {
  return {
    supervisorPid: process.pid,
    supervisorHost: thisMachineRecord(),
    supervisorStart: ownProcessStart(),
    deadlineAt: new Date(Math.min(Date.parse(at) + limitMs + END_MARGIN_MS, LAST_DEADLINE_MS)).toISOString(),
  };
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

/**
 * The start of the name of a run's temporary folder (`AGENT_TMPDIR`): named after the run and its
 * workspace, so the reaper of a supervisor killed before it could remove it finds it, and never
 * another workspace's run of the same id.
 */
export function runTempPrefix(workspace: Workspace, runId: string): string {
  const marks = JSON.stringify(runMarks(workspace, runId));
  return `cairn-agent-${sha256Hex(marks).slice(0, 16)}-`;
}

/** Remove the temporary folders an orphaned run left (its supervisor died before its cleanup). */
function removeRunTemps(workspace: Workspace, runId: string): void {
  const prefix = runTempPrefix(workspace, runId);
  let names: string[];
  try {
    names = readdirSync(os().tmpdir());
  } catch {
    return;
  }
  for (const name of names)
    if (name.startsWith(prefix)) rmSync(join(os().tmpdir(), name), { recursive: true, force: true });
}

/**
 * Kill what is left of an orphaned run: every process group holding a process that carries the
 * run's marks (its id and its workspace) in its environment. The run's recorded pid is not
 * needed, and is not trusted alone: a supervisor killed between the spawn and the write of the
 * pid leaves a run without one, and a recycled pid, or another workspace's run of the same id,
 * is never someone else's kill. Never cairn's own group. Returns whether it killed.
 */
function killOrphanProcesses(
  workspace: Workspace,
  runId: string,
  table: ReturnType<typeof processTable>,
): boolean {
  const marks = Object.entries(runMarks(workspace, runId)).map(([name, value]) => `${name}=${value}`);
  return killGroupsCarrying(marks, table);
}

/**
 * Kill what a run that has ended left outside its own process group (a grandchild that called
 * setsid, a daemon it started): the group is killed at the run's end, but these are not in it.
 * They are found by the marks they carry, as orphans are. Returns whether it killed.
 */
export function killRunLeftovers(workspace: Workspace, runId: string): boolean {
  return killOrphanProcesses(workspace, runId, processTable());
}

/**
 * Runs recorded as running that are over all the same: their supervising cairn process on this
 * machine is gone (a daemon killed with SIGKILL, a crashed server), and what they left is killed;
 * or their supervisor on another machine is past the run's deadline (that machine down or cut off
 * from a shared store), and nothing is killed from here. Each is marked interrupted, its minted
 * token retired and its claims given back.
 */
export async function reapOrphans(
  store: Store,
  workspace: Workspace,
  actorId: string,
  now: () => string,
  /**
   * Each run as it ended, for the audit log: a run is audited when its supervisor writes its end,
   * so one whose supervisor died (a daemon killed outright) was never audited as a run at all.
   */
  ended?: (run: AgentRunRecord) => void,
): Promise<string[]> {
  // What a cairn killed outright left running for this board (a verify command, an evaluator,
  // a skill script, an OS tool) has no row to find it by, only its mark: it goes too.
  const board = servedBoard();
  if (board !== undefined) await killChildrenOfDeadSupervisors(board);
  const running = await store.read((tx) => tx.agentRuns.running());
  if (running.length === 0) return [];
  // Gone: its pid is free, or held by a process that started at another moment. Lost: another
  // machine's, whose pid is not ours to judge, past its deadline.
  // Deadlines are judged on the store's clock, as they were stamped (a shared store's server).
  const judgedAt = await store.read((tx) => judgingClockFor(tx, running, Date.parse(now())));
  const over = running.filter((run) => supervisionOver(run, judgedAt));
  if (over.length === 0) return [];
  // One look at the process table for them all: it is read only at a start, and only for orphans.
  const table = processTable();
  const reaped: string[] = [];
  for (const run of over) {
    const lost = supervisorLost(run, judgedAt);
    // A lost run's processes are on its own machine: none of this one's carries its marks.
    const killed = !lost && killOrphanProcesses(workspace, run.id, table);
    if (!lost) removeRunTemps(workspace, run.id);
    const at = now();
    const why = whySupervisionEnded(run, judgedAt);
    const recorded = await store.write(async (tx) => {
      // Its supervisor may have written its end since it was read: a lost one that came back.
      const ending = await tx.agentRuns.finish(run.id, {
        status: "interrupted",
        exitCode: null,
        finishedAt: at,
        durationMs: Date.parse(at) - Date.parse(run.startedAt),
        stderrTail: run.stderrTail,
        reason: `${why}${killed ? "; its leftover processes were killed" : ""}`,
        // What it printed until then is on disk: `agents logs` reads it, as any ended run's (on
        // this machine only: a lost run's log is on its own).
        logPath: lost ? null : leftLog(workspace, run.agent, run.id, run.trigger === "schedule"),
      });
      if (!ending) return false;
      // The supervisor died before it could retire the token it minted for the run.
      if (run.identity) {
        const retired = await retireRunAgent(tx, run.identity, at);
        for (const id of new Set([run.identity, ...retired])) {
          await releaseClaimsOf(
            tx,
            id,
            actorId,
            at,
            `run ${run.id} of ${run.agent} ended: its supervisor ${lost ? "was lost" : "died"}`,
          );
        }
      }
      await tx.journal.append({
        at,
        actor: actorId,
        action: "agent.run.interrupted",
        subject: run.id,
        data: {
          agent: run.agent,
          supervisor_pid: run.supervisorPid,
          killed,
          ...(lost ? { lost: true, supervisor_host: machineName(run.supervisorHost ?? "") } : {}),
        },
      });
      return true;
    });
    if (!recorded) continue;
    reaped.push(run.id);
    ended?.({ ...run, status: "interrupted", exitCode: null, finishedAt: at });
  }
  return reaped;
}
