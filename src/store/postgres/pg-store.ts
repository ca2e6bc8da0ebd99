import type pg from "pg";
import { sha256Hex } from "../../kernel/builtins.js";
import { CairnError, operational } from "../../kernel/outcome.js";
import { Mutex } from "../sqlite/mutex.js";
import { type ChangeSignal, closedStore, type Store, type Tx } from "../store.js";
import { pgAgentRuns, pgAgentWindows } from "./agent-runs.js";
import { pgAgents } from "./agents.js";
import { BEGIN_WRITE, connect } from "./connection.js";
import { pgDb, send } from "./db.js";
import { isConnectionError, translatePgError } from "./errors.js";
import { pgFacts } from "./facts.js";
import { pgGoals } from "./goals.js";
import { pgJournal } from "./journal.js";
import { JournalBuffer } from "./journal-buffer.js";
import type { PgTarget } from "./location.js";
import { type PgLocation, targetOf } from "./location.js";
import { pgMeta } from "./meta.js";
import { migratePg, pgMigrationsAt, unfinishedWorkspace, workspaceIdOf } from "./migrate.js";
import { SHARED_PG_MIGRATIONS } from "./migrations/index.js";
import { pgNotes } from "./notes.js";
import { pgBriefs, pgGlossary, pgRisks } from "./risks.js";
import { pgAsks, pgQueues, pgShortcuts } from "./task-extras.js";
import { pgTasks } from "./tasks.js";
import { pgCounts, pgTransfer } from "./transfer.js";
import { ChangeFeed } from "./watch.js";

export interface PgOpenOptions {
  /** Create the schema and apply every migration (only `cairn init` and copies do this). */
  create?: boolean;
  /**
   * With `create`: a schema at this shared version (see pgMigrationsAt), for an export an earlier
   * cairn wrote; the next writer's open migrates it forward.
   */
  atSchema?: number;
  /**
   * Refuse a schema with no workspace id (what an init, import or copy stopped part way leaves):
   * every command's session asks for this; init, imports and copies write the id themselves.
   */
  requireIdentity?: boolean;
  /**
   * A session that cannot write (`cairn ui`): `default_transaction_read_only` is set on the
   * connection, `write()` is refused and no migration is applied.
   */
  readonly?: boolean;
  /**
   * Transactions as they were before their round trips were folded: BEGIN awaited on its own,
   * each journal append sent on its own (the same-run baseline of `npm run bench -- pg`; not
   * reachable from configuration).
   */
  baselineWrites?: boolean;
}

/** The NOTIFY channel of a workspace: a fixed-length name, whatever the schema is called. */
export const channelOf = (schema: string) => `cairn_${sha256Hex(schema).slice(0, 24)}`;

const RESTART_GRACE_MS = 5_000;

const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;

export function openPostgresStore(location: PgLocation, options: PgOpenOptions = {}): Store {
  return new PostgresStore(location, options);
}

/**
 * One connection per process, transactions queued on it (like the SQLite store). A write takes
 * the workspace's transaction-scoped advisory lock first, at READ COMMITTED (stated, whatever
 * the server's default): writers to one workspace run one at a time exactly as under SQLite's
 * BEGIN IMMEDIATE, so every repository's read-check-write stays correct across processes and
 * machines. Reads take no lock and see one
 * snapshot. A lost connection fails the call in flight (nothing unacknowledged is kept) and the
 * next call connects again.
 */
class PostgresStore implements Store {
  readonly schemaVersion: number;
  readonly shared = true;
  private readonly target: PgTarget;
  private readonly mutex = new Mutex();
  private client: pg.Client | undefined;
  /** The client of the transaction in flight: it stays its client even if the link drops. */
  private active: pg.Client | undefined;
  /** Set when close is called: no change feed starts listening after that. */
  private closing = false;
  /** Set by close in its turn on the mutex: transactions queued before it still run. */
  private closed = false;
  private migrated = false;
  private connectedOnce = false;
  private changed = false;
  private lastEvent = 0;
  private readonly tx: Tx;
  private readonly held = new JournalBuffer();
  /** Takes the workspace lock, then reads the events counter under it (see JournalBuffer). */
  private readonly lock: string;
  private readonly lockOnly: string;
  private readonly channel: string;
  private feed: ChangeFeed | undefined;
  private watching: (() => void) | undefined;
  /** The last event this handle committed: its own writes move its version too. */
  private committedHead = 0;

