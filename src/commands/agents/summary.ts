import { z } from "zod";
import { agentCatalog } from "../../domains/agents/catalog.js";
import { HEALTH_STATES } from "../../domains/agents/health.js";
import { agentsStatus } from "../../domains/agents/status.js";
import type { CommandContext } from "../context.js";

/** The local agents' part of `status`: counts, what is unhealthy and why, the daemon. */
export const LocalAgentsSummary = z.object({
  agents: z.number().int(),
  daemon_running: z.boolean(),
  counts: z.record(z.enum(HEALTH_STATES), z.number().int()),
  unhealthy: z.array(
    z.object({ agent: z.string(), schedule: z.string(), state: z.enum(HEALTH_STATES), reason: z.string() }),
  ),
  triggered_runs: z
    .number()
    .int()
    .describe("agents whose latest MCP/CLI-triggered run is shown by agents_status"),
  broken_manifests: z.array(z.string()),
});

const SHOWN = 10;

export async function localAgentsSummary(ctx: CommandContext): Promise<z.infer<typeof LocalAgentsSummary>> {
  const catalog = agentCatalog(ctx.workspace, ctx.env);
  const found = await agentsStatus(ctx.store, ctx.workspace, catalog, ctx.env, Date.parse(ctx.now()));
  return {
    agents: catalog.agents.length,
    daemon_running: found.daemon.running,
    counts: found.counts,
    unhealthy: found.schedules
      .filter((row) => row.state !== "ok")
      .slice(0, SHOWN)
      .map(({ agent, schedule, state, reason }) => ({ agent, schedule, state, reason })),
    triggered_runs: found.triggered.length,
    broken_manifests: found.problems.map((problem) => `${problem.file}: ${problem.reason}`),
  };
}

export function renderLocalAgents(out: z.infer<typeof LocalAgentsSummary>): string[] {
  if (out.agents === 0 && out.broken_manifests.length === 0) return [];
  const counts = HEALTH_STATES.filter((state) => (out.counts[state] ?? 0) > 0).map(
    (state) => `${out.counts[state]} ${state}`,
  );
  return [
    `local agents: ${out.agents} (${counts.join(", ") || "no schedules"}); daemon ${out.daemon_running ? "running" : "not running"}`,
    ...out.unhealthy.map((row) => `  ${row.agent}/${row.schedule} ${row.state}: ${row.reason}`),
    ...out.broken_manifests.map((line) => `  broken manifest ${line}`),
  ];
}
