import { refuse } from "../../kernel/outcome.js";
import type { Actor } from "../identity/actor.js";
import type { WorkspaceConfig } from "../workspace/config.js";

/**
 * Who decides what success means: the workspace owner, or an agent whose role `cairn.toml`
 * grants `planning = true`. The same authority approves evaluators, changes a frozen goal's
 * proofs and freezes runs; a builder can do none of it, whichever face or tool it uses.
 */
export function canPlan(actor: Actor, config: WorkspaceConfig): boolean {
  return actor.isOwner || config.roles[actor.role]?.planning === true;
}

export function requirePlanning(actor: Actor, config: WorkspaceConfig, what: string): void {
  if (canPlan(actor, config)) return;
  throw refuse(
    "planning",
    `${actor.name} (role ${actor.role}) cannot ${what}: that needs the workspace owner or a role granted planning`,
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
