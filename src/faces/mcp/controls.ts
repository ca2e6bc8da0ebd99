import type { ServerContext } from "@modelcontextprotocol/server";
import type { CallControls } from "../../commands/context.js";

/**
 * The request's cancellation signal, and progress notifications when (and only when) the client
 * sent a progress token with its call.
 */
export function callControls(ctx: ServerContext): {
  controls: CallControls;
  delivered: () => Promise<unknown>;
} {
  const token = ctx.mcpReq._meta?.progressToken;
  const controls: CallControls = { signal: ctx.mcpReq.signal };
  const sent: Promise<unknown>[] = [];
  if (token !== undefined) {
    controls.progress = (update) => {
      sent.push(
        ctx.mcpReq
          .notify({ method: "notifications/progress", params: { progressToken: token, ...update } })
          .catch(() => {}),
      );
    };
  }
  return { controls, delivered: () => Promise.all(sent) };
}
