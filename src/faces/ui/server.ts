import {
  createServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
  STATUS_CODES,
} from "node:http";
import type { Socket } from "node:net";
import type { Session } from "../../commands/context.js";
import { crypto } from "../../kernel/builtins.js";
import { callView } from "./api.js";
import { type Assets, loadAssets } from "./assets.js";
import { authorized, checkRequest, SECURITY_HEADERS, sameToken, sessionCookie } from "./guard.js";
import { LiveHub } from "./live.js";

/**
 * `cairn ui`'s listener: node's own HTTP server on 127.0.0.1 (there is no option to bind
 * anything else), serving the built front end, read views of the command table under /api/,
 * and live changes on /events, all under this launch's path prefix (guard.ts says why). No
 * route writes; no request body is ever read.
 */

export interface UiServer {
  url: string;
  port: number;
  token: string;
  close(): Promise<void>;
}

export interface UiOptions {
  port: number;
  /** How often the watcher looks at the store's change signal while a page listens. */
  pollMs?: number;
}

type Send = (status: number, type: string, body: string | Buffer, headers?: Record<string, string>) => void;

function sender(request: IncomingMessage, response: ServerResponse): Send {
  return (status, type, body, headers = {}) => {
    response.writeHead(status, {
      ...SECURITY_HEADERS,
      "Content-Type": type,
      "Cache-Control": "no-store",
      ...headers,
    });
    response.end(request.method === "HEAD" ? undefined : body);
  };
}

/** `/api/task/show` → "task show"; undefined when a segment's percent-encoding is broken. */
function viewName(path: string): string | undefined {
  try {
    return path.split("/").filter(Boolean).map(decodeURIComponent).join(" ");
  } catch {
    return undefined;
  }
}

const TEXT = "text/plain; charset=utf-8";
const JSON_TYPE = "application/json; charset=utf-8";

async function route(
  request: IncomingMessage,
  response: ServerResponse,
  context: { session: Session; assets: Assets; hub: LiveHub; port: number; token: string; prefix: string },
): Promise<void> {
  const send = sender(request, response);
  const verdict = checkRequest(request, context.port);
  if (!verdict.ok) {
    // A refused request's body is never read: drop it, and the connection with it.
    request.resume();
    return send(verdict.status, TEXT, `${verdict.message}\n`, { ...verdict.headers, Connection: "close" });
  }
  // A fixed base: the Host header is checked, but URLs are never built from it.
  const url = new URL(request.url ?? "/", "http://127.0.0.1");
  const { prefix } = context;
  // Nothing lives outside the prefix, and nothing there names it.
  if (url.pathname !== prefix && !url.pathname.startsWith(`${prefix}/`)) {
    return send(404, TEXT, "nothing here: open the URL printed by `cairn ui`\n");
  }
  const path = url.pathname.slice(prefix.length) || "/";
  const offered = url.searchParams.get("k");
  if (offered !== null) {
    if (!sameToken(offered, context.token))
      return send(401, TEXT, "this link's token is not this launch's\n");
    url.searchParams.delete("k");
    // The prefix, then one slash: the browser stays on this dashboard however the path is spelt.
    const location = `${prefix}/${path.replace(/^\/+/, "")}${url.search}`;
    const cookie = sessionCookie(context.port, context.token, prefix);
    return send(302, TEXT, "", { Location: location, "Set-Cookie": cookie });
  }
  if (!authorized(request, context.port, context.token)) {
    return send(401, TEXT, "open the URL printed by `cairn ui` (it carries this launch's token)\n");
  }
  if (path === "/events") {
    // HEAD gets the stream's headers and nothing else: an open stream that can send nothing
    // would hold one of the live places until its client went away.
    if (request.method === "HEAD") return send(200, "text/event-stream; charset=utf-8", "");
    const header = request.headers["last-event-id"];
    const raw = typeof header === "string" ? header : (url.searchParams.get("after") ?? undefined);
    const after = raw !== undefined && /^\d+$/.test(raw) ? Number(raw) : undefined;
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) response.setHeader(name, value);
    return context.hub.open(response, after);
  }
  if (path.startsWith("/api/")) {
    const name = viewName(path.slice(5));
    if (name === undefined) {
      const body = {
        error: { kind: "usage", message: "the view's path is not valid percent-encoding", hint: null },
      };
      return send(400, JSON_TYPE, JSON.stringify(body));
    }
    const answer = await callView(context.session, name, url.searchParams);
    return send(answer.status, JSON_TYPE, JSON.stringify(answer.body));
  }
  if (path.startsWith("/assets/")) {
    const asset = context.assets.get(path.slice(8));
    if (!asset) return send(404, TEXT, "no such asset\n");
    const cache = asset.immutable ? "public, max-age=31536000, immutable" : "no-cache";
    return send(200, asset.type, asset.body, { "Cache-Control": cache });
  }
  // Every other path is a view of the single-page app: deep links survive a reload.
  return send(200, "text/html; charset=utf-8", context.assets.index);
}

