import { type McpServer, ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server";
import { quoteValue } from "../../kernel/text.js";
import type { Handler } from "./wrap-handler.js";

type Checked = { ok: true } | { ok: false; reason: string; message?: string };

interface Internals {
  _requestHandlers: Map<string, Handler>;
  _negotiatedWireCodec(): { validateRequest(method: string, request: unknown): Checked };
}

/** The schema's complaints, one `path: message` each, rather than the validator's JSON dump. */
function complaints(message: string | undefined): string {
  try {
    const issues = JSON.parse(message ?? "") as { path?: unknown[]; message?: string }[];
    return issues.map((issue) => `${(issue.path ?? []).join(".") || "params"}: ${issue.message}`).join("; ");
  } catch {
    return quoteValue(message ?? "");
  }
}

/**
 * A request whose params do not fit the protocol's schema is the client's mistake: JSON-RPC
 * invalid params (-32602) naming the field, as `tools/call` answers. The SDK checks every other
 * method too, but reports a failed check as an internal error (-32603) carrying the validator's
 * raw output. Installed last, around every handler the server has by then.
 */
export function malformedParamsAreInvalid(server: McpServer): void {
  const inner = server.server as unknown as Internals;
  for (const [method, handler] of inner._requestHandlers) {
    // The SDK's own tools/call check already answers invalid params.
    if (method === "tools/call") continue;
    inner._requestHandlers.set(method, async (request, ctx) => {
      const checked = inner._negotiatedWireCodec().validateRequest(method, request);
      if (!checked.ok && checked.reason === "invalid") {
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          `invalid ${method} request: ${complaints(checked.message)}`,
        );
      }
      return handler(request, ctx);
    });
  }
}
