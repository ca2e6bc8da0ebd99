import type { Migration } from "./migration.js";

/**
 * Who added each criterion. A holder may add criteria to a task it holds, and a finish that rests
 * on a command is recorded verified: a holder adding `verify: ["true"]` to a task its author gave
 * only text criteria had it recorded verified. Only a command its author (or the workspace owner)
 * set makes a finish verified now. Criteria added before this have none, and count as before.
 */
export const criterionAuthors: Migration = {
  name: "0019_criterion_authors",
  sql: `
    ALTER TABLE task_criteria ADD COLUMN added_by TEXT;
  `,
};
