import type { Migration } from "./migration.js";

/**
 * The machine whose cairn process supervises a run. A store shared by several machines holds
 * all their runs, and a supervisor's pid means something only on its own machine: a daemon
 * judges a run orphaned only when it was supervised here. Runs recorded before this have none,
 * and are judged as before, as local.
 */
export const runHosts: Migration = {
  name: "0011_run_hosts",
  sql: `
    ALTER TABLE agent_runs ADD COLUMN supervisor_host TEXT;
  `,
};
