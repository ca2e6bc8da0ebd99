import type { Migration } from "./migration.js";

/**
 * The setting a criterion's verify command runs in (kernel/setting.ts): the PATH folders and home
 * of whoever added the criterion, as JSON. The agent being checked runs the check; without it, a
 * folder or home of its own chose what `npm test` was. Criteria added before this have none, and
 * run in the caller's, as they did.
 */
export const criterionSettings: Migration = {
  name: "0015_criterion_settings",
  sql: `
    ALTER TABLE task_criteria ADD COLUMN setting TEXT;
  `,
};
