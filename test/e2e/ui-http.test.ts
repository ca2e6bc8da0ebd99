import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawRequest, startUi, type UiProcess } from "../helpers/browser.js";
import { type Seeded, seedWorkspace } from "../helpers/ui-seed.js";
import { cairnAsync, STORE_UNDER_TEST, scratchDir } from "../helpers/workspace.js";

/**
 * `cairn ui`'s rules at the HTTP level, where a test can forge what a browser never sends (a
 * rebound Host, a foreign Origin, any method). No browser needed: these run everywhere.
 */

let seeded: Seeded;
let ui: UiProcess;

/** Bytes written to a new connection as they are, and what came back before the server closed it. */
function rawExchange(
  port: number,
  bytes: string,
): Promise<{ status: number; headers: Record<string, string>; closed: boolean }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let answer = "";
    const done = (closed: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      const [head = ""] = answer.split("\r\n\r\n");
      const [statusLine = "", ...lines] = head.split("\r\n");
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(":");
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({ status: Number(statusLine.split(" ")[1]), headers, closed });
    };
    // A connection the server leaves open is a finding too: answer with what arrived.
    const timer = setTimeout(() => done(false), 5_000);
    socket.setEncoding("utf8").on("data", (chunk: string) => {
      answer += chunk;
    });
    socket.on("close", () => done(true));
    socket.on("error", (error: NodeJS.ErrnoException) =>
      error.code === "ECONNRESET" ? undefined : reject(error),
    );
    socket.write(bytes);
  });
}

beforeAll(async () => {
  seeded = await seedWorkspace({ goals: false });
  ui = await startUi(seeded.dir);
}, 60_000);

afterAll(async () => {
  await ui?.stop();
  await seeded?.close();
  seeded?.cleanup();
});

