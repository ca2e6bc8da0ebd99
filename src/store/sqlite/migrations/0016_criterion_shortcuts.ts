import type { Migration } from "./migration.js";

/**
 * The shortcut a criterion names, as it was defined when the criterion was set (its argv, effect,
 * roles, source and version), as JSON. cairn.toml is a file the agent being checked can edit:
 * read at check time, `[shortcuts.tests] argv = ["true"]` ticked any criterion that named
 * `tests`. Criteria set before this have none, and read the shortcut at check time, as they did.
 */
export const criterionShortcuts: Migration = {
  name: "0016_criterion_shortcuts",
  sql: `
    ALTER TABLE task_criteria ADD COLUMN shortcut_definition TEXT;
  `,
};
