import type pg from "pg";

/**
 * A small statement layer shaped like better-sqlite3's, so a SQLite repository ports to
 * PostgreSQL by copying it, adding `await` before each `.get/.all/.run`, and adjusting the SQL
 * dialect (see README.md in this folder). Placeholders are SQLite's: `?` positional or `@name`
 * named (one object argument); they become `$n` once, at prepare time.
 */
export interface PgStatement<P extends unknown[] = unknown[], R = unknown> {
  get(...params: P): Promise<R | undefined>;
  all(...params: P): Promise<R[]>;
  run(...params: P): Promise<{ changes: number }>;
}

export interface PgDb {
  prepare<P extends unknown[] = unknown[], R = unknown>(sql: string): PgStatement<P, R>;
  /** One raw statement with `$n` placeholders (DDL, copy, the store's own plumbing). */
  query<R = Record<string, unknown>>(
    sql: string,
    params?: unknown[],
  ): Promise<pg.QueryResult<R & pg.QueryResultRow>>;
}

interface Translated {
  text: string;
  /** Named parameters in `$n` order; empty for positional statements. */
  names: string[];
  positional: number;
}

/** Rewrite `?` and `@name` outside quotes into `$1…$n`. */
export function translatePlaceholders(sql: string): Translated {
  const names: string[] = [];
  let positional = 0;
  let out = "";
  let quote: string | null = null;
  for (let i = 0; i < sql.length; i++) {
    const char = sql[i] as string;
    if (quote) {
      out += char;
      if (char === quote) quote = null;
      continue;
    }
    if (char === "'" || char === '"') {
      quote = char;
      out += char;
    } else if (char === "?") {
      positional += 1;
      out += `$${positional}`;
    } else if (char === "@" && /[A-Za-z_]/.test(sql[i + 1] ?? "")) {
      const name = /^[A-Za-z_]\w*/.exec(sql.slice(i + 1))?.[0] as string;
      let index = names.indexOf(name);
      if (index < 0) index = names.push(name) - 1;
      out += `$${index + 1}`;
      i += name.length;
    } else {
      out += char;
    }
  }
  if (positional > 0 && names.length > 0) throw new Error(`mixed ? and @name placeholders: ${sql}`);
  return { text: out, names, positional };
}

/**
 * PostgreSQL text cannot hold U+0000, which SQLite text (and so an agent's input) can. Such
 * strings travel escaped: U+0000 → ESC "0", ESC → ESC "1". The code is prefix-free, so equality,
 * concatenation and prefix tests behave as on the original text; reads undo it (see decodeText).
 */
const ESC = "\uE000";
export function encodeText(value: string): string {
  if (!value.includes("\u0000") && !value.includes(ESC)) return value;
  return value.replaceAll(ESC, `${ESC}1`).replaceAll("\u0000", `${ESC}0`);
}
export function decodeText(value: string): string {
  if (!value.includes(ESC)) return value;
  return value.replace(/\uE000([01])/g, (_, code: string) => (code === "0" ? "\u0000" : ESC));
}

/** An escape that is one (an even run of backslashes before it, none before that), as SQL regex text. */
const REAL_ESCAPE = String.raw`(?<!\\)((?:\\\\)*)\\u`;

/**
 * JSON text with each lone surrogate escape (JSON.stringify writes "\ud800" for a half
 * character an MCP client sent) made \ufffd, as SQLite's JSON functions read it; jsonb refuses
 * it (22P02). Pairs are set aside first under a marker the text store never holds (ESC then "2",
 * see encodeText) and put back after.
 */
const withoutLoneSurrogates = (column: string): string => {
  const pairs = String.raw`regexp_replace(${column}, '${REAL_ESCAPE}([dD][89abAB][0-9a-fA-F]{2})\\u([dD][c-fC-F][0-9a-fA-F]{2})', '\1' || chr(57344) || '2\2\3', 'g')`;
  const lone = String.raw`regexp_replace(${pairs}, '${REAL_ESCAPE}[dD][89a-fA-F][0-9a-fA-F]{2}', '\1\\ufffd', 'g')`;
  const back = String.raw`regexp_replace(${lone}, chr(57344) || '2([0-9a-fA-F]{4})([0-9a-fA-F]{4})', '\\u\1\\u\2', 'g')`;
  return String.raw`CASE WHEN ${column} ~ '\\u[dD][89a-fA-F]' THEN ${back} ELSE ${column} END`;
};