describe("cairn ui over HTTP", () => {
  const host = () => ({ Host: `127.0.0.1:${ui.port}` });
  const auth = () => ({ ...host(), Authorization: `Bearer ${ui.token}` });
  /** A path of the dashboard: everything lives under the launch's prefix. */
  const at = (path: string) => `${ui.prefix}${path}`;

  it("answers only loopback Host names with its own port (DNS rebinding gets 421)", async () => {
    for (const Host of [
      "evil.test",
      `evil.test:${ui.port}`,
      `localhost.:${ui.port}`,
      `127.1:${ui.port}`,
      `localhost:${ui.port + 1}`,
    ]) {
      const response = await rawRequest(ui.port, { path: at("/api/now"), headers: { ...auth(), Host } });
      expect(response.status, Host).toBe(421);
    }
    // An absolute-form target names the host the request is for (RFC 9112 §3.2.2): the same rule.
    for (const path of [
      "http://evil.test/api/now",
      `http://evil.test:${ui.port}/api/now`,
      "https://x/api/now",
    ]) {
      const response = await rawRequest(ui.port, { path, headers: auth() });
      expect(response.status, path).toBe(421);
    }
    const own = await rawRequest(ui.port, {
      path: `http://localhost:${ui.port}${ui.prefix}/api/now`,
      headers: auth(),
    });
    expect(own.status).toBe(200);
    // No Host at all: misdirected like any other Host outside the list.
    const none = await rawRequest(ui.port, { path: at("/api/now"), headers: { ...auth(), Host: "" } });
    expect(none.status).toBe(421);
    for (const Host of [
      `localhost:${ui.port}`,
      `LOCALHOST:${ui.port}`,
      `[::1]:${ui.port}`,
      `127.0.0.1:${ui.port}`,
    ]) {
      const response = await rawRequest(ui.port, { path: at("/api/now"), headers: { ...auth(), Host } });
      expect(response.status, Host).toBe(200);
    }
  });

  it("gives every non-GET method 405, and never reads a body", async () => {
    for (const method of ["POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE"]) {
      for (const path of ["/", "/api/now", "/api/task/add", "/events"].map(at)) {
        const response = await rawRequest(ui.port, {
          method,
          path,
          headers: { ...auth(), "Content-Type": "text/plain" },
          body: "title=x",
        });
        expect(response.status, `${method} ${path}`).toBe(405);
        expect(response.headers.allow).toBe("GET, HEAD");
      }
    }
    expect(
      (await rawRequest(ui.port, { method: "HEAD", path: at("/api/now"), headers: auth() })).status,
    ).toBe(200);
    // HEAD of the live stream answers its headers and ends: it held one of the 16 places, silent.
    const head = await Promise.race([
      rawRequest(ui.port, { method: "HEAD", path: at("/events"), headers: auth() }),
      new Promise<undefined>((resolve) => setTimeout(resolve, 3_000)),
    ]);
    expect(head?.status).toBe(200);
    expect(head?.headers["content-type"]).toContain("text/event-stream");
  });

  it("refuses cross-site requests and sends no CORS header anywhere", async () => {
    const cross = await rawRequest(ui.port, {
      path: at("/api/now"),
      headers: { ...auth(), "Sec-Fetch-Site": "cross-site" },
    });
    expect(cross.status).toBe(403);
    const origin = await rawRequest(ui.port, {
      path: at("/api/now"),
      headers: { ...auth(), Origin: `http://evil.test:${ui.port}` },
    });
    expect(origin.status).toBe(403);
    for (const path of ["/", "/api/now", "/api/system", "/nope", "/assets/favicon.svg"].map(at)) {
      const response = await rawRequest(ui.port, { path, headers: { ...auth(), Origin: ui.origin } });
      expect(
        Object.keys(response.headers).filter((name) => name.startsWith("access-control-")),
        path,
      ).toEqual([]);
      expect(response.headers["content-security-policy"], path).toContain("default-src 'none'");
    }
  });

  it("needs this launch's token, exchanged once for an HttpOnly SameSite=Strict cookie scoped to the launch's prefix", async () => {
    expect((await rawRequest(ui.port, { path: at("/api/now"), headers: host() })).status).toBe(401);
    expect((await rawRequest(ui.port, { path: at("/?k=wrong"), headers: host() })).status).toBe(401);
    const exchanged = await rawRequest(ui.port, {
      path: at(`/tasks?k=${ui.token}&status=open`),
      headers: host(),
    });
    expect(exchanged.status).toBe(302);
    expect(exchanged.headers.location).toBe(`${ui.prefix}/tasks?status=open`);
    // The link's path leads back to this dashboard however it is spelt, never to another site.
    for (const path of [`/.//evil.test/?k=${ui.token}`, `//x/..//evil.test/a?k=${ui.token}`].map(at)) {
      const away = await rawRequest(ui.port, { path, headers: host() });
      const location = String(away.headers.location);
      expect(location.startsWith(`${ui.prefix}/`), path).toBe(true);
      expect(location.slice(ui.prefix.length), path).toMatch(/^\/(?![/\\])/);
    }
    const cookie = String(exchanged.headers["set-cookie"]);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    // Cookies ignore ports: scoped to `/`, this one would reach every listener on 127.0.0.1.
    expect(cookie).toMatch(new RegExp(`; Path=${ui.prefix}(;|$)`));
    expect(ui.prefix).toMatch(/^\/[A-Za-z0-9_-]{22,}$/);
    expect(ui.prefix).not.toContain(ui.token);
    // Outside the prefix there is nothing, token or not, and no answer names the prefix.
    for (const path of ["/", "/api/now", "/events", "/assets/favicon.svg", `/?k=${ui.token}`, "/x/.."]) {
      for (const headers of [host(), auth()]) {
        const outside = await rawRequest(ui.port, { path, headers });
        expect(outside.status, path).toBe(404);
        expect(JSON.stringify(outside), path).not.toContain(ui.prefix.slice(1));
      }
    }
    const withCookie = await rawRequest(ui.port, {
      path: at("/api/now"),
      headers: { ...host(), Cookie: cookie.split(";")[0] as string },
    });
    expect(withCookie.status).toBe(200);
  });

  it("answers what node refuses before any route runs with the same security headers, and hangs up", async () => {
    const reference = await rawRequest(ui.port, { path: at("/api/now"), headers: host() });
    const security = [
      "content-security-policy",
      "x-content-type-options",
      "x-frame-options",
      "referrer-policy",
      "cross-origin-opener-policy",
      "cross-origin-resource-policy",
    ];
    for (const name of security) expect(reference.headers[name], name).toBeTruthy();
    const line = (path: string) => `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${ui.port}\r\n`;
    const cases: [string, string, number][] = [
      ["a 20 KB header", `${line(at("/api/now"))}X-Big: ${"a".repeat(20_000)}\r\n\r\n`, 431],
      ["a malformed request line", "NOT AN HTTP REQUEST\r\n\r\n", 400],
      ["a header name with a space", `${line(at("/api/now"))}Bad Name: x\r\n\r\n`, 400],
      ["no Host", `GET ${at("/api/now")} HTTP/1.1\r\n\r\n`, 421],
      ["an Expect it cannot meet", `${line(at("/api/now"))}Expect: tea\r\n\r\n`, 417],
    ];
    for (const [what, bytes, status] of cases) {
      const answer = await rawExchange(ui.port, bytes);
      expect(answer.status, what).toBe(status);
      for (const name of security)
        expect(answer.headers[name], `${what}: ${name}`).toBe(reference.headers[name]);
      expect(answer.closed, `${what}: connection closed`).toBe(true);
    }
  });

  it("serves only read views, never a write command, and index.html is never cached", async () => {
    for (const path of ["/api/task/add?title=x", "/api/export", "/api/task/claim?task=T-1", "/api/sweep"].map(
      at,
    )) {
      expect((await rawRequest(ui.port, { path, headers: auth() })).status, path).toBe(404);
    }
    const index = await rawRequest(ui.port, { path: at("/goals/G-1"), headers: auth() });
    expect(index.headers["cache-control"]).toBe("no-store");
    const asset = new RegExp(`src="${ui.prefix}/assets/([^"]+)"`).exec(index.body)?.[1] as string;
    const script = await rawRequest(ui.port, { path: at(`/assets/${asset}`), headers: auth() });
    expect(script.headers["cache-control"]).toContain("immutable");
    const shown = await rawRequest(ui.port, { path: at("/api/task/show?task=T-2"), headers: auth() });
    const cli = await seeded.cli(["task", "show", "T-2"]);
    expect(JSON.parse(shown.body)).toEqual(cli);
  });

  it("answers a malformed view path or an inherited parameter name 400, never an internal error", async () => {
    for (const path of [
      "/api/%E0%A4%A",
      "/api/task/%ZZ",
      "/api/board?constructor=1",
      "/api/board?__proto__=1",
      "/api/task/list?toString=x",
      "/api/now?hasOwnProperty=1",
    ].map(at)) {
      const response = await rawRequest(ui.port, { path, headers: auth() });
      expect(response.status, `${path}: ${response.body}`).toBe(400);
      expect(JSON.parse(response.body)).toMatchObject({ error: { kind: "usage" } });
    }
  });

  it("keeps live streams bounded when many open at once: 16 at most, the rest told to retry", async () => {
    // On PostgreSQL each stream waits on the server before it is counted: all of them got in.
    const streams = await Promise.all(
      Array.from({ length: 40 }, () =>
        rawRequest(ui.port, { path: at("/events"), headers: auth(), readMs: 1_500 }),
      ),
    );
    const statuses = streams.map((stream) => stream.status);
    expect(statuses.filter((status) => status === 200).length).toBeLessThanOrEqual(16);
    expect(statuses.filter((status) => status === 503).length).toBeGreaterThanOrEqual(24);
    // Closed streams give their places back.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await rawRequest(ui.port, { path: at("/events"), headers: auth(), readMs: 300 })).status).toBe(
      200,
    );
  });

  it("replays the events after Last-Event-ID on a new stream", async () => {
    const recent = await rawRequest(ui.port, { path: at("/api/activity?limit=3"), headers: auth() });
    const ids = (JSON.parse(recent.body) as { events: { id: number }[] }).events.map((e) => e.id);
    const oldest = Math.min(...ids);
    const stream = await rawRequest(ui.port, {
      path: at("/events"),
      headers: { ...auth(), "Last-Event-ID": String(oldest - 1) },
      readMs: 400,
    });
    expect(stream.headers["content-type"]).toContain("text/event-stream");
    const replayed = [...stream.body.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
    expect(replayed.slice(0, 3)).toEqual([...ids].sort((a, b) => a - b));
  });

  it("System reports where the database is and its size, on either store", async () => {
    const system = JSON.parse(
      (await rawRequest(ui.port, { path: at("/api/system"), headers: auth() })).body,
    ) as {
      database: string;
      database_bytes: number;
    };
    // A seeded workspace takes well over 64 KB on either store (tables, indexes, the journal).
    expect(system.database_bytes).toBeGreaterThan(64 * 1024);
    if (STORE_UNDER_TEST === "postgres") {
      expect(system.database).toMatch(/^postgres(ql)?:\/\/.* \(schema [A-Za-z0-9_-]+\)$/);
      expect(system.database).not.toMatch(/:[^@/]*@/);
    } else expect(system.database).toMatch(/\.cairn\/cairn\.db$/);
  });

  it("starts only in a workspace, and offers no way to listen beyond loopback", async () => {
    const empty = scratchDir();
    try {
      const outside = await cairnAsync(empty.dir, ["ui", "--port", "0"]);
      expect(outside.code).toBe(4);
      expect(outside.stderr).toContain("no cairn workspace");
    } finally {
      empty.cleanup();
    }
    const host = await cairnAsync(seeded.dir, ["ui", "--host", "0.0.0.0"]);
    expect(host.code).toBe(2);
    expect(host.stderr).toContain("127.0.0.1");
  });
});
