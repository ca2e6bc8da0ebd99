import type Database from "better-sqlite3";
import type { ChangeSignal } from "../store.js";

/** As often as the dashboard polls `pulse`: a read of a shared-memory counter, no table. */
const POLL_MS = 100;

/**
 * SQLite's change signal: `PRAGMA data_version` moves whenever another connection (in this
 * process or another one) commits. It costs under a microsecond and reads no table, so a
 * watcher can poll it often; subscribers read the journal head only when it moved.
 */
export function dataVersionSignal(db: Database.Database): ChangeSignal {
  const statement = db.prepare<[], { data_version: number }>("PRAGMA data_version");
  const headOf = db.prepare<[], { head: number }>("SELECT COALESCE(MAX(id), 0) AS head FROM events");
  const version = () => (db.open ? (statement.get()?.data_version ?? 0) : 0);
  return {
    version,
    subscribe(listener) {
      let seen = Number.NaN;
      let head = -1;
      const poll = () => {
        if (!db.open) return;
        const now = version();
        if (now === seen) return;
        seen = now;
        const next = headOf.get()?.head ?? 0;
        if (next > head) {
          head = next;
          listener(next);
        }
      };
      poll();
      const timer = setInterval(poll, POLL_MS);
      timer.unref();
      return () => clearInterval(timer);
    },
  };
}
