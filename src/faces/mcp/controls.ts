import type { ClientCapabilities, ServerContext } from "@modelcontextprotocol/server";
import type { CallControls, ProgressUpdate } from "../../commands/context.js";
import { showInvisible } from "../../kernel/visible-text.js";
import { askPersonVia, asksPeople } from "./ask-person.js";
import { progressLine } from "./logging.js";

/**
 * Progress a person reads (a client's log pane, its progress bar) may quote a command's output:
 * its control characters are shown by their codes, never sent for a terminal to act on, as the
 * CLI draws them.
 */
const shown = (update: ProgressUpdate): ProgressUpdate =>
  update.message === undefined ? update : { ...update, message: showInvisible(update.message) };

/**
 * The request's cancellation signal, and its progress: every long run logs its progress lines
 * (`notifications/message`, filtered by the client's `logging/setLevel`), and sends progress
 * notifications too when (and only when) the client sent a progress token with its call. A
 * client that declared form elicitation (`client`) also lends the person at it, who then answers
 * for destructive calls.
 */
export function callControls(
  ctx: ServerContext,
  client: ClientCapabilities | undefined,
): {
  controls: CallControls;
  delivered: () => Promise<unknown>;
} {
  const token = ctx.mcpReq._meta?.progressToken;
  const sent: Promise<unknown>[] = [];
  const controls: CallControls = {
    // Every tool call answers a model; prompts and resource reads go through dispatch without these.
    audience: "model",
    signal: ctx.mcpReq.signal,
    ...(asksPeople(client) ? { askPerson: askPersonVia(ctx) } : {}),
    progress: (raw) => {
      const update = shown(raw);
      sent.push(ctx.mcpReq.log("info", progressLine(update), "cairn").catch(() => {}));
      // The last update of a counted run (n of n) goes out as a log line only: the result says
      // the same, and a progress notification written just before the result races it in the
      // SDK's client, which drops one it reads after the result and reports a protocol error
      // (modelcontextprotocol/typescript-sdk#2580); a client may then give up on the server.
      if (token === undefined || (update.total !== undefined && update.progress >= update.total)) return;
      sent.push(
        ctx.mcpReq
          .notify({ method: "notifications/progress", params: { progressToken: token, ...update } })
          .catch(() => {}),
      );
    },
  };
  return { controls, delivered: () => Promise.all(sent) };
}
