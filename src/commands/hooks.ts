import { renewClaims } from "../domains/tasks/claims.js";
import type { CommandContext } from "./context.js";
import type { WorkspaceCommand } from "./define.js";

/**
 * Work that follows the caller rather than any one command: it runs on every workspace call,
 * after the guard and before the handler. A hook must be cheap and must not decide the call.
 */
export type CallHook = (ctx: CommandContext, command: WorkspaceCommand) => Promise<void>;

export const CALL_HOOKS: readonly CallHook[] = [
  // Claims are leases: any call by their holder keeps them alive.
  async (ctx) => {
    await renewClaims(ctx.store, ctx.config, ctx.actor, ctx.now());
  },
];
