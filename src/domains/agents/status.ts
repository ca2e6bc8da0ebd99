import type { AgentRunRecord, Store } from "../../store/store.js";
import type { Workspace } from "../workspace/discover.js";
import { type AgentCatalog, ignoredManifests } from "./catalog.js";
import { DAEMON_META_KEY, type DaemonBeat, daemonPid } from "./daemon-lock.js";
import { type HealthState, health } from "./health.js";
import { lastScheduledRun, readScheduleState, runsOf } from "./state.js";
import { asItStands, judgingClock } from "./supervisor.js";

export interface RunSummary {
  id: string;
  trigger: string;
  status: string;
  exit_code: number | null;
  started_at: string;
  finished_at: string | null;
}

export interface ScheduleRow {
  agent: string;
  schedule: string;
  kind: string;
  state: HealthState;
  reason: string;
  last_run: RunSummary | null;
  window_at: string | null;
  next_window_at: string | null;
}

export interface AgentsStatus {
  daemon: { running: boolean; pid: number | null; beat_at: string | null; next_event_at: string | null };
  counts: Record<HealthState, number>;
  schedules: ScheduleRow[];
  /** The latest run each agent had from MCP or the CLI: they serve no window, and still show. */
  triggered: (RunSummary & { agent: string; schedule: string })[];
  problems: { file: string; reason: string }[];
}

/** A run's summary, as it stands at `judgedAt` (the store's clock: see judgingClock). */
export const summarize = (run: AgentRunRecord, judgedAt: number): RunSummary => ({
  id: run.id,
  trigger: run.trigger,
  status: asItStands(run, judgedAt).status,
  exit_code: run.exitCode,
  started_at: run.startedAt,
  finished_at: run.finishedAt,
});

const ORDER: HealthState[] = ["failing", "stale", "degraded", "never_ran", "ok"];
const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());

/** Every monitored agent × schedule with its health and reason; read-only. */
export async function agentsStatus(
  store: Store,
  workspace: Workspace,
  catalog: AgentCatalog,
  env: NodeJS.ProcessEnv,
  now: number,
  zone?: string,
): Promise<AgentsStatus> {
  const rows: ScheduleRow[] = [];
  const triggered: AgentsStatus["triggered"] = [];
  await store.read(async (tx) => {
    const judgedAt = await judgingClock(tx, now);
    for (const agent of catalog.agents) {
      const found = await tx.agentRuns.lastTriggered(agent.name);
      const last = found && asItStands(found, judgedAt);
      if (last) triggered.push({ agent: agent.name, schedule: last.schedule, ...summarize(last, judgedAt) });
      if (!agent.manifest.agent.monitor) continue;
      if (agent.schedules.length === 0) {
        // A run in flight is no verdict: the agent is judged on the latest run that ended. Any
        // writer may start one that takes its time, and a failing agent read ok while it ran.
        const ended =
          last?.status === "running"
            ? (await tx.agentRuns.recent({ agent: agent.name, limit: 50 }))
                .map((run) => asItStands(run, judgedAt))
                .find((run) => (run.trigger === "mcp" || run.trigger === "cli") && run.status !== "running")
            : last;
        const running = last?.status === "running" ? `; run ${last.id} running now` : "";
        rows.push({
          agent: agent.name,
          schedule: "trigger",
          kind: "trigger",
          state: !ended ? "never_ran" : ended.status === "ok" ? "ok" : "failing",
          reason: !ended
            ? `trigger-only agent, never run to its end${running}`
            : `trigger-only; last ${ended.trigger} run ${ended.id} ${ended.status}${ended.exitCode === null ? "" : ` (exit ${ended.exitCode})`}${running}`,
          last_run: last ? summarize(last, judgedAt) : null,
          window_at: null,
          next_window_at: null,
        });
        continue;
      }
      const recent = await tx.agentRuns.recent({ agent: agent.name, limit: 50 });
      const mine = runsOf(agent, workspace, env);
      for (const spec of agent.schedules) {
        const state = await readScheduleState(tx, agent.name, spec, now, mine);
        const verdict = health(spec, state, now, zone);
        // Triggered runs (any number, from any rw agent) may fill the recent ones.
        const lastRun =
          recent.find((run) => run.schedule === spec.id && run.trigger === "schedule" && mine(run)) ??
          (await lastScheduledRun(tx, agent.name, spec, now, mine));
        rows.push({
          agent: agent.name,
          schedule: spec.id,
          kind: spec.kind,
          state: verdict.state,
          reason: verdict.reason,
          last_run: lastRun ? summarize(lastRun, judgedAt) : null,
          window_at: iso(verdict.windowAt),
          next_window_at: iso(verdict.nextWindowAt),
        });
      }
    }
  });
  rows.sort((a, b) => ORDER.indexOf(a.state) - ORDER.indexOf(b.state));
  const counts = { ok: 0, degraded: 0, failing: 0, stale: 0, never_ran: 0 } as Record<HealthState, number>;
  for (const row of rows) counts[row.state]++;
  const raw = await store.read((tx) => tx.meta.get(DAEMON_META_KEY));
  const beat = raw ? (JSON.parse(raw) as DaemonBeat) : undefined;
  const pid = daemonPid(workspace) ?? null;
  return {
    daemon: {
      running: pid !== null,
      pid,
      beat_at: beat?.beat_at ?? null,
      next_event_at: pid !== null ? (beat?.next_event_at ?? null) : null,
    },
    counts,
    schedules: rows,
    triggered,
    problems: [...catalog.problems, ...ignoredManifests(catalog)],
  };
}
