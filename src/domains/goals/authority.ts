import { refuse } from "../../kernel/outcome.js";
import { type Actor, lineageOf } from "../identity/actor.js";
import type { WorkspaceConfig } from "../workspace/config.js";

/**
 * Who decides what success means: the workspace owner, or an agent whose role `cairn.toml`
 * grants `planning = true`. The same authority approves evaluators, changes a frozen goal's
 * proofs and freezes runs; a builder can do none of it, whichever face or tool it uses. A child
 * never exceeds its parent: every role in its line must grant planning, so a builder cannot
 * mint itself a planner child (a role its `child_roles` lists) to approve its own evaluators.
 */
export function canPlan(actor: Actor, config: WorkspaceConfig): boolean {
  if (actor.isOwner) return true;
  return lineageOf(actor).every((member) => config.roles[member.role]?.planning === true);
}

export function requirePlanning(actor: Actor, config: WorkspaceConfig, what: string): void {
  if (canPlan(actor, config)) return;
  const lacking = lineageOf(actor).find((member) => config.roles[member.role]?.planning !== true);
  const ancestor =
    lacking && lacking.id !== actor.id ? ` under ${lacking.id}, an ancestor of role ${lacking.role}` : "";
  throw refuse(
    "planning",
    `${actor.name} (role ${actor.role}${ancestor}) cannot ${what}: that needs the workspace owner or a role granted planning, in every role of its line`,
    "ask the owner to do it, or to set `planning = true` on a role in cairn.toml",
  );
}

/** Reviews are settled by a person: the workspace owner only. */
export function requireOwner(actor: Actor, what: string): void {
  if (actor.isOwner) return;
  throw refuse(
    "owner",
    `only the workspace owner can ${what}`,
    "ask the human who owns this workspace; until then the attempt stays in review",
  );
}

/**
 * Who reads a holdout (a hidden evaluator's command, rule and source): the workspace owner, as a
 * person. With no agent token a model's session is the owner's, and the model building the
 * attempt read the holdout that is to judge it in `run status`, `attempt show` or `eval list`,
 * through tool results its sandbox does not filter. Its tool calls are a model's, even there.
 */
export function readsHoldouts(caller: { actor: Actor; audience: "model" | "person" }): boolean {
  return caller.actor.isOwner && caller.audience === "person";
}
