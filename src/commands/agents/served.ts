import { lineageOf } from "../../domains/identity/actor.js";
import type { Profile } from "../../domains/workspace/config.js";
import { refuse } from "../../kernel/outcome.js";
import { quoteValue } from "../../kernel/text.js";
import type { CommandContext, SessionContext } from "../context.js";

/** Profiles served every local agent's run tool and every remediation tool. */
export const FULL_PROFILES: readonly Profile[] = ["operator", "all"];

type Caller = Pick<SessionContext, "config" | "actor">;

/** Whether a role declares a profile that is served every agent and remediation. */
const declaresFull = (ctx: Caller, role: string) => {
  const declared = ctx.config.roles[role]?.profile;
  return declared !== undefined && FULL_PROFILES.includes(declared);
};

/**
 * Whether the caller is served every local agent and every remediation: its session's profile is
 * operator or all, and so is the profile its role and each ancestor's role declares in cairn.toml.
 * The launch flag only narrows: `--profile all` chooses how many tools a session lists, and the
 * project's `.mcp.json` that passes it is a file any agent with a write tool can edit, so it
 * never grants what the owner's role table does not.
 */
function servedFull(ctx: Caller, profile: Profile): boolean {
  if (!FULL_PROFILES.includes(profile)) return false;
  return ctx.actor.isOwner || lineageOf(ctx.actor).every((member) => declaresFull(ctx, member.role));
}

/**
 * The role in the caller's line that keeps `profile` from serving it `run-<agent>`, if any.
 * Operators are served every agent (servedFull), workers and planners those their role lists. A
 * child never exceeds its parent: each ancestor must be served the tool too, as its role
 * declares (its profile, else worker, and its list); a lead whose role lists no agent otherwise
 * ran any that its builder child's role lists (child_roles), through a child it minted.
 */
function unservedRole(ctx: Caller, profile: Profile, agent: string): string | undefined {
  if (servedFull(ctx, profile)) return undefined;
  const line = lineageOf(ctx.actor);
  return line.find((member, index) => {
    const servedAll = index > 0 && declaresFull(ctx, member.role);
    return !servedAll && !(ctx.config.roles[member.role]?.agents ?? []).includes(agent);
  })?.role;
}

/** Whether the caller is served `remediate-<agent>-<n>` tools (see servedFull). */
export const servesRemediations = servedFull;

/** Whether `profile` serves the caller `run-<agent>` (see unservedRole). */
export function servesRunTool(ctx: Caller, profile: Profile, agent: string): boolean {
  return unservedRole(ctx, profile, agent) === undefined;
}

/**
 * A model reaches `agents run` and `agents remediate` only as far as its profile serves their
 * tools: the `cli` tool, in every profile, must not run an agent (or an operator's remediation)
 * the session was never given a tool for. A person at the terminal is not bound by a tool profile.
 */
export function requireServedToModel(ctx: CommandContext, agent: string, what: "run" | "remediation"): void {
  if (ctx.audience !== "model" || ctx.actor.isOwner) return;
  if (what === "run") {
    const role = unservedRole(ctx, ctx.profile, agent);
    if (role === undefined) return;
    const why = role === ctx.actor.role ? "" : `: the role of an ancestor, ${role}, does not list it`;
    // A manifest's name is whatever its file says (line breaks, a forged `next:`): quoted, cut.
    const named = quoteValue(agent);
    throw refuse(
      "profile",
      `the ${ctx.profile} profile of ${ctx.actor.name} (role ${ctx.actor.role}) is not served the run tool of agent ${named}${why}`,
      `ask the owner to list ${named} in [roles.${role}] agents in cairn.toml, or to run it`,
    );
  }
  if (servedFull(ctx, ctx.profile)) return;
  const role = ctx.actor.role;
  throw refuse(
    "profile",
    `remediations are served to roles whose profile is operator or all, in sessions started with one; ${ctx.actor.name} (role ${role}) is served ${ctx.profile}`,
    `ask the owner or an operator to run the remediation, or the owner to set profile = "operator" in [roles.${role}]`,
  );
}
