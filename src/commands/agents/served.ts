import type { Profile } from "../../domains/workspace/config.js";
import { refuse } from "../../kernel/outcome.js";
import type { CommandContext, SessionContext } from "../context.js";

/** Profiles served every local agent's run tool and every remediation tool. */
export const FULL_PROFILES: readonly Profile[] = ["operator", "all"];

type Caller = Pick<SessionContext, "config" | "actor">;

/** Whether `profile` serves the caller `run-<agent>`: operators all, workers and planners their role's list. */
export function servesRunTool(ctx: Caller, profile: Profile, agent: string): boolean {
  if (FULL_PROFILES.includes(profile)) return true;
  return (ctx.config.roles[ctx.actor.role]?.agents ?? []).includes(agent);
}

/**
 * A model reaches `agents run` and `agents remediate` only as far as its profile serves their
 * tools: the `cli` tool, in every profile, must not run an agent (or an operator's remediation)
 * the session was never given a tool for. A person at the terminal is not bound by a tool profile.
 */
export function requireServedToModel(ctx: CommandContext, agent: string, what: "run" | "remediation"): void {
  if (ctx.audience !== "model" || ctx.actor.isOwner) return;
  const served =
    what === "run" ? servesRunTool(ctx, ctx.profile, agent) : FULL_PROFILES.includes(ctx.profile);
  if (served) return;
  throw refuse(
    "profile",
    what === "run"
      ? `the ${ctx.profile} profile of ${ctx.actor.name} (role ${ctx.actor.role}) is not served ${agent}'s run tool`
      : `remediations are served to the operator and all profiles; ${ctx.actor.name} is served ${ctx.profile}`,
    what === "run"
      ? `ask the owner to list ${JSON.stringify(agent)} in [roles.${ctx.actor.role}] agents in cairn.toml, or to run it`
      : "ask the owner or an operator to run the remediation",
  );
}
