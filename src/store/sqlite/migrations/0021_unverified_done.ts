import type { Migration } from "./migration.js";

/**
 * Two reads of the dashboard and `now` that walked every finished task at each look, 0.1-0.3 s
 * apiece at a board of 140,000 done tasks:
 * - tasks finished unverified (the review queue, `now`, `status`): a partial index holding those
 *   alone, named by the reads that use it (INDEXED BY), so no other read's plan changes;
 * - a status column newest first (the board's done column, `task list --order updated`), read in
 *   that order instead of sorting every task of the status.
 * Indexes only: an export's tables are as they were.
 */
export const unverifiedDone: Migration = {
  name: "0021_unverified_done",
  sql: `
    CREATE INDEX IF NOT EXISTS tasks_unverified_done ON tasks(seq) WHERE status = 'done' AND unverified = 1;
    CREATE INDEX IF NOT EXISTS tasks_status_updated ON tasks(status, updated_at DESC, sort_path);
  `,
  indexOnly: true,
};
