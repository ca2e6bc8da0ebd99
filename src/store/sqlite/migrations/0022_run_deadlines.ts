import type { Migration } from "./migration.js";

/**
 * When a run's supervisor will have ended it and written its end, if that supervisor lives (its
 * preflights' and its own timeout, and a margin). On a shared board, a run whose machine never
 * came back stayed running for good: no other machine may judge its pid, and the row held its
 * schedule's window on every machine. Past this, any sweep or daemon records it lost. Runs
 * recorded before it have none, and are judged as they were.
 */
export const runDeadlines: Migration = {
  name: "0022_run_deadlines",
  sql: `
    ALTER TABLE agent_runs ADD COLUMN deadline_at TEXT;
  `,
};
