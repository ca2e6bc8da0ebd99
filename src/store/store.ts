/**
 * The store's contract. Domains see only this: asynchronous, SQL-free, transaction-scoped.
 * The embedded SQLite implementation lives in ./sqlite, the shared PostgreSQL one in ./postgres;
 * both pass the same contract tests (test/unit/store.test.ts) and end-to-end suites.
 */

import { operational } from "../kernel/outcome.js";
import type { AgentRunsRepo, AgentWindowsRepo } from "./agent-runs.js";
import type { GoalRepo } from "./goals.js";

export type * from "./agent-runs.js";

export type * from "./goals.js";

import type { AskRepo } from "./asks.js";
import type { BriefsRepo, FactsRepo, GlossaryRepo, NotesRepo, RisksRepo } from "./knowledge.js";
import type { QueueRepo, ShortcutRepo, TaskRepo } from "./tasks.js";

export type * from "./asks.js";
export type * from "./tasks.js";

export type Grant = "rw" | "ro";

export interface AgentRecord {
  id: string;
  name: string;
  role: string;
  grant: Grant;
  parentId: string | null;
  tokenHash: string;
  createdAt: string;
  retiredAt: string | null;
}

export interface NewAgent {
  name: string;
  role: string;
  grant: Grant;
  parentId: string | null;
  tokenHash: string;
}

export interface AgentRepo {
  insert(agent: NewAgent, at: string): Promise<AgentRecord>;
  byId(id: string): Promise<AgentRecord | undefined>;
  /**
   * The names of the agents among `ids` (retired ones too), in one read: a brief labels every
   * author it quotes, and a read per author was a round trip each on a shared store.
   */
  names(ids: readonly string[]): Promise<Map<string, string>>;
  byName(name: string): Promise<AgentRecord | undefined>;
  /** An agent, retired ones too, whose name is this one in any case (names are ASCII). */
  byNameAnyCase(name: string): Promise<AgentRecord | undefined>;
  byTokenHash(tokenHash: string): Promise<AgentRecord | undefined>;
  list(options: { includeRetired: boolean }): Promise<AgentRecord[]>;
  retire(id: string, at: string): Promise<void>;
  /** A new token for an active agent (`agent rotate`): the old one stops working. */
  replaceToken(id: string, tokenHash: string): Promise<void>;
}

export interface JournalEvent {
  id: number;
  at: string;
  actor: string;
  action: string;
  subject: string;
  data: Record<string, unknown>;
}

export type NewJournalEvent = Omit<JournalEvent, "id">;

export interface JournalRepo {
  /** The journal is append-only: the database itself rejects updates and deletes. */
  append(event: NewJournalEvent): Promise<number>;
  recent(limit: number): Promise<JournalEvent[]>;
  /** Events whose subject is this id (a task, a note), newest first. */
  about(subject: string, limit: number): Promise<JournalEvent[]>;
  /** A filtered page of the journal: newest first, or oldest first after a known id (a live tail). */
  list(filter: JournalFilter): Promise<JournalEvent[]>;
}

export interface JournalFilter {
  /** Only events after this id, oldest first (what a live view missed). */
  afterId?: number;
  /** Only events before this id, newest first (the next page back). */
  beforeId?: number;
  actor?: string;
  /** An exact action, or a prefix ending in "." (`task.`). */
  action?: string;
  subject?: string;
  limit: number;
  /**
   * Each event with empty data: for a look at who did what to what (a live feed, a list of
   * lines), which must not read a page of events carrying a 256 KiB reason each.
   */
  withoutData?: boolean;
}

/**
 * A cheap hint that the workspace may have changed: never data, readers then ask the journal
 * what changed. SQLite reads `PRAGMA data_version`; PostgreSQL listens for NOTIFY.
 */
export interface ChangeSignal {
  /** A number that moves when another connection commits; cheap enough to poll often. */
  version(): number;
  /**
   * Pushes "the workspace advanced to journal event `head`" (at least whenever another process
   * or machine wrote), and the current head once at the start. Returns unsubscribe.
   */
  subscribe(listener: (head: number) => void): () => void;
}

