import { join, resolve } from "node:path";
import { isInside } from "../../kernel/inside.js";
import type { AgentRunRecord, Tx } from "../../store/store.js";
import { homeWorkspace, type Workspace } from "../workspace/discover.js";
import type { LoadedAgent, ScheduleSpec } from "./manifest.js";
import { asItStands, judgingClockFor } from "./supervisor.js";
import type { ScheduledAttempt, ScheduleState } from "./windows.js";

/**
 * How far back a schedule's attempts and marks are read: at least 40 days, and always past its
 * `stale_after`. A window is decided on until it goes stale, so its tries and its given-up mark
 * must stay in view that long: read any shorter, a yearly window given up in January with a
 * 100-day `stale_after` looked untried in February and ran again.
 */
const HORIZON_MS = 40 * 24 * 3_600_000;
const horizonOf = (spec: ScheduleSpec) => Math.max(HORIZON_MS, (spec.staleAfterMinutes + 1) * 60_000);

const attemptOf = (run: AgentRunRecord, judgedAt: number): ScheduledAttempt => ({
  windowAt: Date.parse(run.windowAt as string),
  // A running attempt whose supervisor is gone or lost holds its window no longer: it is interrupted.
  status: asItStands(run, judgedAt).status,
  finishedAt: run.finishedAt ? Date.parse(run.finishedAt) : null,
  exitCode: run.exitCode,
});

/** Which recorded runs of an agent's name are its own (see runsOf). */
export type RunsOf = (run: AgentRunRecord) => boolean;

/**
 * The runs that are this agent's, of all recorded under its name. Runs are kept by name, and a
 * project manifest any writer plants under the name of the machine's own agent (CAIRN_HOME,
 * dotagent's folder) is found first and runs in its place: removed after the daemon ran it once,
 * its success served the operator's window, which read ok and was never run. A machine's agent
 * counts no run made from a manifest in the project's folder. Among the project's own manifests,
 * all written alike, a name is one agent (and a moved project keeps its history).
 */
export function runsOf(
  agent: Pick<LoadedAgent, "path">,
  workspace: Workspace,
  env: NodeJS.ProcessEnv,
): RunsOf {
  const projectRoot = resolve(join(workspace.stateDir, "agents"));
  const machineRoot = resolve(join(homeWorkspace(env).stateDir, "agents"));
  if (workspace.kind !== "project" || projectRoot === machineRoot || isInside(projectRoot, agent.path))
    return () => true;
  return (run) => !isInside(projectRoot, run.manifestPath);
}

/** A schedule's state as the pure window functions take it, read in one transaction. */
export async function readScheduleState(
  tx: Tx,
  agent: string,
  spec: ScheduleSpec,
  now: number,
  mine: RunsOf,
): Promise<ScheduleState> {
  const since = new Date(now - horizonOf(spec)).toISOString();
  const runs = (await tx.agentRuns.scheduled(agent, spec.id, since)).filter(mine);
  const ok = await tx.agentRuns.lastScheduledOk(agent, spec.id);
  if (ok && mine(ok) && !runs.some((run) => run.id === ok.id)) runs.push(ok);
  const marks = await tx.agentWindows.marks(agent, spec.id, since);
  const firstSeen = await tx.agentWindows.firstSeen(agent, spec.id);
  const judgedAt = await judgingClockFor(tx, runs, now);
  return {
    attempts: runs.map((run) => attemptOf(run, judgedAt)),
    givenUp: new Set(marks.filter((m) => m.mark === "given_up").map((m) => Date.parse(m.windowAt))),
    firstSeenAt: firstSeen ? Date.parse(firstSeen) : undefined,
  };
}

/**
 * A schedule's latest scheduled run within the horizon its state is read over: for `status` when
 * its agent's latest runs (triggered ones, remediations) hold none.
 */
export async function lastScheduledRun(
  tx: Tx,
  agent: string,
  spec: ScheduleSpec,
  now: number,
  mine: RunsOf,
): Promise<AgentRunRecord | undefined> {
  const runs = await tx.agentRuns.scheduled(agent, spec.id, new Date(now - horizonOf(spec)).toISOString());
  return runs.filter(mine).at(-1);
}
