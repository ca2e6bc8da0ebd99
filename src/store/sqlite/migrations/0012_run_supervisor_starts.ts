import type { Migration } from "./migration.js";

/**
 * When a run's supervisor started, as its machine's kernel counts it (the boot and the start
 * time). A pid is reused once its process is gone: a supervisor's pid taken by another process
 * kept its runs "running" for as long as that process lived. The start tells the two apart. Runs
 * recorded before this have none, and are judged by their pid alone, as before.
 */
export const runSupervisorStarts: Migration = {
  name: "0012_run_supervisor_starts",
  sql: `
    ALTER TABLE agent_runs ADD COLUMN supervisor_start TEXT;
  `,
};