export interface MetaRepo {
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string): Promise<void>;
}

/** One line of an export: a row of a named table, values as JSON. */
export interface DumpRecord {
  table: string;
  row: Record<string, unknown>;
}

export interface TransferRepo {
  /** Every stored row, table by table in dependency order, rows in insertion order. */
  dump(): Promise<DumpRecord[]>;
  /** Rows that a fresh workspace does not have yet: anything but workspace metadata. */
  contentCount(): Promise<number>;
  /**
   * Restore rows exactly as dumped; the caller guarantees the workspace holds no content.
   * `pause` is awaited every few thousand rows: a long restore lets the process see a stop.
   */
  restore(records: DumpRecord[], pause?: () => Promise<void>): Promise<void>;
  /**
   * The counters that run ahead of the rows: for each content table whose keys are ids
   * (AUTOINCREMENT, short ids), the highest key it handed out, where rows since deleted held it
   * (a forgotten fact). What an export carries so that its import never hands one of those ids
   * out again; the rows say the rest. The order counters of keyless tables stay home.
   */
  counters(): Promise<Record<string, number>>;
  /** Raise counters (an import's) to at least these values; a table not named keeps its own. */
  raiseCounters(counters: Record<string, number>): Promise<void>;
}

/** Counts of what the workspace holds, by table. */
export interface CountsRepo {
  all(): Promise<Record<string, number>>;
  /** Bytes the workspace takes: SQLite's file and WAL, or the PostgreSQL schema's relations. */
  bytes(): Promise<number>;
}

export interface Tx {
  agents: AgentRepo;
  journal: JournalRepo;
  meta: MetaRepo;
  transfer: TransferRepo;
  counts: CountsRepo;
  goals: GoalRepo;
  notes: NotesRepo;
  facts: FactsRepo;
  risks: RisksRepo;
  glossary: GlossaryRepo;
  briefs: BriefsRepo;
  tasks: TaskRepo;
  asks: AskRepo;
  queues: QueueRepo;
  shortcuts: ShortcutRepo;
  agentRuns: AgentRunsRepo;
  agentWindows: AgentWindowsRepo;
}

export interface Store {
  /** The schema generation of the opened workspace. */
  readonly schemaVersion: number;
  /**
   * Held by a server that several machines reach (PostgreSQL), rather than by a file beside the
   * checkout: what one machine records about its own folders means nothing on another.
   */
  readonly shared: boolean;
  /** Hints that another connection committed (see ChangeSignal). */
  readonly changes: ChangeSignal;
  /** A consistent read; concurrent writers are not blocked. */
  read<T>(work: (tx: Tx) => Promise<T>): Promise<T>;
  /**
   * One atomic change. The write lock is taken up front, so concurrent writers queue instead of
   * failing midway. A change that writes rows without appending a journal event is rolled back:
   * every write is journaled, by construction.
   */
  write<T>(work: (tx: Tx) => Promise<T>): Promise<T>;
  /**
   * Waits for the transactions already queued, then lets go of the database. A read or write
   * asked for afterwards is refused (`closedStore`) and opens nothing: a connection reopened by
   * work that outlived its call would hold the process open with nobody left to close it.
   */
  close(): Promise<void>;
  /**
   * After rows were deleted for good (a forgotten fact, often a leaked secret): let go of the
   * copies of their bytes the store still keeps where it can. SQLite checkpoints its write-ahead
   * log into the (securely deleted) pages and truncates it; PostgreSQL has none to offer (its dead
   * rows go at the next vacuum), so it leaves this out.
   */
  reclaimDeleted?(): Promise<void>;
}

/** What a read or write on a closed store rejects with, whichever store it is. */
export const closedStore = () =>
  operational("internal: the workspace store was used after it was closed; nothing was read or saved");
