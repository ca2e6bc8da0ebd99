import { z } from "zod";
import { asItStands } from "../../domains/agents/supervisor.js";
import { machineName } from "../../kernel/machine.js";
import type { AgentRunRecord } from "../../store/store.js";

export const RunView = z.object({
  id: z.string(),
  agent: z.string(),
  schedule: z.string(),
  trigger: z.string(),
  window_at: z.string().nullable(),
  status: z.string(),
  exit_code: z.number().int().nullable(),
  started_at: z.string(),
  finished_at: z.string().nullable(),
  duration_ms: z.number().int().nullable(),
  reason: z.string().nullable(),
  log_path: z.string().nullable(),
  /** The machine whose cairn supervises (or supervised) the run: with a shared store, not always this one. */
  supervisor_host: z.string().nullable(),
});

/** A run's view, as it stands at `judgedAt` (the store's clock: see judgingClock). */
export function runView(recorded: AgentRunRecord, judgedAt: number): z.infer<typeof RunView> {
  const run = asItStands(recorded, judgedAt);
  return {
    id: run.id,
    agent: run.agent,
    schedule: run.schedule,
    trigger: run.trigger,
    window_at: run.windowAt,
    status: run.status,
    exit_code: run.exitCode,
    started_at: run.startedAt,
    finished_at: run.finishedAt,
    duration_ms: run.durationMs,
    reason: run.reason,
    log_path: run.logPath,
    supervisor_host: run.supervisorHost === null ? null : machineName(run.supervisorHost),
  };
}

// The health states are the domain's: `cairn status` reads them without building the views above.
export { HEALTH_STATES } from "../../domains/agents/health.js";
