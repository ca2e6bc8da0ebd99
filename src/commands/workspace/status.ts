import { z } from "zod";
import { workspaceStatus } from "../../domains/status/status.js";
import { endedAsksLine } from "../../domains/tasks/asks.js";
import { boardStatus } from "../../domains/tasks/board-status.js";
import { rulesChanges } from "../../domains/workspace/rules-watch.js";
import { LocalAgentsSummary, localAgentsSummary, renderLocalAgents } from "../agents/summary.js";
import { defineCommand } from "../define.js";
import { RULES_CHANGES_HINT, RulesChangeView, rulesChangeLine, rulesChangeView } from "./rules-view.js";
import { workspaceRef } from "./workspace.js";

/** The board's side of `status`; `now`'s inbox shows the same parts of it. */
export const BoardStatus = z.object({
  counts: z.record(z.string(), z.number()),
  holders: z.array(z.object({ owner: z.string(), tasks: z.array(z.string()) })),
  blocked: z.array(z.object({ id: z.string(), title: z.string(), why: z.string() })),
  open_asks: z.array(
    z.object({
      id: z.string(),
      task: z.string(),
      asked_by: z.string(),
      to: z.string(),
      question: z.string(),
    }),
  ),
  open_asks_total: z.number().int(),
  /** Open questions on tasks done or dropped: nobody waits on them, so they are left out above. */
  open_asks_on_ended: z.number().int(),
  stale_claims: z.array(z.object({ id: z.string(), owner: z.string(), lease_at: z.string() })),
  /** The newest finishes recorded unverified; `unverified_total` counts them all (`cairn review`). */
  unverified: z.array(z.string()),
  unverified_total: z.number().int(),
  swept: z.array(z.object({ task: z.string(), at: z.string(), why: z.string() })),
});

/** Blocked tasks a terminal view lists before it says how many more there are. */
const BLOCKED_SHOWN = 10;

/**
 * A terminal's lines for the board's blocked tasks: the first few, then how many more and where
 * to see them (a large board's hundred filled the screen; --json keeps them all).
 */
export function blockedLines(blocked: z.infer<typeof BoardStatus>["blocked"], total: number): string[] {
  const lines = blocked
    .slice(0, BLOCKED_SHOWN)
    .map((task) => `  blocked ${task.id} ${task.title}: ${task.why}`);
  const more = Math.max(total, blocked.length) - Math.min(blocked.length, BLOCKED_SHOWN);
  if (more > 0) lines.push(`  … ${more} more blocked: cairn task list --status blocked`);
  return lines;
}

/** A terminal's line for the newest finishes recorded unverified, and how many more there are. */
export function unverifiedLines(unverified: readonly string[], total: number): string[] {
  if (unverified.length === 0) return [];
  const more = total - unverified.length;
  return [
    `  finished unverified: ${unverified.join(", ")}${more > 0 ? ` … and ${more} more: cairn review` : ""}`,
  ];
}

const StatusOutput = z.object({
  workspace: workspaceRef(),
  counts: z.record(z.string(), z.number().int()),
  agents: z.object({ active: z.number().int(), retired: z.number().int() }),
  last_event: z.object({ at: z.string(), actor: z.string(), action: z.string() }).nullable(),
  board: BoardStatus,
  local_agents: LocalAgentsSummary,
  /** The newest change of cairn.toml's rules since the workspace was made, if any. */
  rules_changed: RulesChangeView.nullable(),
});

export const status = defineCommand({
  name: "status",
  summary: "What the workspace holds: counts, agents, the latest event, and the task board at a glance",
  effect: "read",
  input: z.object({}),
  output: StatusOutput,
  async handler(_input, ctx) {
    const found = await workspaceStatus(ctx.store);
    return {
      workspace: { root: ctx.workspace.root, state_dir: ctx.workspace.stateDir, kind: ctx.workspace.kind },
      counts: found.counts,
      agents: found.agents,
      last_event: found.lastEvent,
      board: await boardStatus(ctx.store, ctx.config, ctx.now()),
      local_agents: await localAgentsSummary(ctx),
      rules_changed: await ctx.store.read(async (tx) => {
        const [last] = (await rulesChanges(tx, {}, 1)).changes;
        return last ? rulesChangeView(last) : null;
      }),
    };
  },
  render: renderStatus,
});

type StatusView = z.infer<typeof StatusOutput>;

/** The terminal view: what is happening, not every table's row count. */
function renderStatus(out: StatusView): string {
  const held = Object.entries(out.counts).filter(([, n]) => n > 0);
  const lines = [
    `workspace ${out.workspace.root} (${out.workspace.kind})`,
    `agents: ${out.agents.active} active, ${out.agents.retired} retired`,
    `holds: ${held.length > 0 ? held.map(([table, n]) => `${n} ${table}`).join(", ") : "nothing yet"}`,
  ];
  const board = out.board;
  const byStatus = Object.entries(board.counts).map(([state, n]) => `${n} ${state}`);
  if (byStatus.length > 0) lines.push(`tasks: ${byStatus.join(", ")}`);
  for (const holder of board.holders) lines.push(`  ${holder.owner} holds ${holder.tasks.join(", ")}`);
  lines.push(...blockedLines(board.blocked, board.counts.blocked ?? 0));
  for (const ask of board.open_asks)
    lines.push(`  ask ${ask.id} on ${ask.task} by ${ask.asked_by} → ${ask.to}: ${ask.question}`);
  const unlisted = board.open_asks_total - board.open_asks.length;
  if (unlisted > 0) lines.push(`  … ${unlisted} more open questions: cairn asks`);
  if (board.open_asks_on_ended > 0) lines.push(`  ${endedAsksLine(board.open_asks_on_ended)}`);
  for (const claim of board.stale_claims)
    lines.push(`  stale claim ${claim.id} by ${claim.owner} since ${claim.lease_at}`);
  lines.push(...unverifiedLines(board.unverified, board.unverified_total));
  for (const swept of board.swept) lines.push(`  swept ${swept.task} at ${swept.at}: ${swept.why}`);
  lines.push(...renderLocalAgents(out.local_agents));
  if (out.rules_changed)
    lines.push(
      `rules in cairn.toml last changed: ${rulesChangeLine(out.rules_changed)} (${RULES_CHANGES_HINT})`,
    );
  if (out.last_event)
    lines.push(`last: ${out.last_event.action} by ${out.last_event.actor} at ${out.last_event.at}`);
  return lines.join("\n");
}
