import Database from "better-sqlite3";
import { operational } from "./outcome.js";
import { sqliteBinding } from "./sqlite-addon.js";

/**
 * A cross-process exclusive lock on one file, for work that must be serialised across every
 * cairn process on the machine (the audit log's read-tail-then-append).
 *
 * Node has no flock(2). SQLite's locking does the same job and is well proven: `BEGIN EXCLUSIVE`
 * on a small lock database takes a POSIX advisory lock that other processes queue behind (the
 * busy timeout), and the kernel drops the lock when its holder dies, so a crashed writer never
 * leaves a stale lock behind (the flaw of lock files created with O_EXCL). The lock database
 * holds no data; only its locks matter. The wait is long on purpose: SQLite's busy handler
 * polls rather than queues, so under heavy contention on a loaded machine a waiter can be passed
 * over for seconds, and giving up would lose an audit line.
 */
export class FileLock {
  private readonly db: Database.Database;
  private depth = 0;

  constructor(path: string, waitMs = 120_000) {
    this.db = new Database(path, { timeout: waitMs, nativeBinding: sqliteBinding() });
  }

  /** Run `work` while holding the lock; nested calls in the same process reuse the hold. */
  hold<T>(work: () => T): T {
    if (this.depth > 0) return work();
    this.db.exec("BEGIN EXCLUSIVE");
    this.depth++;
    try {
      return work();
    } finally {
      this.depth--;
      this.db.exec("COMMIT");
    }
  }

  close(): void {
    this.db.close();
  }
}

/**
 * Run async `work` holding an exclusive lock on the file at `path`, for work that spans many
 * awaits (git commands): a waiter never blocks the event loop (the lock is tried, not waited on
 * in SQLite's busy handler) and asks again every 50 ms, for up to `waitMs`, then `busy()` is
 * thrown. A holder killed outright lets the lock go with its process.
 */
export async function holdWhileAsync<T>(
  path: string,
  work: () => Promise<T>,
  { waitMs, busy, signal }: { waitMs: number; busy: () => Error; signal?: AbortSignal },
): Promise<T> {
  const db = new Database(path, { timeout: 0, nativeBinding: sqliteBinding() });
  try {
    const deadline = Date.now() + waitMs;
    for (;;) {
      try {
        db.exec("BEGIN EXCLUSIVE");
        break;
      } catch (error) {
        if ((error as { code?: string }).code !== "SQLITE_BUSY") throw error;
        if (Date.now() >= deadline) throw busy();
        if (signal?.aborted) throw operational("cancelled while waiting for the lock; nothing was done");
        await new Promise((wake) => setTimeout(wake, 50));
      }
    }
    try {
      return await work();
    } finally {
      db.exec("COMMIT");
    }
  } finally {
    db.close();
  }
}
