import Database from "better-sqlite3";
import { CairnError, operational } from "../../kernel/outcome.js";
import { sqliteBinding } from "../../kernel/sqlite-addon.js";
import { type ChangeSignal, closedStore, type Store, type Tx } from "../store.js";
import { sqliteAgentRuns, sqliteAgentWindows } from "./agent-runs.js";
import { sqliteAgents } from "./agents.js";
import { dataVersionSignal } from "./data-version.js";
import { translateSqliteError } from "./errors.js";
import { sqliteFacts } from "./facts.js";
import { sqliteGoals } from "./goals.js";
import { sqliteJournal } from "./journal.js";
import { lazyRepositories } from "./lazy-repositories.js";
import { sqliteMeta } from "./meta.js";
import { MIGRATIONS } from "./migrations/index.js";
import { Mutex } from "./mutex.js";
import { sqliteNotes } from "./notes.js";
import { sqliteBriefs, sqliteGlossary, sqliteRisks } from "./risks.js";
import { sqliteAsks, sqliteQueues, sqliteShortcuts } from "./task-extras.js";
import { sqliteTasks } from "./tasks.js";
import { sqliteCounts, sqliteTransfer } from "./transfer.js";

/** Long enough for a queue of writers across processes (16 agents claiming at once). */
const BUSY_TIMEOUT_MS = 15_000;

export interface OpenOptions {
  /** Create the file and apply every migration (only `cairn init` does this). */
  create?: boolean;
  /**
   * With `create`: apply the first `atSchema` migrations only. An import of an export an earlier
   * cairn wrote restores its rows into the tables they were written for, and the next writer's
   * open migrates them forward as it would have migrated that workspace in place.
   */
  atSchema?: number;
  /**
   * Open a connection that cannot write (`cairn ui`): SQLite refuses every write on it, and no
   * migration is applied; a workspace with pending migrations must be opened by a writer first.
   */
  readonly?: boolean;
  /**
   * A connection that loads much at once (a seeded board, a large import): its page cache holds
   * the indexes being built, so a million rows do not each re-read and re-write index pages.
   */
  bulk?: boolean;
  /**
   * Opened as a finished workspace (a command's session, a copy's source): a PostgreSQL schema
   * with no workspace id yet is refused (see unfinishedWorkspace). SQLite does not look.
   */
  requireIdentity?: boolean;
}

/**
 * Page cache per connection, in KiB; it fills only as pages are read. SQLite's default, 2 MiB,
 * is smaller than what one recall reads from the full-text index of a million facts, so every
 * call re-read it all from the OS. A bulk connection holds the indexes it is building.
 */
const CACHE_KIB = 32 * 1024;
const BULK_CACHE_KIB = 256 * 1024;

export function openSqliteStore(path: string, options: OpenOptions = {}): Store {
  try {
    return new SqliteStore(path, options);
  } catch (error) {
    throw translateSqliteError(error, path) ?? error;
  }
}

class SqliteStore implements Store {
  readonly schemaVersion: number;
  readonly shared = false;
  readonly changes: ChangeSignal;
  private readonly readonly: boolean;
  private readonly db: Database.Database;
  private readonly mutex = new Mutex();
  private readonly tx: Tx;
  private journaled = false;
  private readonly totalChanges: Database.Statement<[], { n: number }>;

  constructor(
    private readonly path: string,
    options: OpenOptions,
  ) {
    this.readonly = options.readonly === true;
    this.db = new Database(path, {
      fileMustExist: !options.create,
      readonly: this.readonly,
      nativeBinding: sqliteBinding(),
    });
    // Settings go in one exec: each db.pragma() prepares a statement of its own.
    this.db.exec(
      `PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}; PRAGMA foreign_keys = ON; PRAGMA cache_size = -${options.bulk ? BULK_CACHE_KIB : CACHE_KIB};`,
    );
    if (this.readonly) {
      // Belt and braces: the connection is opened read-only, and queries may not write either.
      this.db.exec("PRAGMA query_only = ON");
      this.schemaVersion = checkSchema(this.db);
    } else {
      // WAL lets readers and one writer proceed together across processes; NORMAL sync is
      // durable at every checkpoint and never corrupts on a crash.
      if (this.db.pragma("journal_mode", { simple: true }) !== "wal") this.db.pragma("journal_mode = WAL");
      this.db.exec("PRAGMA synchronous = NORMAL");
      this.schemaVersion = migrate(
        this.db,
        options.create === true,
        options.create ? options.atSchema : undefined,
      );
    }
    this.changes = dataVersionSignal(this.db);
    this.totalChanges = this.db.prepare("SELECT total_changes() AS n");
    // Each repository prepares its statements when first used: a CLI call touches a few of the
    // ~175, and preparing them all cost every open several milliseconds.
    this.tx = lazyRepositories<Tx>({
      agents: () => sqliteAgents(this.db),
      journal: () =>
        sqliteJournal(this.db, () => {
          this.journaled = true;
        }),
      meta: () => sqliteMeta(this.db),
      transfer: () => sqliteTransfer(this.db),
      counts: () => sqliteCounts(this.db),
      goals: () => sqliteGoals(this.db),
      notes: () => sqliteNotes(this.db),
      facts: () => sqliteFacts(this.db),
      risks: () => sqliteRisks(this.db),
      glossary: () => sqliteGlossary(this.db),
      briefs: () => sqliteBriefs(this.db),
      tasks: () => sqliteTasks(this.db),
      asks: () => sqliteAsks(this.db),
      queues: () => sqliteQueues(this.db),
      shortcuts: () => sqliteShortcuts(this.db),
      agentRuns: () => sqliteAgentRuns(this.db),
      agentWindows: () => sqliteAgentWindows(this.db),
    });
  }

