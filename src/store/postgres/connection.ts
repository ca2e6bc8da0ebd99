import type pg from "pg";
import type pgpass from "pgpass";
import { decodeText, ident } from "./db.js";
import { connectionString, type PgLocation } from "./location.js";

/** Session limits: a stuck writer cannot hold the workspace lock forever, nor a query run away. */
export const SESSION_DEFAULTS = {
  statementTimeoutMs: 30_000,
  /** Long enough for a queue of writers across machines (16 agents claiming at once). */
  lockTimeoutMs: 15_000,
  idleInTransactionMs: 60_000,
  connectTimeoutMs: 5_000,
};

/**
 * How every writing transaction begins: at READ COMMITTED, stated, never left to the server's
 * default. A database or role set to `default_transaction_isolation = 'repeatable read'` gave a
 * bare BEGIN a snapshot taken before the workspace lock was granted, and writers queued behind
 * it failed (40001, or a duplicate key on the journal) instead of going on one after another.
 */
export const BEGIN_WRITE = "BEGIN ISOLATION LEVEL READ COMMITTED";

let driver: Promise<typeof pg> | undefined;
/** `pg` loads on first use, so a SQLite workspace never pays for parsing it. */
export const loadDriver = () => {
  driver ??= import("pg").then((module) => (module.default ?? module) as typeof pg);
  return driver;
};

const INT8 = 20;
const NUMERIC = 1700;
const TEXT = 25;
const VARCHAR = 1043;

/**
 * Values read the way better-sqlite3 reads them: integers as numbers, text unescaped (see
 * encodeText). `exact` keeps 64-bit integers as strings, for the lossless copy.
 */
function typesFor(pgModule: typeof pg, exact: boolean): pg.CustomTypesConfig {
  return {
    getTypeParser: ((oid: number, format?: string) => {
      if (oid === TEXT || oid === VARCHAR) return decodeText;
      if (!exact && (oid === INT8 || oid === NUMERIC)) return (value: string) => Number(value);
      return pgModule.types.getTypeParser(oid, format as "text");
    }) as pg.CustomTypesConfig["getTypeParser"],
  };
}

/** Type parsers keeping 64-bit integers as strings, for one query (`types` in its config). */
export const exactTypes = async (): Promise<pg.CustomTypesConfig> => typesFor(await loadDriver(), true);

export interface Connect {
  location: PgLocation;
  /** The schema need not exist yet (creating a workspace). */
  exact?: boolean;
  statementTimeoutMs?: number;
  /**
   * Send each query at once instead of after the previous answer (pg's pipeline mode): the store
   * lets BEGIN travel with a transaction's first statement. Answers still arrive in order.
   */
  pipeline?: boolean;
}

/** `CAIRN_PG_TIMEOUT_MS` shortens the statement and lock timeouts (operators, fault tests). */
const timeoutOverride = () => {
  const value = Number(process.env.CAIRN_PG_TIMEOUT_MS);
  return Number.isFinite(value) && value > 0 ? Math.floor(value) : undefined;
};

/**
 * How long the client waits for any answer: a pipelined statement may wait out the lock timeout
 * behind BEGIN and then run for the statement timeout; the margin lets the server's own timeout
 * (a clear 57014 or 55P03) arrive first.
 */
export const readTimeoutMs = (statementMs: number, lockMs: number) =>
  statementMs + lockMs + Math.min(5_000, statementMs);

/**
 * The password from the user's password file (~/.pgpass, or PGPASSFILE), for a connection given
 * none otherwise. Looked up here because the driver reads the file only with a deprecation warning
 * on stderr, once a process: every CLI call of a user who keeps the password where the README
 * says printed it (and pg 9 drops the file).
 */
async function passwordOf(parameters: Parameters<typeof pgpass>[0]): Promise<string | undefined> {
  const { default: lookUp } = await import("pgpass");
  return new Promise((resolve) => lookUp(parameters, resolve));
}

/** One connected client with cairn's session settings and the workspace schema first in its path. */
export async function connect({
  location,
  exact = false,
  statementTimeoutMs,
  pipeline = false,
}: Connect): Promise<pg.Client> {
  const pgModule = await loadDriver();
  const statementMs =
    statementTimeoutMs ?? ((timeoutOverride() ?? 0) * 2 || SESSION_DEFAULTS.statementTimeoutMs);
  const lockMs = timeoutOverride() ?? SESSION_DEFAULTS.lockTimeoutMs;
  const client = new pgModule.Client({
    connectionString: connectionString(location),
    types: typesFor(pgModule, exact),
    connectionTimeoutMillis: SESSION_DEFAULTS.connectTimeoutMs,
    // A server that stops answering without closing the connection (its host gone, packets
    // dropped) fires no timeout of its own: a query unanswered well past the server's statement
    // and lock timeouts fails here and the connection is dropped, so no call (nor close) waits
    // forever. Keepalives find such a connection while it is idle.
    query_timeout: readTimeoutMs(statementMs, lockMs),
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    application_name: "cairn",
    ...(pipeline ? { pipeline: true } : {}),
  } as pg.ClientConfig);
  // Neither the URL nor PGPASSWORD gave a password (the driver's order, in which a `password`
  // option would lose to the URL's empty one): the driver asks this function instead of reading the
  // password file itself. It passes its parameters; undefined is "none", as from the file.
  const driverSide = client as unknown as { password: unknown };
  if (driverSide.password === null) driverSide.password = passwordOf;
  // An idle client whose server went away must not crash the process; the next call reconnects.
  client.on("error", () => {});
  await client.connect();
  await client.query(
    [
      `SET search_path TO ${ident(location.schema)}`,
      `SET statement_timeout = ${statementMs}`,
      `SET lock_timeout = ${lockMs}`,
      `SET idle_in_transaction_session_timeout = ${SESSION_DEFAULTS.idleInTransactionMs}`,
      "SET TimeZone = 'UTC'",
      "SET client_min_messages = warning",
    ].join("; "),
  );
  return client;
}
