import { type CairnError, conflict, operational } from "../../kernel/outcome.js";
import { type PgTarget, redactUrlsIn } from "./location.js";

export const describeTarget = (t: PgTarget) =>
  `${t.user}@${t.host}:${t.port}/${t.database} (schema ${t.schema})`;

/** Failures of the connection itself, after which the client is replaced on the next call. */
export function isConnectionError(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  const message = (error as Error)?.message ?? "";
  if (typeof code === "string" && /^(08|57P)/.test(code)) return true;
  if (typeof code === "string" && /^E[A-Z]+$/.test(code)) return true; // ECONNRESET, ECONNREFUSED, EPIPE …
  return /Connection terminated|connection timeout|Query read timeout|Client has encountered a connection error|not queryable/i.test(
    message,
  );
}

/**
 * Turn a driver error into a typed one that names the server (never the password) and says
 * what to do. Unknown errors keep their message: it comes from the server, not from the URL.
 */
export function translatePgError(error: unknown, target: PgTarget): CairnError | undefined {
  const code = (error as { code?: unknown })?.code;
  const detail = redactPasswords((error as Error)?.message ?? String(error));
  const where = describeTarget(target);
  if (code === "28P01" || code === "28000") {
    return operational(
      `PostgreSQL at ${target.host}:${target.port} refused user ${target.user}: ${detail}`,
      "set the password in PGPASSWORD or ~/.pgpass (it is never read from cairn.toml)",
    );
  }
  // The driver's own words when the server asks for a password and none was given (no SQLSTATE).
  if (code === undefined && /password must be a string/i.test(detail)) {
    return operational(
      `PostgreSQL at ${target.host}:${target.port} asks user ${target.user} for a password and none was given`,
      "set the password in PGPASSWORD or ~/.pgpass (it is never read from cairn.toml)",
    );
  }
  if (
    code === "ECONNREFUSED" ||
    code === "ENOTFOUND" ||
    code === "EHOSTUNREACH" ||
    code === "EAI_AGAIN" ||
    code === "ETIMEDOUT"
  ) {
    return operational(
      `cannot reach PostgreSQL at ${target.host}:${target.port} (${code})`,
      "check the host and port in the URL (as given to --store or --to, or in [store] url or CAIRN_STORE_URL) and that the server is running",
    );
  }
  if (code === "3D000") {
    return operational(
      `PostgreSQL database ${target.database} does not exist on ${target.host}:${target.port}`,
      "create it, or fix the database name in the URL (as given to --store or --to, or in [store] url or CAIRN_STORE_URL)",
    );
  }
  if (code === "57014") {
    return operational(
      `a statement ran past the statement timeout on ${where}; nothing was saved`,
      "retry; if it persists, look for a long-running query on the server",
    );
  }
  if (code === "55P03") {
    return operational(
      `the workspace stayed locked by another writer past the lock timeout on ${where}; nothing was saved`,
      "retry; if it persists, look for a stuck cairn process",
    );
  }
  if (code === "23505" || code === "23P01" || code === "23503" || code === "23514" || code === "23502") {
    return conflict(`the change conflicts with stored data (${detail})`);
  }
  if (/Query read timeout/.test(detail)) {
    return operational(
      `PostgreSQL at ${target.host}:${target.port} stopped answering (no reply past the statement and lock timeouts); nothing unacknowledged was saved`,
      "retry: the next call reconnects; if it persists, check the network path to the server",
    );
  }
  if (isConnectionError(error)) {
    return operational(
      `the connection to PostgreSQL at ${target.host}:${target.port} failed (${detail}); nothing unacknowledged was saved`,
      "retry: the next call reconnects",
    );
  }
  if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) {
    return operational(`PostgreSQL error ${code} on ${where}: ${detail}`);
  }
  return undefined;
}

/** `postgres://user:secret@host` → `postgres://user:***@host`, wherever it appears in a message. */
export function redactPasswords(text: string): string {
  return redactUrlsIn(text);
}
