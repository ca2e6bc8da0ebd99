import { existsSync, linkSync, renameSync, rmSync, statSync } from "node:fs";
import { basename, dirname } from "node:path";
import Database from "better-sqlite3";
import { crypto } from "../kernel/builtins.js";
import { removeLeftoversOfDeadProcesses } from "../kernel/leftovers.js";
import { CairnError, conflict, operational } from "../kernel/outcome.js";
import { sqliteBinding } from "../kernel/sqlite-addon.js";
import { openStore, type StoreLocation } from "./open.js";
import { BEGIN_WRITE, connect, exactTypes } from "./postgres/connection.js";
import { encodeText, ident, pgDb } from "./postgres/db.js";
import { translatePgError } from "./postgres/errors.js";
import { InsertWindow, insertGroups, insertSql, nextRowids } from "./postgres/insert-window.js";
import { targetOf } from "./postgres/location.js";
import { requireKnownSchema } from "./postgres/migrate.js";
import { pgTransfer } from "./postgres/transfer.js";
import { CONTENT_TABLES } from "./sqlite/migrations/index.js";
import { countedTables, raiseCounter } from "./sqlite/short-ids.js";
import { checkSchema } from "./sqlite/sqlite-store.js";
import { sqliteTransfer } from "./sqlite/transfer.js";
import type { DumpRecord, Store } from "./store.js";

