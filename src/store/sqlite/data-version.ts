import type Database from "better-sqlite3";
import type { ChangeSignal } from "../store.js";

/**
 * SQLite's change signal: `PRAGMA data_version` moves whenever another connection (in this
 * process or another one) commits. It costs under a microsecond and reads no table, so a
 * watcher can poll it often.
 */
export function dataVersionSignal(db: Database.Database): ChangeSignal {
  const statement = db.prepare<[], { data_version: number }>("PRAGMA data_version");
  return {
    version() {
      return db.open ? (statement.get()?.data_version ?? 0) : 0;
    },
  };
}
