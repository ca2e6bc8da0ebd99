import pg from "pg";
import { testPgUrl } from "./workspace.js";

/**
 * Another session holding a workspace's lock on the run's PostgreSQL, as a long write there
 * would: what cairn does next on that schema waits until `release`.
 */
export async function holdWorkspaceLock(schema: string) {
  const holder = new pg.Client({ connectionString: testPgUrl() });
  await holder.connect();
  await holder.query("BEGIN");
  await holder.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [`cairn:ws:${schema}`]);
  return {
    /**
     * Resolves once some session waits for this very lock: the cairn process now blocked. Other
     * tests on the same server hold and wait on advisory locks of their own at the same time.
     */
    async someoneWaits(): Promise<void> {
      for (;;) {
        const waiting = await holder.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_locks waiter JOIN pg_locks held
             ON held.locktype = 'advisory' AND held.granted AND held.pid = pg_backend_pid()
            AND waiter.classid = held.classid AND waiter.objid = held.objid AND waiter.objsubid = held.objsubid
           WHERE waiter.locktype = 'advisory' AND NOT waiter.granted`,
        );
        if ((waiting.rows[0]?.n ?? 0) > 0) return;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    release: async () => {
      await holder.query("COMMIT");
    },
    /** Releases too, if not yet released: the session's end ends its transaction. */
    end: () => holder.end(),
  };
}