/**
 * A text column holding JSON, as jsonb. PostgreSQL's jsonb refuses the escape \u0000 (JSON.stringify
 * writes a U+0000 that way), which failed a query over every row once one held it: each escaped
 * NUL (one not itself escaped: an even run of backslashes before it) becomes the text store's own
 * escape (see encodeText), which reads back as U+0000 and equals an encoded parameter. A lone
 * surrogate escape, refused too, reads as U+FFFD (see withoutLoneSurrogates).
 */
export const jsonbOfStored = (column: string): string =>
  String.raw`regexp_replace(${withoutLoneSurrogates(column)}, '${REAL_ESCAPE}0000', '\1' || chr(57344) || '0', 'g')::jsonb`;

export const encodeParam = (value: unknown): unknown => {
  if (typeof value === "string") return encodeText(value);
  if (typeof value === "boolean") return value ? 1 : 0;
  if (value === undefined) return null;
  return value;
};

/** Statement names are per connection; equal SQL shares one prepared plan. */
const statementNames = new Map<string, string>();
const nameOf = (text: string) => {
  let name = statementNames.get(text);
  if (!name) {
    name = `c${statementNames.size}`;
    statementNames.set(text, name);
  }
  return name;
};

/**
 * Round trips this process's stores waited for: a query sent while another is still unanswered
 * on the same connection (pipelined) shares that one's trip. Benchmarks read it.
 */
export const roundTrips = { count: 0 };
const inFlight = new WeakMap<pg.ClientBase, number>();

/** One query, counted as a round trip unless it rides with one already in flight. */
export async function send<R extends pg.QueryResultRow = pg.QueryResultRow>(
  client: pg.ClientBase,
  query: string | pg.QueryConfig,
): Promise<pg.QueryResult<R>> {
  const flying = inFlight.get(client) ?? 0;
  if (flying === 0) roundTrips.count += 1;
  inFlight.set(client, flying + 1);
  try {
    return await client.query<R>(query as pg.QueryConfig);
  } finally {
    inFlight.set(client, (inFlight.get(client) ?? 1) - 1);
  }
}

/** A prepared statement (named once per SQL text, so its plan is reused) with its values. */
export const statement = (text: string, values: unknown[]): pg.QueryConfig => ({
  name: nameOf(text),
  text,
  values: values.map(encodeParam),
});

/**
 * A PgDb over whatever client the store currently holds (it is replaced after a reconnect).
 * `before` runs ahead of each statement (the store sends held journal appends there).
 */
export function pgDb(
  client: () => pg.ClientBase,
  observe: (result: pg.QueryResult) => void = () => {},
  before: (sql: string) => Promise<void> = async () => {},
): PgDb {
  const exec = async <R>(text: string, values: unknown[], prepared: boolean) => {
    await before(text);
    const result = await send<R & pg.QueryResultRow>(
      client(),
      prepared ? statement(text, values) : { text, values: values.map(encodeParam) },
    );
    observe(result);
    return result;
  };
  return {
    prepare<P extends unknown[], R>(sql: string): PgStatement<P, R> {
      const translated = translatePlaceholders(sql);
      const values = (params: unknown[]): unknown[] => {
        if (translated.names.length === 0) return translated.positional === 0 ? [] : params;
        const named = (params[0] ?? {}) as Record<string, unknown>;
        return translated.names.map((name) => named[name]);
      };
      return {
        async get(...params) {
          return (await exec<R>(translated.text, values(params), true)).rows[0];
        },
        async all(...params) {
          return (await exec<R>(translated.text, values(params), true)).rows;
        },
        async run(...params) {
          return { changes: (await exec<R>(translated.text, values(params), true)).rowCount ?? 0 };
        },
      };
    },
    query(sql, params = []) {
      return exec(sql, params, false);
    },
  };
}

/** A quoted SQL identifier (schema names come from configuration). */
export const ident = (name: string) => `"${name.replaceAll('"', '""')}"`;
