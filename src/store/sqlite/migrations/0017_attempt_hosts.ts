import type { Migration } from "./migration.js";

/**
 * The machine an attempt's checkout is on. A store shared by several machines holds all their
 * attempts, and a checkout's path names a folder only on its own machine: two clones at one path
 * on two machines are two checkouts. Set on a shared store only; attempts recorded before this,
 * or on a file store, have none and are taken as local, as they were.
 */
export const attemptHosts: Migration = {
  name: "0017_attempt_hosts",
  sql: `
    ALTER TABLE goal_attempts ADD COLUMN checkout_host TEXT;
  `,
};
