import type { IncomingMessage } from "node:http";
import { crypto } from "../../kernel/builtins.js";

/**
 * The dashboard's request rules, checked before any route runs. Binding 127.0.0.1 is not
 * enough on its own: a page on any site can point a rebound DNS name at loopback, so the Host
 * must name loopback itself, cross-site requests are refused, and every read needs the
 * per-launch token (as a cookie once exchanged, or a bearer header for scripts).
 *
 * Cookies ignore ports, and every port of 127.0.0.1 is the same site: a cookie scoped to `/`
 * would go to any other listener on loopback the browser visits (another user's, a dev server).
 * So every URL of the dashboard lives under a per-launch path prefix, as unguessable as the
 * token and never sent anywhere but here, and the cookie is scoped to it.
 */

export type Verdict =
  | { ok: true }
  | { ok: false; status: 401 | 403 | 405 | 421; message: string; headers?: Record<string, string> };

const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** `localhost:PORT`, `127.0.0.1:PORT` or `[::1]:PORT`, exactly; anything else is a rebound name. */
export function hostAllowed(host: string | undefined, port: number): boolean {
  if (!host) return false;
  const match = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(host.trim().toLowerCase());
  if (!match) return false;
  return LOOPBACK_NAMES.has(match[1] as string) && Number(match[2]) === port;
}

/** Origins this server answers for: the Host allowlist, as origins. */
export function ownOrigins(port: number): Set<string> {
  return new Set([...LOOPBACK_NAMES].map((name) => `http://${name}:${port}`));
}

export function cookieName(port: number): string {
  return `cairn_ui_${port}`;
}

export function sameToken(given: string | undefined, token: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && crypto().timingSafeEqual(a, b);
}

/** Every value sent under `name`: a page on another port may set one of the same name on `/`. */
function cookieValues(request: IncomingMessage, name: string): string[] {
  const values: string[] = [];
  for (const part of (request.headers.cookie ?? "").split(";")) {
    const [key, ...rest] = part.trim().split("=");
    if (key === name) values.push(rest.join("="));
  }
  return values;
}

/**
 * The host a request is for: its Host header, or, for an absolute-form target
 * (`GET http://host/path`), that target's authority, which takes precedence (RFC 9112 §3.2.2).
 * Undefined when the target is neither a path nor an http URL.
 */
function requestedHost(request: IncomingMessage): string | undefined {
  const target = request.url ?? "/";
  if (target.startsWith("/")) return request.headers.host;
  try {
    const url = new URL(target);
    return url.protocol === "http:" && url.username === "" && url.password === "" ? url.host : undefined;
  } catch {
    return undefined;
  }
}

/** Host, method and origin: the checks that hold for every request, token or not. */
export function checkRequest(request: IncomingMessage, port: number): Verdict {
  if (!hostAllowed(request.headers.host, port) || !hostAllowed(requestedHost(request), port)) {
    return {
      ok: false,
      status: 421,
      message: "misdirected request: this dashboard answers only to a loopback host",
    };
  }
  if (request.method !== "GET" && request.method !== "HEAD") {
    return {
      ok: false,
      status: 405,
      message: "the dashboard is read-only: GET and HEAD only",
      headers: { Allow: "GET, HEAD" },
    };
  }
  const site = request.headers["sec-fetch-site"];
  if (site !== undefined && site !== "same-origin" && site !== "none") {
    return { ok: false, status: 403, message: "cross-site requests are refused" };
  }
  const origin = request.headers.origin;
  if (origin !== undefined && !ownOrigins(port).has(origin)) {
    return { ok: false, status: 403, message: "cross-origin requests are refused" };
  }
  return { ok: true };
}

/** The token, from the exchanged cookie or an `Authorization: Bearer` header. */
export function authorized(request: IncomingMessage, port: number, token: string): boolean {
  const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1];
  return (
    cookieValues(request, cookieName(port)).some((value) => sameToken(value, token)) ||
    sameToken(bearer, token)
  );
}

/** The exchanged cookie: for this launch's prefix only, never readable by a script, never sent cross-site. */
export function sessionCookie(port: number, token: string, prefix: string): string {
  return `${cookieName(port)}=${token}; HttpOnly; SameSite=Strict; Path=${prefix}`;
}

/** Headers every response carries: nothing inline, nothing framed, nothing shared cross-origin. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "Content-Security-Policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  "X-Content-Type-Options": "nosniff",
  "X-Frame-Options": "DENY",
  "Referrer-Policy": "no-referrer",
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Resource-Policy": "same-origin",
};