  constructor(
    private readonly location: PgLocation,
    private readonly options: PgOpenOptions,
  ) {
    this.target = targetOf(location);
    this.schemaVersion =
      options.create && options.atSchema !== undefined ? options.atSchema : SHARED_PG_MIGRATIONS.length;
    this.lockOnly = `SELECT pg_advisory_xact_lock(hashtextextended(${literal(`cairn:ws:${location.schema}`)}, 0))`;
    this.lock = `${this.lockOnly}; SELECT coalesce((SELECT last FROM cairn_counters WHERE name = 'events'), 0) AS last`;
    this.channel = channelOf(location.schema);
    const db = pgDb(
      () => this.active as pg.Client,
      (result) => {
        if ((result.rowCount ?? 0) > 0 && result.command !== "SELECT") this.changed = true;
      },
      async (sql) => {
        if (this.held.pending > 0) await this.flushHeld();
        this.held.noteStatement(sql);
      },
    );
    this.tx = {
      agents: pgAgents(db),
      journal: pgJournal(
        db,
        (id) => {
          this.lastEvent = id;
        },
        this.held,
        () => this.flushHeld(),
      ),
      meta: pgMeta(db),
      transfer: pgTransfer(db),
      counts: pgCounts(db),
      goals: pgGoals(db),
      notes: pgNotes(db),
      facts: pgFacts(db),
      risks: pgRisks(db),
      glossary: pgGlossary(db),
      briefs: pgBriefs(db),
      tasks: pgTasks(db),
      asks: pgAsks(db),
      queues: pgQueues(db),
      shortcuts: pgShortcuts(db),
      agentRuns: pgAgentRuns(db),
      agentWindows: pgAgentWindows(db),
    };
  }

