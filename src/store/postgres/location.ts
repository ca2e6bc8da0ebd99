import { usageError } from "../../kernel/outcome.js";
import {
  dropSecretParameters,
  queryHoldsPassword,
  replaceSecretParameters,
} from "../../kernel/url-password.js";

/** Where a store lives, as it may be shown: never with a password. */
export interface PgTarget {
  host: string;
  port: number;
  database: string;
  user: string;
  schema: string;
}

/** A PostgreSQL workspace: the server URL (password allowed only in memory) and its schema. */
export interface PgLocation {
  url: string;
  schema: string;
  /** The schema was named by no one: it comes from the workspace directory's name. */
  unnamed?: boolean;
}

export const isPostgresUrl = (value: string) => /^postgres(ql)?:\/\//i.test(value);

/**
 * Variables the driver reads the store's password from. PGPASSFILE is not one: it names a file
 * (~/.pgpass by default) that any process of the user can read whatever its environment says,
 * and a path shown in output gives nothing away.
 */
export const CREDENTIAL_VARIABLES = ["PGPASSWORD"] as const;

const SCHEMA = /^[A-Za-z_][A-Za-z0-9_-]{0,62}$/;

/**
 * Schemas a workspace must not live in: the server's own (it refuses `pg_*`; a superuser could
 * fill information_schema) and the one cairn shares between workspaces for extensions.
 */
export const isReservedSchema = (schema: string) =>
  schema.startsWith("pg_") || schema === "information_schema" || schema === "cairn_extensions";

/** A new workspace is never made in a reserved schema (one already there keeps working). */
export function refuseReservedSchema(schema: string): void {
  if (isReservedSchema(schema)) {
    throw usageError(
      `schema name ${JSON.stringify(schema)} is not usable for a new workspace: it belongs to the server or to cairn`,
      "pick another name (?schema=NAME or [store] schema)",
    );
  }
}

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
 * The URL with neither password (see kernel/url-password.ts) nor `schema` parameter: what
 * cairn.toml may hold and output show.
 */
export function storableUrl(url: string): string {
  const parsed = parse(url);
  parsed.password = "";
  parsed.searchParams.delete("schema");
  dropSecretParameters(parsed.searchParams);
  return parsed.toString();
}

/** `scheme:` and its slashes, any scheme (a misspelt or foreign one is shown too). */
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:\/*/;

/**
 * One URL with its password replaced: in the user part (everything from the first `:` after the
 * scheme to the last `@`, whatever the password holds: `@`, spaces, or no user before it) or as
 * a parameter. Any scheme: a URL that is refused for not being PostgreSQL's is shown this way too.
 */
function redactOne(url: string): string {
  const scheme = SCHEME.exec(url)?.[0] ?? "";
  let rest = url.slice(scheme.length);
  const at = rest.lastIndexOf("@");
  const colon = rest.indexOf(":");
  if (at >= 0 && colon >= 0 && colon < at) rest = `${rest.slice(0, colon)}:***${rest.slice(at)}`;
  // Parameter names as the driver decodes them: `?pass%77ord=` is a password too.
  return replaceSecretParameters(`${scheme}${rest}`, "***");
}

/**
 * Does this URL carry a password (in the user part, or as a password parameter, however spelt)?
 * cairn.toml must not: a URL that does not parse counts as carrying one if redaction changes it.
 */
export function holdsPassword(url: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return redactOne(url) !== url;
  }
  if (parsed.password !== "") return true;
  return queryHoldsPassword(parsed.searchParams);
}

/** Any URL as it may be shown: the password replaced, in the user part or as a parameter. */
export const redactUrl = (url: string): string => redactOne(url);

const isSchemeChar = (code: number) =>
  (code >= 0x61 && code <= 0x7a) || // a-z
  (code >= 0x41 && code <= 0x5a) || // A-Z
  (code >= 0x30 && code <= 0x39) || // 0-9
  code === 0x2b || // +
  code === 0x2e || // .
  code === 0x2d; // -
const isLetter = (code: number) => (code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a);

/**
 * Where the first URL (`scheme:/`) at or after `from` starts, or -1: the match of
 * /[A-Za-z][A-Za-z0-9+.-]*:\//, found in one pass. That regex backtracks over every run of
 * scheme characters from every start, so a 5 MB word without a colon (a hostile cairn.toml line,
 * a value a driver quotes) took hours; here each `:/` walks back over its own run only.
 */
export function urlStart(text: string, from = 0): number {
  let searchFrom = from;
  for (;;) {
    const colon = text.indexOf(":/", searchFrom);
    if (colon < 0) return -1;
    let runStart = colon;
    while (runStart > from && isSchemeChar(text.charCodeAt(runStart - 1))) runStart--;
    // The scheme starts at the run's first letter (a leading digit, + . or - is not part of it).
    while (runStart < colon && !isLetter(text.charCodeAt(runStart))) runStart++;
    if (runStart < colon) return runStart;
    searchFrom = colon + 1;
  }
}

const WHITESPACE = /\s/g;

/** Every URL quoted in a text (a driver's message) redacted as redactUrl does, up to whitespace. */
export function redactUrlsIn(text: string): string {
  let shown = "";
  let position = 0;
  for (let start = urlStart(text); start >= 0; start = urlStart(text, position)) {
    WHITESPACE.lastIndex = start;
    const end = WHITESPACE.exec(text)?.index ?? text.length;
    shown += text.slice(position, start) + redactOne(text.slice(start, end));
    position = end;
  }
  return shown + text.slice(position);
}

/** A line with the first URL on it redacted to the line's end (its password may hold spaces). */
export function redactUrlToEnd(line: string): string {
  const start = urlStart(line);
  return start < 0 ? line : line.slice(0, start) + redactOne(line.slice(start));
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
