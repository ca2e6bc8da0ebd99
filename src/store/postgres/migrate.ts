import type pg from "pg";
import { conflict, operational } from "../../kernel/outcome.js";
import { BEGIN_WRITE } from "./connection.js";
import { ident } from "./db.js";
import { describeTarget } from "./errors.js";
import type { PgTarget } from "./location.js";
import { refuseReservedSchema } from "./location.js";
import { PG_MIGRATIONS, type PgMigration, SHARED_PG_MIGRATIONS } from "./migrations/index.js";

/** Serialises schema changes across every workspace of a database (extensions are database-wide). */
const MIGRATE_LOCK = "SELECT pg_advisory_xact_lock(hashtextextended('cairn:migrate', 0))";

async function appliedNames(client: pg.ClientBase): Promise<Set<string>> {
  const rows = await client.query<{ name: string }>("SELECT name FROM schema_migrations");
  return new Set(rows.rows.map((row) => row.name));
}

function refuseNewer(applied: Set<string>): void {
  const known = new Set(PG_MIGRATIONS.map((migration) => migration.name));
  const unknown = [...applied].filter((name) => !known.has(name));
  if (unknown.length > 0) {
    throw operational(
      `this workspace was written by a newer cairn (schema ${applied.size}, this build knows ${known.size}; unknown: ${unknown.join(", ")})`,
      "upgrade cairn; nothing was changed",
    );
  }
}

/** unaccent where the server has it (installed once per database); null when it cannot be had. */
async function unaccentDictionary(client: pg.ClientBase): Promise<string | null> {
  const find = async () =>
    (
      await client.query<{ nspname: string }>(
        "SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'unaccent'",
      )
    ).rows[0]?.nspname;
  const existing = await find();
  if (existing) return `${ident(existing)}.unaccent`;
  await client.query("SAVEPOINT unaccent");
  try {
    await client.query("CREATE SCHEMA IF NOT EXISTS cairn_extensions");
    await client.query("CREATE EXTENSION IF NOT EXISTS unaccent SCHEMA cairn_extensions");
    await client.query("RELEASE SAVEPOINT unaccent");
    return `${ident((await find()) ?? "cairn_extensions")}.unaccent`;
  } catch {
    // Not installed on this server, or not ours to install: recall works, accents stay distinct.
    await client.query("ROLLBACK TO SAVEPOINT unaccent");
    return null;
  }
}

/**
 * Whether the workspace's schema holds cairn's tables. Asked at every connection, so every CLI
 * call on a shared store: to_regclass looks the name up directly, where the pg_tables view joins
 * four catalogs, which a new connection has still to read (~2 ms against ~6 on this machine).
 */
export async function schemaExists(client: pg.ClientBase, schema: string): Promise<boolean> {
  const found = await client.query<{ found: boolean }>("SELECT to_regclass($1) IS NOT NULL AS found", [
    `${ident(schema)}.schema_migrations`,
  ]);
  return found.rows[0]?.found === true;
}

/**
 * For a reader that goes around the store (store copy), in its own snapshot: the schema must be
 * exactly this build's. One a newer cairn migrated is refused as migratePg refuses it; its
 * tables this build does not know would otherwise be left behind without a word.
 */
export async function requireKnownSchema(client: pg.ClientBase, target: PgTarget): Promise<void> {
  if (!(await schemaExists(client, target.schema))) {
    throw operational(
      `no cairn workspace on ${describeTarget(target)}`,
      "fix [store] url / CAIRN_STORE_URL, or run `cairn init --store URL` to create it",
    );
  }
  const applied = await appliedNames(client);
  refuseNewer(applied);
  if (!PG_MIGRATIONS.every((migration) => applied.has(migration.name))) {
    throw operational(
      `the workspace on ${describeTarget(target)} needs migrating`,
      "run any cairn command (e.g. `cairn status`) once, then retry",
    );
  }
}

/**
 * The workspace id, asked for before the migration check and answered with it (the connection
 * pipelines: no round trip of its own). The answer is read by calling what this resolves to:
 * null when there is no id (or no meta table: a schema made in an init that had not reached it),
 * else the query's failure is thrown then, once the migration check has had its say.
 */
export function workspaceIdOf(client: pg.ClientBase): Promise<() => string | null> {
  return client.query<{ value: string }>("SELECT value FROM meta WHERE key = 'workspace_id'").then(
    (result) => () => result.rows[0]?.value ?? null,
    (error: unknown) => () => {
      if ((error as { code?: unknown }).code === "42P01") return null;
      throw error;
    },
  );
}

