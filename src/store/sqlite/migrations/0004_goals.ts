import type { Migration } from "./migration.js";

/**
 * Goal contracts, their milestone DAG, evaluator proposals, frozen runs, attempts and the
 * evidence cairn measured for them. Structured parts of a contract are JSON columns: they are
 * read and written whole, never queried into.
 */
export const goals: Migration = {
  name: "0004_goals",
  sql: `
    CREATE TABLE goals (
      seq INTEGER PRIMARY KEY,
      id TEXT NOT NULL UNIQUE,
      goal TEXT NOT NULL,
      outcome TEXT,
      constraints TEXT NOT NULL DEFAULT '[]',
      non_goals TEXT NOT NULL DEFAULT '[]',
      proofs TEXT NOT NULL DEFAULT '[]',
      created_by TEXT NOT NULL,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    );

    CREATE TABLE goal_milestones (
      seq INTEGER PRIMARY KEY,
      id TEXT NOT NULL UNIQUE,
      goal_id TEXT NOT NULL REFERENCES goals(id),
      key TEXT NOT NULL,
      title TEXT NOT NULL,
      description TEXT NOT NULL DEFAULT '',
      proofs TEXT NOT NULL DEFAULT '[]',
      depends_on TEXT NOT NULL DEFAULT '[]',
      task_id TEXT,
      position INTEGER NOT NULL,
      created_at TEXT NOT NULL,
      UNIQUE (goal_id, key)
    );
    CREATE INDEX goal_milestones_task ON goal_milestones(task_id);

    CREATE TABLE goal_evaluator_proposals (
      seq INTEGER PRIMARY KEY,
      id TEXT NOT NULL UNIQUE,
      goal_id TEXT NOT NULL REFERENCES goals(id),
      proof TEXT NOT NULL,
      definition TEXT NOT NULL,
      status TEXT NOT NULL CHECK (status IN ('proposed', 'approved', 'rejected')),
      proposed_by TEXT NOT NULL,
      decided_by TEXT,
      created_at TEXT NOT NULL,
      decided_at TEXT
    );

    CREATE TABLE goal_runs (
      seq INTEGER PRIMARY KEY,
      id TEXT NOT NULL UNIQUE,
      goal_id TEXT NOT NULL REFERENCES goals(id),
      contract TEXT NOT NULL,
      milestones TEXT NOT NULL,
      manifest TEXT NOT NULL,
      manifest_hash TEXT NOT NULL,
      created_by TEXT NOT NULL,
      created_at TEXT NOT NULL
    );

    CREATE TABLE goal_attempts (
      seq INTEGER PRIMARY KEY,
      id TEXT NOT NULL UNIQUE,
      run_id TEXT NOT NULL REFERENCES goal_runs(id),
      milestone_id TEXT REFERENCES goal_milestones(id),
      base_head TEXT,
      base_dirty INTEGER NOT NULL,
      base_changes TEXT NOT NULL DEFAULT '[]',
      opened_by TEXT NOT NULL,
      opened_at TEXT NOT NULL,
      verdict TEXT CHECK (verdict IN ('keep', 'revert', 'review')),
      decision TEXT,
      decided_at TEXT,
      reverted_at TEXT
    );
    CREATE INDEX goal_attempts_run ON goal_attempts(run_id, verdict);
    CREATE INDEX goal_attempts_milestone ON goal_attempts(milestone_id, verdict);

    -- The best kept measurement of each evaluator in a run: the bar later attempts must not fall
    -- below. Kept attempts are never reverted, so it only ever improves.
    CREATE TABLE goal_baselines (
      run_id TEXT NOT NULL REFERENCES goal_runs(id),
      evaluator TEXT NOT NULL,
      attempt_id TEXT NOT NULL REFERENCES goal_attempts(id),
      mean REAL NOT NULL,
      noise REAL NOT NULL,
      direction TEXT NOT NULL CHECK (direction IN ('higher', 'lower')),
      PRIMARY KEY (run_id, evaluator)
    );

    CREATE TABLE goal_samples (
      seq INTEGER PRIMARY KEY,
      attempt_id TEXT NOT NULL REFERENCES goal_attempts(id),
      evaluator TEXT NOT NULL,
      proof TEXT NOT NULL,
      repeat_index INTEGER NOT NULL,
      exit_code INTEGER,
      value REAL,
      error TEXT,
      duration_ms REAL NOT NULL,
      output_tail TEXT NOT NULL,
      output_hash TEXT NOT NULL,
      git_head TEXT,
      at TEXT NOT NULL
    );
    CREATE INDEX goal_samples_attempt ON goal_samples(attempt_id, seq);

    CREATE TABLE goal_score_reports (
      seq INTEGER PRIMARY KEY,
      attempt_id TEXT NOT NULL REFERENCES goal_attempts(id),
      proof TEXT NOT NULL,
      score REAL NOT NULL CHECK (score >= 0 AND score <= 1),
      reported_by TEXT NOT NULL,
      at TEXT NOT NULL
    );
    CREATE INDEX goal_score_reports_attempt ON goal_score_reports(attempt_id, seq);
  `,
};
