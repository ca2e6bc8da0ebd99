import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { loadConfig } from "../../src/domains/workspace/config.js";
import { projectWorkspace } from "../../src/domains/workspace/discover.js";
import { storeLocationOf } from "../../src/domains/workspace/store-location.js";
import { ident } from "../../src/store/postgres/db.js";
import { STORE_UNDER_TEST, testPgUrl } from "./workspace.js";

/**
 * A test workspace's store reached behind cairn's back, as someone with access to the database
 * would: its SQLite file, or its schema on the run's PostgreSQL (the `[store]` schema that init
 * wrote to its cairn.toml). Suites that age a lease or plant a future migration this way run on
 * both stores, and a scan for what must never be stored reads the same rows on both.
 */
export function schemaOf(dir: string): string {
  // Where cairn itself finds it, with the run's server as CAIRN_STORE_URL.
  const workspace = projectWorkspace(dir);
  const location = storeLocationOf(workspace, loadConfig(workspace.configPath), {
    CAIRN_STORE_URL: testPgUrl(),
  });
  if (location.kind !== "postgres") throw new Error(`${dir} is not on PostgreSQL`);
  return location.schema;
}

async function onSchema<T>(dir: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: testPgUrl() });
  await client.connect();
  try {
    await client.query(`SET search_path TO ${ident(schemaOf(dir))}`);
    return await use(client);
  } finally {
    await client.end();
  }
}

/** Run SQL both stores read alike (plain UPDATE / INSERT of text columns) on the workspace's store. */
export async function rawExec(dir: string, sql: string): Promise<void> {
  if (STORE_UNDER_TEST === "sqlite") {
    const db = new Database(join(dir, ".cairn", "cairn.db"));
    try {
      db.exec(sql);
    } finally {
      db.close();
    }
    return;
  }
  await onSchema(dir, (client) => client.query(sql));
}

/**
 * Everything the store holds, as text: the SQLite file and its WAL byte for byte, or every row of
 * every table in the schema. A scan for a secret reads this, so it finds the secret wherever a
 * row keeps it.
 */
export async function storedText(dir: string): Promise<string> {
  if (STORE_UNDER_TEST === "sqlite") {
    const files = ["cairn.db", "cairn.db-wal"].map((file) => join(dir, ".cairn", file)).filter(existsSync);
    if (files.length === 0) throw new Error(`no database in ${dir}/.cairn`);
    return files.map((file) => readFileSync(file).toString("latin1")).join("");
  }
  return onSchema(dir, async (client) => {
    const tables = await client.query<{ name: string }>(
      "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'",
    );
    if (tables.rows.length === 0) throw new Error(`no tables in the schema of ${dir}`);
    const parts: string[] = [];
    for (const { name } of tables.rows) {
      const rows = await client.query<{ row: string }>(`SELECT t::text AS row FROM ${ident(name)} t`);
      for (const { row } of rows.rows) parts.push(row);
    }
    return parts.join("\n");
  });
}
