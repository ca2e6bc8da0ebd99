import { usageError } from "../../kernel/outcome.js";
import type { PgTarget } from "./errors.js";

/** A PostgreSQL workspace: the server URL (password allowed only in memory) and its schema. */
export interface PgLocation {
  url: string;
  schema: string;
}

export const isPostgresUrl = (value: string) => /^postgres(ql)?:\/\//i.test(value);

const SCHEMA = /^[A-Za-z_][A-Za-z0-9_-]{0,62}$/;

export function checkSchemaName(schema: string): string {
  if (!SCHEMA.test(schema)) {
    throw usageError(
      `schema name ${JSON.stringify(schema)} is not usable`,
      "use 1–63 letters, digits, - or _, starting with a letter",
    );
  }
  return schema;
}

function parse(url: string): URL {
  try {
    return new URL(url);
  } catch {
    throw usageError(`not a PostgreSQL URL: ${redactUrl(url)}`, "use postgres://user@host:port/database");
  }
}

/**
 * Query parameters the driver reads as secrets: `?password=` connects exactly as a password in
 * the URL's user part does, so it is kept out of cairn.toml and output the same way.
 */
const SECRET_PARAMETERS = ["password", "sslpassword"];

/** The URL with neither password nor `schema` parameter: what cairn.toml may hold and output show. */
export function storableUrl(url: string): string {
  const parsed = parse(url);
  parsed.password = "";
  parsed.searchParams.delete("schema");
  for (const name of SECRET_PARAMETERS) parsed.searchParams.delete(name);
  return parsed.toString();
}

/** Any URL as it may be shown: the password replaced, in the user part or as a parameter. */
export function redactUrl(url: string): string {
  return url
    .replace(/(postgres(?:ql)?:\/\/[^:/@\s]+):[^@\s]*@/gi, "$1:***@")
    .replace(/([?&](?:ssl)?password=)[^&#\s]*/gi, "$1***");
}

export const schemaInUrl = (url: string): string | undefined =>
  parse(url).searchParams.get("schema") ?? undefined;

/** Connection settings for `pg`: the URL without cairn's own `schema` parameter. */
export function connectionString(location: PgLocation): string {
  const parsed = parse(location.url);
  parsed.searchParams.delete("schema");
  return parsed.toString();
}

export function targetOf(location: PgLocation, env: NodeJS.ProcessEnv = process.env): PgTarget {
  const parsed = parse(location.url);
  const host =
    parsed.searchParams.get("host") ?? (decodeURIComponent(parsed.hostname) || env.PGHOST || "localhost");
  return {
    host,
    port: Number(parsed.port || env.PGPORT || 5432),
    database: decodeURIComponent(parsed.pathname.replace(/^\//, "")) || env.PGDATABASE || "postgres",
    user: decodeURIComponent(parsed.username) || env.PGUSER || env.USER || "postgres",
    schema: location.schema,
  };
}
