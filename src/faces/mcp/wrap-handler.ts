import type { McpServer, ServerContext } from "@modelcontextprotocol/server";

export type Handler = (request: { params?: Record<string, unknown> }, ctx: ServerContext) => Promise<unknown>;

/** Replace a method's handler with one that wraps the current one (never re-implements it). */
export function wrapHandler(server: McpServer, method: string, around: (original: Handler) => Handler): void {
  const original = (
    server.server as unknown as { _getRequestHandler(m: string): Handler | undefined }
  )._getRequestHandler(method);
  if (!original) throw new Error(`internal: the MCP server has no ${method} handler`);
  server.server.removeRequestHandler(method as never);
  server.server.setRequestHandler(method as never, around(original) as never);
}
