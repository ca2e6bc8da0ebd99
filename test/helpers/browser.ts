import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer, request } from "node:http";
import { type Browser, chromium } from "playwright-core";
import { CAIRN_BIN, cleanEnv } from "./workspace.js";

/**
 * Real headless Chromium for the dashboard's tests: Debian's `chromium` package driven by
 * playwright-core. Where it is missing the browser tests are skipped with a message saying how
 * to enable them, except under CI, where a missing browser fails the run.
 */
export const CHROMIUM = process.env.CAIRN_CHROMIUM ?? "/usr/bin/chromium";

export function browserAvailable(): boolean {
  if (existsSync(CHROMIUM)) return true;
  if (process.env.CI)
    throw new Error(`CI runs the browser tests: ${CHROMIUM} is missing (apt-get install chromium)`);
  process.stderr.write(
    `\n*** cairn ui browser tests SKIPPED: no Chromium at ${CHROMIUM}.\n*** Enable them with: sudo apt-get install -y chromium (or set CAIRN_CHROMIUM to a Chromium binary).\n\n`,
  );
  return false;
}

/** Playwright gives every launch a new, empty profile directory of its own. */
export function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--font-render-hinting=none",
      ...extraArgs,
    ],
  });
}

export interface UiProcess {
  url: string;
  port: number;
  token: string;
  origin: string;
  /** The launch's path prefix (`/…`), under which every URL of the dashboard lives. */
  prefix: string;
  /** The dashboard's root: origin and prefix, no trailing slash. */
  base: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Start the built `cairn ui --port 0` in a workspace and read the URL it prints. */
export function startUi(dir: string, args: string[] = []): Promise<UiProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CAIRN_BIN, "ui", "--port", "0", ...args], {
      cwd: dir,
      env: cleanEnv(),
    });
    let out = "";
    let err = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      err += chunk;
    });
    child.on("exit", (code) => reject(new Error(`cairn ui exited (${code}): ${err}`)));
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
      const match = /(http:\/\/127\.0\.0\.1:(\d+)(\/[A-Za-z0-9_-]+)?\/\?k=([A-Za-z0-9_-]+))/.exec(out);
      if (!match) return;
      const port = Number(match[2]);
      const prefix = match[3] ?? "";
      resolve({
        url: match[1] as string,
        port,
        token: match[4] as string,
        origin: `http://127.0.0.1:${port}`,
        prefix,
        base: `http://127.0.0.1:${port}${prefix}`,
        child,
        stop: () =>
          new Promise((done) => {
            child.removeAllListeners("exit");
            child.once("exit", () => done());
            child.kill("SIGTERM");
          }),
      });
    });
  });
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A request with exactly these headers (a browser would not let a test forge Host). */
export function rawRequest(
  port: number,
  options: {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
    readMs?: number;
  },
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const headers = { ...(options.headers ?? {}) };
    // An empty Host stands for none at all (node would otherwise fill in its own).
    const setHost = headers.Host !== "";
    if (!setHost) delete headers.Host;
    const req = request(
      {
        setHost,
        agent: false,
        host: "127.0.0.1",
        port,
        method: options.method ?? "GET",
        path: options.path ?? "/",
        headers,
      },
      (res) => {
        let body = "";
        res.setEncoding("utf8").on("data", (chunk: string) => {
          body += chunk;
        });
        const done = () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
        res.on("end", done);
        // A stream (SSE) never ends: answer with what arrived in time.
        if (options.readMs)
          setTimeout(() => {
            req.destroy();
            done();
          }, options.readMs);
      },
    );
    req.on("error", (error) => (options.readMs ? undefined : reject(error)));
    req.end(options.body);
  });
}

export interface FlakyLink {
  port: number;
  origin: string;
  /** Cut every open connection and refuse new ones, like a network that went away. */
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

/**
 * An HTTP hop in front of `cairn ui` that a test can cut, to drop a page's live stream the way a
 * lost network does. It forwards requests as they are, naming the real server in Host (and in
 * Origin, which a module script's request carries even from the same origin).
 */
export function flakyLink(target: number): Promise<FlakyLink> {
  let down = false;
  const sockets = new Set<import("node:net").Socket>();
  const server = createServer((incoming, outgoing) => {
    if (down) {
      incoming.socket.destroy();
      return;
    }
    const forward = request(
      {
        host: "127.0.0.1",
        port: target,
        method: incoming.method,
        path: incoming.url,
        headers: {
          ...incoming.headers,
          host: `127.0.0.1:${target}`,
          ...(incoming.headers.origin ? { origin: `http://127.0.0.1:${target}` } : {}),
        },
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forward.on("error", () => outgoing.destroy());
    incoming.pipe(forward);
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as { port: number }).port;
      resolve({
        port,
        origin: `http://127.0.0.1:${port}`,
        cut() {
          down = true;
          for (const socket of sockets) socket.destroy();
        },
        restore() {
          down = false;
        },
        close: () =>
          new Promise((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