  /** One snapshot for the whole read, stated as the write's isolation is. */
  read<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    return this.transaction("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", work, false);
  }

  write<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    if (this.options.readonly) {
      return Promise.reject(operational("internal: a write was attempted on a read-only connection"));
    }
    return this.transaction(
      `${BEGIN_WRITE}; ${this.options.baselineWrites ? this.lockOnly : this.lock}`,
      work,
      true,
    );
  }

  /**
   * NOTIFY-driven: `version()` is the highest journal event announced (its first call starts
   * listening and keeps listening until close), `subscribe` pushes each new head.
   */
  readonly changes: ChangeSignal = {
    version: () => {
      if (!this.closing) this.watching ??= this.feedOf().subscribe(() => {});
      return Math.max(this.feed?.latest ?? 0, this.committedHead);
    },
    // Once closing, nothing starts listening again (its connection would outlive the store).
    subscribe: (listener) => (this.closing ? () => {} : this.feedOf().subscribe(listener)),
  };

  private feedOf(): ChangeFeed {
    this.feed ??= new ChangeFeed(this.location, this.channel);
    return this.feed;
  }

  private async connection(): Promise<pg.Client> {
    if (this.client) return this.client;
    const client = await this.reconnect();
    const forget = () => {
      if (this.client === client) this.client = undefined;
    };
    client.on("error", forget);
    client.on("end", forget);
    try {
      if (this.options.readonly) await client.query("SET default_transaction_read_only = on");
      if (!this.migrated) {
        const identity = this.options.requireIdentity ? workspaceIdOf(client) : undefined;
        await migratePg(
          client,
          this.target,
          this.options.create === true,
          this.options.readonly === true,
          pgMigrationsAt(this.schemaVersion),
        );
        if (identity && (await identity)() === null) throw unfinishedWorkspace(this.target);
        this.migrated = true;
      }
    } catch (error) {
      await client.end().catch(() => {});
      throw error;
    }
    this.client = client;
    return client;
  }

  /**
   * A server that answered before and refuses now is most likely restarting: wait for it a few
   * seconds rather than failing every call. A first connection fails at once (wrong host or port).
   */
  private async reconnect(): Promise<pg.Client> {
    const deadline = Date.now() + RESTART_GRACE_MS;
    for (;;) {
      try {
        const client = await connect({ location: this.location, pipeline: true });
        this.connectedOnce = true;
        return client;
      } catch (error) {
        const restarting = /^(ECONNREFUSED|ECONNRESET|57P03|57P01)$/.test(
          String((error as { code?: unknown }).code),
        );
        if (!this.connectedOnce || !restarting || Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }

  /** Send the held journal appends now (before another statement, or a full slice). */
  private async flushHeld(): Promise<void> {
    const client = this.active as pg.Client;
    await Promise.all(this.held.drain().map((query) => send(client, query)));
  }

  private drop(client: pg.Client): void {
    if (this.client === client) this.client = undefined;
    client.end().catch(() => {});
  }

  /**
   * BEGIN (and, for a write, the workspace lock and the events counter) is not awaited: the
   * connection pipelines, so it leaves together with the work's first statement and the lock
   * wait costs no round trip of its own. Nothing can run outside the transaction: behind a
   * failed BEGIN every statement fails too ("current transaction is aborted"), and the error
   * reported is BEGIN's own (a lock timeout, a lost connection).
   */
  private transaction<T>(begin: string, work: (tx: Tx) => Promise<T>, writing: boolean): Promise<T> {
    return this.mutex.run(async () => {
      if (this.closed) throw closedStore();
      let client: pg.Client;
      try {
        client = await this.connection();
      } catch (error) {
        throw this.translate(error);
      }
      const begun = send(client, begin).then((results) => {
        const last = writing
          ? Number((results as unknown as pg.QueryResult[])[2]?.rows[0]?.last)
          : Number.NaN;
        return Number.isSafeInteger(last) ? last : undefined;
      });
      const failure = begun.then(
        () => undefined,
        (error: unknown) => error ?? new Error("BEGIN failed"),
      );
      this.changed = false;
      this.lastEvent = 0;
      this.held.reset(begun);
      this.active = client;
      let committing = false;
      try {
        if (this.options.baselineWrites) await failure;
        const result = await work(this.tx);
        await begun;
        if (this.changed && !writing) throw operational("internal: a read transaction changed the workspace");
        if (this.changed && this.lastEvent === 0)
          throw operational("internal: a write was not journaled; nothing was saved");
        // Held journal appends, the hint and COMMIT leave together (pipelined: one round trip).
        // The hint is delivered only if it commits, one per transaction. Should an append fail,
        // the transaction is aborted and COMMIT answers ROLLBACK: the append's error is thrown.
        const appends = this.held.drain().map((query) => send(client, query));
        const notify = this.lastEvent > 0 ? `SELECT pg_notify('${this.channel}', '${this.lastEvent}'); ` : "";
        committing = true;
        const commit = send(client, `${notify}COMMIT`);
        const settled = await Promise.allSettled([...appends, commit]);
        const failed = settled.find((outcome) => outcome.status === "rejected");
        if (failed) throw (failed as PromiseRejectedResult).reason;
        const answers = (settled.at(-1) as PromiseFulfilledResult<pg.QueryResult>).value;
        const last = (Array.isArray(answers) ? answers.at(-1) : answers) as pg.QueryResult;
        if (last.command !== "COMMIT")
          throw operational("internal: the transaction did not commit; nothing was saved");
        if (this.lastEvent > 0) this.committedHead = this.lastEvent;
        return result;
      } catch (error) {
        const cause = (await failure) ?? error;
        if (isConnectionError(cause)) this.drop(client);
        else await send(client, "ROLLBACK").catch(() => this.drop(client));
        // COMMIT left and no answer came back: the server may well have committed. Saying that
        // nothing was saved would have the caller do it twice.
        if (committing && isConnectionError(cause)) {
          throw operational(
            `the connection to PostgreSQL at ${this.target.host}:${this.target.port} was lost while the change was committing: it may have been saved`,
            "check what you changed (cairn status, the journal) before retrying: a retry may do it twice",
          );
        }
        throw this.translate(cause);
      } finally {
        this.held.reset(undefined);
        this.active = undefined;
      }
    });
  }

  private translate(error: unknown): unknown {
    if (error instanceof CairnError) return error;
    return translatePgError(error, this.target) ?? error;
  }

  async close(): Promise<void> {
    this.closing = true;
    this.watching?.();
    await this.feed?.close();
    await this.mutex.run(async () => {
      this.closed = true;
      const client = this.client;
      this.client = undefined;
      await client?.end().catch(() => {});
    });
  }
}
