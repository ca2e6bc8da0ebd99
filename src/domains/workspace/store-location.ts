import { realpathSync } from "node:fs";
import { basename, resolve } from "node:path";
import { usageError } from "../../kernel/outcome.js";
import type { StoreLocation } from "../../store/open.js";
// From location.js, not open.js: reading where the store is must not load the PostgreSQL store.
import {
  CREDENTIAL_VARIABLES,
  checkSchemaName,
  isPostgresUrl,
  isReservedSchema,
  redactUrl,
  schemaInUrl,
  storableUrl,
} from "../../store/postgres/location.js";
import type { WorkspaceConfig } from "./config.js";
import type { Workspace } from "./discover.js";

/**
 * A schema name from the workspace directory's name (letters, digits, - and _ only). Not from
 * `[workspace] name`, which may change; `cairn init` writes the schema it chose into cairn.toml.
 */
export function defaultSchema(workspace: Workspace): string {
  const name = basename(workspace.root).replace(/[^A-Za-z0-9_-]+/g, "_");
  return (/^[A-Za-z_]/.test(name) && !isReservedSchema(name) ? name : `w_${name}`).slice(0, 63);
}

/**
 * Where this workspace's store lives: CAIRN_STORE_URL, else `[store] url`, else the SQLite file
 * in `.cairn/`. The schema comes from the URL's `?schema=`, else `[store] schema`, else the
 * workspace's name.
 */
export function storeLocationOf(
  workspace: Workspace,
  config: WorkspaceConfig | undefined,
  env: NodeJS.ProcessEnv,
  override?: string,
): StoreLocation {
  const url = override || env.CAIRN_STORE_URL || config?.store?.url;
  if (!url) return { kind: "sqlite", path: workspace.databasePath };
  if (!isPostgresUrl(url)) {
    throw usageError(
      `the store URL ${redactUrl(url)} is not a PostgreSQL URL`,
      "use postgres://user@host:port/database",
    );
  }
  const named = schemaInUrl(url) ?? config?.store?.schema;
  return {
    kind: "postgres",
    url,
    schema: checkSchemaName(named ?? defaultSchema(workspace)),
    ...(named === undefined ? { unnamed: true } : {}),
  };
}

/** The store as it may be shown: a path, or a URL without its password plus the schema. */
export function describeLocation(location: StoreLocation): string {
  if (location.kind === "sqlite") return location.path;
  return `${storableUrl(location.url)} (schema ${location.schema})`;
}

/**
 * The variables holding a store's credential: PGPASSWORD is a shared store's password, kept from
 * every process cairn starts that does not act on the board as itself. A SQLite store has none.
 */
export const storeCredentialsOf = (location: StoreLocation): readonly string[] =>
  location.kind === "postgres" ? CREDENTIAL_VARIABLES : [];

/**
 * One name per board, however it is reached: the SQLite file's real path (through any symlink),
 * or the PostgreSQL database and schema the driver would connect to (whoever connects, with
 * whatever password). The server's host and port are left out: one server has many spellings
 * (127.0.0.1, 127.1, localhost, a DNS alias, a `host` or `port` parameter) that no name can
 * reduce to one, and a process cairn started must not pass for the owner on its own board by
 * spelling it differently. Another server holding the same database and schema names counts
 * as the same board, which only ever refuses more.
 */
export function boardKey(location: StoreLocation, env: NodeJS.ProcessEnv = process.env): string {
  if (location.kind === "sqlite") {
    try {
      return realpathSync(location.path);
    } catch {
      return resolve(location.path);
    }
  }
  const url = new URL(location.url);
  const decoded = (text: string) => {
    try {
      return decodeURIComponent(text);
    } catch {
      return text;
    }
  };
  // As pg reads it: the path, else PGDATABASE, else the user (the URL's, a `user` parameter,
  // PGUSER, the login name).
  const user =
    url.searchParams.get("user") || decoded(url.username) || env.PGUSER || env.USER || env.USERNAME || "";
  const database = decoded(url.pathname.slice(1)) || env.PGDATABASE || user;
  return `postgres:${JSON.stringify(database)}#${location.schema}`;
}
