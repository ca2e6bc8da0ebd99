import { isThisMachine, machineName } from "../../kernel/machine.js";
import { sameProcessAlive } from "../../kernel/processes.js";
import type { AgentRunRecord, Tx } from "../../store/store.js";

type Supervised = Pick<
  AgentRunRecord,
  "status" | "supervisorPid" | "supervisorHost" | "supervisorStart" | "deadlineAt"
>;

const elsewhere = (run: Supervised) => run.supervisorHost !== null && !isThisMachine(run.supervisorHost);

/**
 * A run recorded as running whose supervising cairn process, on this machine, is gone (killed
 * outright, crashed): the run is over, though no reaper (`cairn sweep`, the daemon) has written
 * so yet. Another machine's supervisor (a shared store) is its own daemon's to judge.
 */
export function supervisorGone(run: Supervised): boolean {
  if (run.status !== "running" || elsewhere(run)) return false;
  return !sameProcessAlive(run.supervisorPid, run.supervisorStart);
}

/** Another machine's running run with a deadline: the only kind a clock judges. */
const judgedByDeadline = (run: Supervised) =>
  run.status === "running" && elsewhere(run) && run.deadlineAt !== null;

/**
 * A run another machine's supervisor recorded as running, past the deadline by which that
 * supervisor, had it lived, would have ended it and written so: its machine is down or cut off
 * from the store. Its pid means nothing here, but its deadline does: without it a machine that
 * never came back left its run running for good, holding its schedule's window on every machine.
 */
export function supervisorLost(run: Supervised, now: number = Date.now()): boolean {
  return judgedByDeadline(run) && Date.parse(run.deadlineAt as string) < now;
}

/** A run still recorded as running that is over all the same: its supervisor is gone or lost. */
export const supervisionOver = (run: Supervised, now?: number) =>
  supervisorGone(run) || supervisorLost(run, now);

/** Why a run whose supervision is over ended, as its reaper records it. */
export function whySupervisionEnded(run: Supervised, now?: number): string {
  return supervisorLost(run, now)
    ? `its supervisor on ${machineName(run.supervisorHost ?? "")} (pid ${run.supervisorPid}) recorded no end by its deadline, ${run.deadlineAt}: that machine is down or cut off from the store, and whatever the run left running there was not stopped from here`
    : `its supervisor (pid ${run.supervisorPid}) died`;
}

/**
 * The time deadlines are judged by, in epoch ms: the store's clock (a shared store's server), as
 * they were stamped, never this machine's, which may run ahead of it.
 */
export const judgingClock = async (tx: Tx, local: number = Date.now()): Promise<number> =>
  Date.parse(await tx.tasks.leaseClock(new Date(local).toISOString()));

/**
 * The judging clock for `runs`, read from the store only when one of them is judged by it (see
 * judgedByDeadline); `local` otherwise. Its callers read for each schedule of a daemon's pass and
 * at every call of a run's own token, where a shared store would answer one more query each time.
 */
export async function judgingClockFor(
  tx: Tx,
  runs: readonly Supervised[],
  local: number = Date.now(),
): Promise<number> {
  return runs.some(judgedByDeadline) ? judgingClock(tx, local) : local;
}

/**
 * A run as it stands at `now` (the judging clock above): one whose supervisor is gone or lost
 * reads as interrupted, as the reaper will record it, and never as still running (which status
 * counted as ok for as long as no one swept). Judged by a machine's own clock, a clock running
 * ahead of the store's read a live run lost, and its daemon ran the run's window again beside it.
 */
export function asItStands<T extends AgentRunRecord>(run: T, now: number): T {
  if (!supervisionOver(run, now)) return run;
  return {
    ...run,
    status: "interrupted",
    reason: `${whySupervisionEnded(run, now)}; \`cairn sweep\` records it`,
  };
}
