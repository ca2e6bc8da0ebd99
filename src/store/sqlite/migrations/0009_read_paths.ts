import type { Migration } from "./migration.js";

/**
 * Read paths at scale. A page of one status in tree order walks this index from that status's
 * first task, testing the label filter on the index entry, and stops once the page is full;
 * without it a status filter either walked the whole tree (most of a mature board is done) or
 * sorted every match.
 */
export const readPaths: Migration = {
  name: "0009_read_paths",
  sql: `
    CREATE INDEX IF NOT EXISTS tasks_status_tree ON tasks(status, sort_path, labels);
  `,
};
