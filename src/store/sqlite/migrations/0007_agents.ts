import type { Migration } from "./migration.js";

/**
 * Local agents: one row per run, whatever started it, with the trigger that did; the daemon's
 * window marks (given up, stale) and the time it first saw each schedule. Manifests stay files.
 */
export const agents: Migration = {
  name: "0007_agents",
  sql: `
    CREATE TABLE agent_runs (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      id TEXT NOT NULL UNIQUE,
      agent TEXT NOT NULL,
      schedule TEXT NOT NULL,
      trigger TEXT NOT NULL CHECK (trigger IN ('schedule', 'mcp', 'cli', 'remediation')),
      window_at TEXT,
      status TEXT NOT NULL CHECK (status IN ('running', 'ok', 'failed', 'timed_out', 'cancelled', 'interrupted', 'skipped')),
      exit_code INTEGER,
      started_at TEXT NOT NULL,
      finished_at TEXT,
      duration_ms INTEGER,
      pid INTEGER,
      supervisor_pid INTEGER NOT NULL,
      manifest_path TEXT NOT NULL,
      manifest_hash TEXT NOT NULL,
      log_path TEXT,
      stderr_tail TEXT NOT NULL DEFAULT '',
      reason TEXT,
      identity TEXT,
      CHECK ((trigger = 'schedule') = (window_at IS NOT NULL))
    );
    CREATE INDEX agent_runs_window ON agent_runs(agent, schedule, window_at) WHERE window_at IS NOT NULL;
    CREATE INDEX agent_runs_agent ON agent_runs(agent, seq);
    CREATE INDEX agent_runs_running ON agent_runs(status) WHERE status = 'running';

    CREATE TABLE agent_windows (
      agent TEXT NOT NULL,
      schedule TEXT NOT NULL,
      window_at TEXT NOT NULL,
      mark TEXT NOT NULL CHECK (mark IN ('given_up', 'stale')),
      marked_at TEXT NOT NULL,
      PRIMARY KEY (agent, schedule, window_at)
    );

    CREATE TABLE agent_schedules_seen (
      agent TEXT NOT NULL,
      schedule TEXT NOT NULL,
      first_seen_at TEXT NOT NULL,
      PRIMARY KEY (agent, schedule)
    );
  `,
};