  read<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    return this.transaction("BEGIN", work);
  }

  write<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    if (this.readonly) {
      return Promise.reject(operational("internal: a write was attempted on a read-only connection"));
    }
    return this.transaction("BEGIN IMMEDIATE", work, true);
  }

  private transaction<T>(begin: string, work: (tx: Tx) => Promise<T>, writing = false): Promise<T> {
    return this.mutex.run(async () => {
      if (!this.db.open) throw closedStore();
      try {
        this.db.exec(begin);
      } catch (error) {
        throw this.translate(error);
      }
      this.journaled = false;
      const changesBefore = this.totalChanges.get()?.n ?? 0;
      try {
        const result = await work(this.tx);
        const changed = (this.totalChanges.get()?.n ?? 0) !== changesBefore;
        if (changed && !writing) throw operational("internal: a read transaction changed the workspace");
        if (changed && !this.journaled)
          throw operational("internal: a write was not journaled; nothing was saved");
        this.db.exec("COMMIT");
        return result;
      } catch (error) {
        if (this.db.inTransaction) this.db.exec("ROLLBACK");
        throw this.translate(error);
      }
    });
  }

  private translate(error: unknown): unknown {
    if (error instanceof CairnError) return error;
    return translateSqliteError(error, this.path) ?? error;
  }

  async close(): Promise<void> {
    await this.mutex.run(async () => {
      if (this.db.open) this.db.close();
    });
  }

  async reclaimDeleted(): Promise<void> {
    await this.mutex.run(async () => {
      // Best effort: a reader in another process holds frames back, and then only what it
      // allows is moved; the rest goes at the next checkpoint.
      if (this.db.open && !this.readonly) this.db.pragma("wal_checkpoint(TRUNCATE)");
    });
  }
}

/** A database with no cairn schema; an empty one is what an init killed part way left. */
function noSchema(db: Database.Database): CairnError {
  const blank = db.prepare<[], { n: number }>("SELECT count(*) AS n FROM sqlite_master").get()?.n === 0;
  return blank
    ? operational(
        "the workspace database is empty: an init here was stopped before it made the workspace",
        "run `cairn init` here again",
      )
    : operational("the workspace database holds no cairn schema", "run `cairn init` in a new directory");
}

/**
 * A read-only connection migrates nothing: it serves only a schema this build knows exactly. So
 * does a reader that goes around the store (store copy).
 */
export function checkSchema(db: Database.Database): number {
  const hasLedger = db
    .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'")
    .get();
  if (!hasLedger) throw noSchema(db);
  const applied = new Set(
    db
      .prepare<[], { name: string }>("SELECT name FROM schema_migrations")
      .all()
      .map((row) => row.name),
  );
  const known = MIGRATIONS.map((migration) => migration.name);
  if ([...applied].some((name) => !known.includes(name))) {
    throw operational("this workspace was written by a newer cairn", "upgrade cairn; nothing was changed");
  }
  if (known.some((name) => !applied.has(name))) {
    throw operational(
      "this workspace needs a schema upgrade that a read-only connection cannot apply",
      "run any cairn command (e.g. `cairn status`) once, then retry",
    );
  }
  return MIGRATIONS.length;
}

/**
 * Apply what is missing (the first `upTo` migrations, all by default); refuse a database that a
 * newer cairn has migrated further.
 */
function migrate(db: Database.Database, creating: boolean, upTo = MIGRATIONS.length): number {
  const wanted = MIGRATIONS.slice(0, upTo);
  const hasLedger = db
    .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'")
    .get();
  if (!hasLedger && !creating) throw noSchema(db);
  const appliedNames = () =>
    new Set(
      db
        .prepare<[], { name: string }>("SELECT name FROM schema_migrations")
        .all()
        .map((row) => row.name),
    );
  const refuseNewer = (applied: Set<string>) => {
    const known = new Set(MIGRATIONS.map((migration) => migration.name));
    const unknown = [...applied].filter((name) => !known.has(name));
    if (unknown.length > 0) {
      throw operational(
        `this workspace was written by a newer cairn (schema ${applied.size}, this build knows ${known.size}; unknown: ${unknown.join(", ")})`,
        "upgrade cairn; nothing was changed",
      );
    }
  };
  if (hasLedger) {
    const applied = appliedNames();
    refuseNewer(applied);
    if (wanted.every((migration) => applied.has(migration.name))) return wanted.length;
  }
  // Another process may be migrating too: decide what is pending only once the write lock is held.
  db.transaction(() => {
    db.exec("CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)");
    const applied = appliedNames();
    refuseNewer(applied);
    const record = db.prepare("INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)");
    for (const migration of wanted) {
      if (applied.has(migration.name)) continue;
      db.exec(migration.sql);
      record.run(migration.name, new Date().toISOString());
    }
    db.pragma(`user_version = ${wanted.length}`);
  }).immediate();
  return wanted.length;
}
