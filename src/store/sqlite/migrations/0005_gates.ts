import type { Migration } from "./migration.js";

/**
 * Gates you can trust: an attempt binds to the checkout it was opened in, remembers the content
 * of the paths that were already dirty (so revert can tell them from its own edits), the frozen
 * inputs it touched, and how the owner resolved a review. Samples say whether they measured the
 * attempt or its base (noisy evaluators are measured against the base in the same session).
 * Contract changes are kept as history.
 */
export const gates: Migration = {
  name: "0005_gates",
  sql: `
    ALTER TABLE goal_attempts ADD COLUMN checkout TEXT;
    ALTER TABLE goal_attempts ADD COLUMN base_hashes TEXT NOT NULL DEFAULT '{}';
    ALTER TABLE goal_attempts ADD COLUMN inputs_approved_by TEXT;
    ALTER TABLE goal_attempts ADD COLUMN input_drift TEXT NOT NULL DEFAULT '[]';
    ALTER TABLE goal_attempts ADD COLUMN resolution TEXT;
    CREATE INDEX goal_attempts_checkout ON goal_attempts(checkout, verdict);

    ALTER TABLE goal_samples ADD COLUMN side TEXT NOT NULL DEFAULT 'attempt'
      CHECK (side IN ('attempt', 'base'));

    CREATE TABLE goal_contract_changes (
      seq INTEGER PRIMARY KEY,
      goal_id TEXT NOT NULL REFERENCES goals(id),
      changed_by TEXT NOT NULL,
      at TEXT NOT NULL,
      fields TEXT NOT NULL,
      before TEXT NOT NULL,
      after TEXT NOT NULL
    );
    CREATE INDEX goal_contract_changes_goal ON goal_contract_changes(goal_id, seq);
  `,
};