/** What node refuses before any route runs, by its error code; anything else is a bad request. */
const CLIENT_ERROR_STATUS: Record<string, number> = {
  HPE_HEADER_OVERFLOW: 431,
  HPE_CHUNK_EXTENSIONS_OVERFLOW: 413,
  ERR_HTTP_REQUEST_TIMEOUT: 408,
};

/**
 * A request node could not take (a header block past its limit, a request line it cannot parse,
 * one slower than requestTimeout) never reaches a route: node would answer it bare. It gets the
 * headers every answer carries, written to the socket by hand, and the connection is closed.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Socket, inFlight?: ServerResponse): void {
  // Nothing to say to a client that went away, or after an answer begun (node's own rule): bytes
  // following a request that said `Connection: close` arrive while its answer is still going out.
  if (error.code === "ECONNRESET" || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const status = CLIENT_ERROR_STATUS[error.code ?? ""] ?? 400;
  const reason = STATUS_CODES[status] ?? "Bad Request";
  const body = `${reason.toLowerCase()}\n`;
  const headers = {
    ...SECURITY_HEADERS,
    "Content-Type": TEXT,
    "Cache-Control": "no-store",
    "Content-Length": String(Buffer.byteLength(body)),
    Connection: "close",
  };
  const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  socket.end(`HTTP/1.1 ${status} ${reason}\r\n${head.join("")}\r\n${body}`);
}

export async function startUiServer(session: Session, options: UiOptions): Promise<UiServer> {
  const token = crypto().randomBytes(32).toString("base64url");
  // Apart from the token: the prefix stays in the address bar and the history, where it must not
  // be enough to read the workspace.
  const prefix = `/${crypto().randomBytes(16).toString("base64url")}`;
  const assets = loadAssets(prefix);
  const hub = new LiveHub(session, options.pollMs ?? 100);
  let port = options.port;
  // The answer each connection is giving until it is sent, which a client error must not follow.
  const answering = new WeakMap<Socket, ServerResponse>();
  // No Host is a misdirected request like any other (421, from checkRequest), not node's bare 400.
  const server: Server = createServer({ requireHostHeader: false }, (request, response) => {
    answering.set(request.socket, response);
    response.once("finish", () => {
      if (answering.get(request.socket) === response) answering.delete(request.socket);
    });
    route(request, response, { session, assets, hub, port, token, prefix }).catch((error: unknown) => {
      if (!response.headersSent) {
        response.writeHead(500, { ...SECURITY_HEADERS, "Content-Type": TEXT });
        response.end(`internal error: ${(error as Error).message}\n`);
      } else response.end();
    });
  });
  server.requestTimeout = 30_000;
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Socket) =>
    answerClientError(error, socket, answering.get(socket)),
  );
  // An Expect other than 100-continue: node's own 417 would be bare.
  server.on("checkExpectation", (request: IncomingMessage, response: ServerResponse) => {
    request.resume();
    sender(request, response)(417, TEXT, "expectation failed: the dashboard answers GET and HEAD only\n", {
      Connection: "close",
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, "127.0.0.1", () => resolve());
  });
  port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}${prefix}/?k=${token}`,
    port,
    token,
    async close() {
      hub.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
