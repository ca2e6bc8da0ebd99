import { auditCall, beginAuditedCall } from "../domains/audit/calls.js";
import { keepingLeases, renewClaims } from "../domains/tasks/claims.js";
import type { WorkspaceConfig } from "../domains/workspace/config.js";
import { noteRules, type Rules, rulesOf } from "../domains/workspace/rules-watch.js";
import type { Outcome } from "../kernel/outcome.js";
import type { CommandContext } from "./context.js";
import type { WorkspaceCommand } from "./define.js";

/**
 * Work that follows the caller rather than any one command: it runs on every workspace call,
 * after the guard and before the handler. A hook must be cheap and must not decide the call.
 */
export type CallHook = (ctx: CommandContext, command: WorkspaceCommand) => Promise<void>;

/** Each configuration's rules, made once: a server keeps one configuration until the file changes. */
const RULES_OF = new WeakMap<WorkspaceConfig, Rules>();
/**
 * The configuration this process last noted, per store: while it is the one calls run under, no
 * read is made. Kept by identity, not by the rules' text: rules this process noted once, then
 * undone (and recorded undone by another process), then written again are a new configuration
 * here, and are asked about again; matched by text, a server that had seen them once ran under
 * them again unrecorded.
 */
const NOTED = new WeakMap<object, Rules>();

/**
 * The rules a call runs under are the journal's to know (domains/workspace/rules-watch.ts). A read
 * asks the store at a process's first call and whenever its cairn.toml changed since. A write
 * asks at every call: another checkout's file (a machine of a team, a folder reached through
 * CAIRN_DIR) may have been recorded meanwhile, and a finish made under this file's looser rules
 * must not pass as made under those. One read of the store, a row of it, per write.
 */
export async function noteCallRules(
  ctx: Pick<CommandContext, "store" | "config" | "actor" | "now">,
  evenIfNoted = false,
): Promise<void> {
  let rules = RULES_OF.get(ctx.config);
  if (!rules) {
    rules = rulesOf(ctx.config);
    RULES_OF.set(ctx.config, rules);
  }
  if (!evenIfNoted && NOTED.get(ctx.store) === rules) return;
  await noteRules(ctx.store, rules, ctx.actor, ctx.now());
  NOTED.set(ctx.store, rules);
}

export const CALL_HOOKS: readonly CallHook[] = [
  // Claims are leases: any call by their holder keeps them alive.
  async (ctx) => {
    await renewClaims(ctx.store, ctx.config, ctx.actor, ctx.now());
  },
  (ctx, command) => noteCallRules(ctx, command.effect !== "read"),
];

/**
 * Wrapped around the whole of a caller's call, however long it runs: a holder waiting on cairn (a
 * verify command, a shortcut, a local agent, an evaluator, an OS command) is not silent, so its
 * leases are renewed meanwhile and a sweep takes nothing from it. The call runs on the signal it
 * is given: it is also cancelled when its caller is retired meanwhile.
 */
export const whileCalling = <T>(ctx: CommandContext, work: (signal: AbortSignal) => Promise<T>): Promise<T> =>
  keepingLeases(ctx.store, ctx.config, ctx.actor, () => ctx.now(), work, ctx.signal);

/**
 * Work done once a call has its outcome (ok, refused or failed); it cannot change that outcome.
 * `pending`: what `beginCall` kept of the call.
 */
export type AfterCallHook = (
  ctx: CommandContext,
  command: WorkspaceCommand,
  input: Record<string, unknown>,
  outcome: Outcome<unknown>,
  pending: string | undefined,
) => Promise<void>;

const audited = (command: WorkspaceCommand) => command.effect !== "read" && command.audit !== "self";
const auditedInput = (command: WorkspaceCommand, input: Record<string, unknown>) =>
  command.auditInput ? command.auditInput(input) : input;

/**
 * Before a call runs: a write's line is kept aside, appended by whichever cairn appends next if
 * this process is killed before the call appends it (domains/audit/pending.ts). Answers the record
 * the after-call hooks settle.
 */
export function beginCall(
  ctx: CommandContext,
  command: WorkspaceCommand,
  input: Record<string, unknown>,
): string | undefined {
  return audited(command) ? beginAuditedCall(ctx, command, auditedInput(command, input)) : undefined;
}

export const AFTER_CALL_HOOKS: readonly AfterCallHook[] = [
  // Every write, refused or not, leaves a line in the audit log.
  async (ctx, command, input, outcome, pending) => {
    if (!audited(command)) return;
    auditCall(ctx, command, auditedInput(command, input), outcome, pending);
  },
];
