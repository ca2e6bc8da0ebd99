import { randomUUID } from "node:crypto";
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/server";
import { Session } from "../../src/commands/context.js";
import { createServer } from "../../src/faces/mcp/server.js";
import { cleanEnv } from "./workspace.js";

/**
 * The very server `cairn mcp` serves on stdio (createServer, the same session binding), served
 * instead over the SDK's Streamable HTTP transport in this process, one MCP session per
 * `initialize`: what HTTP-only clients such as the conformance suite speak.
 */
export async function serveHttp(cwd: string): Promise<{ url: string; close: () => Promise<void> }> {
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  const opened: Session[] = [];

  async function transportFor(request: Request): Promise<WebStandardStreamableHTTPServerTransport> {
    const id = request.headers.get("mcp-session-id");
    const known = id ? sessions.get(id) : undefined;
    if (known) return known;
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sessionId) => {
        sessions.set(sessionId, transport);
      },
    });
    const session = new Session({ cwd, env: cleanEnv() });
    opened.push(session);
    await createServer(session, "all").connect(transport);
    return transport;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (typeof value === "string") headers.set(name, value);
    }
    const request = new Request(`http://${req.headers.host}${req.url}`, {
      method: req.method,
      headers,
      body: req.method === "GET" || req.method === "HEAD" ? undefined : Buffer.concat(chunks),
    });
    const response = await (await transportFor(request)).handleRequest(request);
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (response.body) for await (const chunk of response.body) res.write(chunk);
    res.end();
  }

  const http = createHttpServer((req, res) => {
    handle(req, res).catch((error: Error) => {
      if (!res.headersSent) res.writeHead(500);
      res.end(error.message);
    });
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: async () => {
      for (const transport of sessions.values()) await transport.close();
      for (const session of opened) await session.close();
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}