/**
 * A schema migrated but with no workspace id is what a `cairn init --store`, `cairn import` or
 * `cairn store copy` stopped part way leaves (the schema is made before the workspace is written
 * into it). It is no workspace: commands accepted it and wrote into a board with no identity,
 * and the copy run again was then refused because the schema was no longer empty.
 */
export function unfinishedWorkspace(target: PgTarget) {
  return operational(
    `no finished cairn workspace on ${describeTarget(target)}: the schema has no workspace id, so a \`cairn init --store\`, \`cairn import\` or \`cairn store copy\` into it was stopped before it finished; nothing was done`,
    `run that command again (it fills this schema), or drop the schema (DROP SCHEMA ${ident(target.schema)} CASCADE)`,
  );
}

/**
 * A new workspace is made only in a schema of its own: an empty one (made for it by whoever runs
 * the server) or none yet. One that already holds another application's tables (`public` of an
 * application's database, a typo for its schema) got cairn's thirty-odd tables mixed into it, and
 * one whose table shared a name with cairn's failed on a bare "relation already exists".
 */
async function refuseForeignTables(client: pg.ClientBase, target: PgTarget): Promise<void> {
  const found = await client.query<{ name: string }>(
    "SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind IN ('r', 'p', 'v', 'm', 'f') ORDER BY c.relname LIMIT 4",
    [target.schema],
  );
  if (found.rows.length === 0) return;
  const names = found.rows.slice(0, 3).map((row) => JSON.stringify(row.name));
  throw conflict(
    `${describeTarget(target)} holds tables that are not a cairn workspace (${names.join(", ")}${found.rows.length > 3 ? ", …" : ""}): a workspace made there would mix its tables with them; nothing was done`,
    "name a schema of its own (?schema=NAME or [store] schema)",
  );
}

/**
 * The migrations a schema at shared version `schema` holds: each up to its `schema`-th shared one,
 * with the PostgreSQL-only steps that came before it (the rest come at the next writer's open).
 */
export function pgMigrationsAt(schema: number): readonly PgMigration[] {
  if (schema >= SHARED_PG_MIGRATIONS.length) return PG_MIGRATIONS;
  let shared = 0;
  const last = PG_MIGRATIONS.findIndex((migration) => !migration.pgOnly && ++shared === schema);
  return last < 0 ? PG_MIGRATIONS : PG_MIGRATIONS.slice(0, last + 1);
}

/**
 * Apply what is missing in the workspace's schema (of `wanted`, every migration by default);
 * refuse one that a newer cairn migrated further.
 */
export async function migratePg(
  client: pg.ClientBase,
  target: PgTarget,
  creating: boolean,
  readonly = false,
  wanted: readonly PgMigration[] = PG_MIGRATIONS,
): Promise<number> {
  if (!(await schemaExists(client, target.schema))) {
    if (!creating) {
      throw operational(
        `no cairn workspace on ${describeTarget(target)}`,
        "run `cairn init --store URL` to create it, or fix [store] url / CAIRN_STORE_URL",
      );
    }
    refuseReservedSchema(target.schema);
    await refuseForeignTables(client, target);
  } else {
    const applied = await appliedNames(client);
    refuseNewer(applied);
    if (wanted.every((migration) => applied.has(migration.name))) return wanted.length;
    if (readonly) {
      throw operational(
        `the workspace on ${describeTarget(target)} needs migrating and this connection is read-only`,
        "run any writing cairn command (e.g. `cairn status`) once to migrate it",
      );
    }
  }
  // What is applied is read after the lock, so at READ COMMITTED (BEGIN_WRITE).
  await client.query(`${BEGIN_WRITE}; ${MIGRATE_LOCK}`);
  try {
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${ident(target.schema)}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS schema_migrations (name text COLLATE "C" PRIMARY KEY, applied_at text NOT NULL)`,
    );
    const applied = await appliedNames(client);
    refuseNewer(applied);
    const pending = wanted.filter((migration) => !applied.has(migration.name));
    const unaccent = pending.length > 0 ? await unaccentDictionary(client) : null;
    for (const migration of pending) {
      await client.query(migration.sql({ unaccent }));
      await client.query("INSERT INTO schema_migrations (name, applied_at) VALUES ($1, $2)", [
        migration.name,
        new Date().toISOString(),
      ]);
    }
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  }
  return wanted.length;
}