/** A value as it travels: integers as bigint (beyond 2^53 too), text as stored, never via JSON. */
type Value = bigint | number | string | Buffer | null;
interface Table {
  name: string;
  columns: string[];
  rows: Value[][];
}
interface Snapshot {
  tables: Table[];
  /** Highest id ever handed out per table, so a copy never hands one out again. */
  counters: Map<string, bigint>;
  /**
   * The source's export at the same moment as the rows: what the copy is checked against. An
   * export read afterwards holds what agents wrote meanwhile, and the copy, correct, failed as a bug.
   */
  dump: DumpRecord[];
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/** Every content table of a SQLite file in one read transaction, refusing what PostgreSQL would alter. */
async function readSqlite(path: string, toPostgres: boolean): Promise<Snapshot> {
  const db = new Database(path, { readonly: true, fileMustExist: true, nativeBinding: sqliteBinding() });
  try {
    db.exec("BEGIN");
    // Read raw, so refused here as the store refuses it: a newer cairn's tables would be left out.
    checkSchema(db);
    db.defaultSafeIntegers(true);
    const read = (() => {
      const tables = CONTENT_TABLES.map((name) => {
        const info = db.prepare(`PRAGMA table_info(${ident(name)})`).all() as {
          name: string;
          type: string;
        }[];
        const columns = info.map((column) => column.name);
        const statement = db.prepare(`SELECT rowid AS _r, * FROM ${ident(name)} ORDER BY rowid`);
        const rows = (statement.all() as Record<string, Value>[]).map((row) =>
          info.map((column) => {
            const value = row[column.name] ?? null;
            const where = `${name}.${column.name} (rowid ${row._r})`;
            if (typeof value === "string" && value.includes("\uFFFD")) {
              const raw = db
                .prepare(
                  `SELECT CAST(${ident(column.name)} AS BLOB) AS b FROM ${ident(name)} WHERE rowid = ?`,
                )
                .get(row._r) as { b: Buffer };
              try {
                strictUtf8.decode(raw.b);
              } catch {
                throw operational(
                  `${where} holds bytes that are not UTF-8; a copy would change them`,
                  "fix the value (or export it as it is) before copying",
                );
              }
            }
            if (toPostgres && /INT/i.test(column.type) && value !== null && typeof value !== "bigint") {
              throw operational(
                `${where} is declared ${column.type} but holds ${typeof value} ${JSON.stringify(String(value).slice(0, 40))}`,
                "fix the value before copying",
              );
            }
            return value;
          }),
        );
        return { name, columns, rows };
      });
      const counters = new Map<string, bigint>();
      const hasSequence = db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_sequence'").get();
      if (hasSequence) {
        for (const row of db.prepare("SELECT name, seq FROM sqlite_sequence").all() as {
          name: string;
          seq: bigint;
        }[])
          counters.set(row.name, BigInt(row.seq));
      }
      return { tables, counters };
    })();
    // The export as the store itself reads it (integers as numbers), in the same transaction.
    db.defaultSafeIntegers(false);
    const dump = await sqliteTransfer(db).dump();
    db.exec("COMMIT");
    return { ...read, dump };
  } finally {
    db.close();
  }
}

async function readPostgres(location: Extract<StoreLocation, { kind: "postgres" }>): Promise<Snapshot> {
  const client = await connect({ location });
  // The rows with 64-bit integers kept exact; the export below reads as the store does.
  const types = await exactTypes();
  try {
    await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
    // Read raw, so refused here as the store refuses it: a newer cairn's tables would be left out.
    await requireKnownSchema(client, targetOf(location));
    const shape = await client.query<{ table_name: string; column_name: string; data_type: string }>(
      `SELECT table_name, column_name, data_type FROM information_schema.columns
       WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position`,
    );
    const tables: Table[] = [];
    for (const name of CONTENT_TABLES) {
      const all = shape.rows.filter((row) => row.table_name === name);
      const order =
        ["_rowid", "seq", "id"].find((column) => all.some((c) => c.column_name === column)) ?? "1";
      const kept = all.filter((column) => !column.column_name.startsWith("_"));
      const result = await client.query({
        text: `SELECT ${kept.map((c) => ident(c.column_name)).join(", ")} FROM ${ident(name)} ORDER BY ${ident(order)}`,
        rowMode: "array",
        types,
      });
      const rows = (result.rows as Value[][]).map((row) =>
        row.map((value, i) =>
          kept[i]?.data_type === "bigint" && value !== null ? BigInt(value as string) : value,
        ),
      );
      tables.push({ name, columns: kept.map((c) => c.column_name), rows });
    }
    const counters = new Map<string, bigint>();
    for (const row of (
      await client.query<{ name: string; last: string }>({
        text: "SELECT name, last FROM cairn_counters",
        types,
      })
    ).rows)
      counters.set(row.name, BigInt(row.last));
    const dump = await pgTransfer(pgDb(() => client)).dump();
    await client.query("COMMIT");
    return { tables, counters, dump };
  } finally {
    await client.end();
  }
}

/**
 * A failure of the copy's own connection (it reads and writes around the store), as the store
 * reports its own: typed, naming the server. A raw driver message ("Connection terminated
 * unexpectedly") said neither where nor that the copy failed.
 */
async function onServer<T>(location: Extract<StoreLocation, { kind: "postgres" }>, work: () => Promise<T>) {
  try {
    return await work();
  } catch (error) {
    if (error instanceof CairnError) throw error;
    throw translatePgError(error, targetOf(location)) ?? error;
  }
}

/**
 * The whole copy in one transaction on the target. A cancel is looked at between windows and
 * last just before COMMIT: once committed, the copy is there, and nothing may call it unwritten.
 */
async function writePostgres(
  location: Extract<StoreLocation, { kind: "postgres" }>,
  snapshot: Snapshot,
  pause: () => Promise<void>,
  reached: (stage: CopyStage) => void,
): Promise<void> {
  const client = await connect({ location, exact: true, statementTimeoutMs: 600_000, pipeline: true });
  try {
    await client.query(
      `${BEGIN_WRITE}; SELECT pg_advisory_xact_lock(hashtextextended('cairn:ws:' || current_schema(), 0))`,
    );
    const held = await client.query(
      "SELECT (SELECT count(*) FROM events) + (SELECT count(*) FROM agents) AS n",
    );
    if (Number(held.rows[0]?.n) > 0)
      throw conflict(
        `the target schema ${location.schema} already holds a workspace`,
        "copy into a new schema",
      );
    await client.query("DELETE FROM meta");
    // Rows go in the order they were made, and a task moved under a later one names its parent
    // before the parent's row: references are checked at the commit, as an import checks them.
    await client.query("SET CONSTRAINTS ALL DEFERRED");
    const window = new InsertWindow();
    const dollar = (index: number) => `$${index + 1}`;
    // The hidden `_rowid` is the store's own and not copied: rows take theirs here, in order.
    const rowids = await nextRowids(client);
    for (const table of snapshot.tables) {
      const first = rowids.get(table.name);
      const columns = first === undefined ? table.columns : [...table.columns, "_rowid"];
      const rows =
        first === undefined ? table.rows : table.rows.map((row, index) => [...row, BigInt(first + index)]);
      for (const group of insertGroups(rows)) {
        await window.makeRoom(pause);
        const values = group
          .flat()
          .map((value) =>
            typeof value === "bigint"
              ? value.toString()
              : typeof value === "string"
                ? encodeText(value)
                : value,
          );
        window.send(client.query(insertSql(table.name, columns, group.length, dollar), values), values);
      }
    }
    await window.answered();
    for (const [name, last] of snapshot.counters) {
      await client.query("SELECT cairn_next($1, $2)", [name, last.toString()]);
    }
    await pause();
    reached("committing");
    await client.query("COMMIT");
    reached("written");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  } finally {
    await client.end();
  }
}

/**
 * How far a copy to PostgreSQL got, for what a stop signal (which exits without unwinding the
 * copy) says: before COMMIT the server rolls back all it wrote when the connection ends.
 */
export type CopyStage = "committing" | "written";

/** How many rows a copy writes between looks at a cancel or a stop signal. */
const ROWS_PER_PAUSE = 2_000;

async function writeSqlite(path: string, snapshot: Snapshot, pause: () => Promise<void>): Promise<void> {
  const db = new Database(path, { fileMustExist: true, nativeBinding: sqliteBinding() });
  try {
    // The file is this copy's own until it is placed: its one transaction may span the pauses.
    db.exec("BEGIN IMMEDIATE");
    try {
      db.prepare("DELETE FROM meta").run();
      // As on PostgreSQL: a task moved under a later one comes before its parent's row.
      db.pragma("defer_foreign_keys = ON");
      let written = 0;
      for (const table of snapshot.tables) {
        const insert = db.prepare(
          `INSERT INTO ${ident(table.name)} (${table.columns.map(ident).join(", ")}) VALUES (${table.columns.map(() => "?").join(", ")})`,
        );
        for (const row of table.rows) {
          insert.run(...row);
          if (++written % ROWS_PER_PAUSE === 0) await pause();
        }
      }
      // A table whose every row was deleted has no sqlite_sequence row after the inserts, nor
      // has a table keyed by a plain integer (milestones): its counter is written anyway, or its
      // old ids would be handed out again.
      const counted = countedTables(db, CONTENT_TABLES);
      for (const [name, last] of snapshot.counters) if (counted.has(name)) raiseCounter(db, name, last);
      db.exec("COMMIT");
    } catch (error) {
      if (db.inTransaction) db.exec("ROLLBACK");
      throw error;
    }
  } finally {
    db.close();
  }
}

const canonical = (records: DumpRecord[]) => records.map((record) => JSON.stringify(record)).join("\n");

/**
 * Copy a whole workspace into a new, empty store, losslessly: rows in insertion order with every
 * id and counter, integers beyond 2^53 exact, NUL characters kept, JSON text byte for byte.
 * Values a target would silently change (bytes that are not UTF-8, text in an integer column)
 * stop the copy before anything is written. Verified by comparing the two exports.
 */
export async function copyStore(
  source: StoreLocation,
  target: StoreLocation,
  signal?: AbortSignal,
  reached: (stage: CopyStage) => void = () => {},
): Promise<{ rows: number; tables: number }> {
  // A large copy takes a while: every few thousand rows it lets the process see a Ctrl-C, a
  // cancel or a stop signal, which it would otherwise handle only once the copy was done.
  const pause = async () => {
    await new Promise((resolve) => setImmediate(resolve));
    if (signal?.aborted) throw operational("cancelled: the copy was stopped and nothing was written");
  };
  // A SQLite target is built under another name, checked, and linked into place: a copy refused
  // part way (bytes that are not UTF-8), stopped or killed leaves no file that refuses the retry.
  // What a copy killed outright (kill -9, a crash) left beside its target goes once its pid has.
  if (target.kind === "sqlite")
    removeLeftoversOfDeadProcesses(dirname(target.path), `${basename(target.path)}.copy-`, /^-/);
  const staging =
    target.kind === "sqlite"
      ? `${target.path}.copy-${process.pid}-${crypto().randomBytes(4).toString("hex")}`
      : undefined;
  const building: StoreLocation = staging ? { kind: "sqlite", path: staging } : target;
  const removeStaging = () => {
    if (!staging) return;
    for (const suffix of ["", "-wal", "-shm", "-journal"]) rmSync(staging + suffix, { force: true });
  };
  // A stop signal exits without unwinding this function: what it half built goes at exit too.
  process.once("exit", removeStaging);
  try {
    // The source opened first, as every command opens it: an older schema is brought up to this
    // build's, one a newer cairn migrated is refused before anything is made (the raw read
    // below checks it again, in its own snapshot).
    const opened = openStore(source, { requireIdentity: true });
    try {
      await opened.read(async () => undefined);
    } finally {
      await opened.close();
    }
    const prepared: Store = openStore(building, { create: true });
    try {
      await prepared.read(async () => undefined);
    } finally {
      await prepared.close();
    }
    await pause();
    const snapshot =
      source.kind === "sqlite"
        ? await readSqlite(source.path, target.kind === "postgres")
        : await onServer(source, () => readPostgres(source));
    await pause();
    if (building.kind === "postgres")
      await onServer(building, () => writePostgres(building, snapshot, pause, reached));
    else {
      await writeSqlite(building.path, snapshot, pause);
      // Still unplaced, so still nothing written: a SQLite copy may be stopped here too.
      await pause();
    }
    const to = openStore(building);
    try {
      const copied = await to.read((tx) => tx.transfer.dump());
      if (canonical(snapshot.dump) !== canonical(copied)) {
        throw operational(
          `the copy differs from its source${staging ? "" : "; the target is left for inspection"}`,
          "report this: it is a bug",
        );
      }
    } finally {
      await to.close();
    }
    // Only a checked copy is placed, and once placed it stays.
    if (staging && target.kind === "sqlite") {
      await pause();
      // Closing the last connection folds the write-ahead log into the file; only the file is linked.
      if ((statSync(`${staging}-wal`, { throwIfNoEntry: false })?.size ?? 0) > 0) {
        throw operational(`the copy ${staging} was not written through to its file; nothing was placed`);
      }
      placeFile(staging, target.path);
    }
    return { rows: snapshot.dump.length, tables: snapshot.tables.length };
  } finally {
    process.removeListener("exit", removeStaging);
    removeStaging();
  }
}

/** Link `staging` at `path` unless something is there (a rename would replace it). */
function placeFile(staging: string, path: string): void {
  const taken = () => conflict(`${path} already exists`, "copy into a path that does not exist yet");
  try {
    linkSync(staging, path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST") throw taken();
    if (code !== "EPERM" && code !== "ENOTSUP" && code !== "EOPNOTSUPP" && code !== "ENOSYS") throw error;
    if (existsSync(path)) throw taken();
    renameSync(staging, path);
  }
}
