import type { Migration } from "./migration.js";

/**
 * Who last confirmed or refuted a finding, beside the verdict. Briefs and note views name them,
 * and read them from the journal before this: one read per finding in every brief. Findings
 * judged before this have none, and are read from the journal as they were.
 */
export const trustSetters: Migration = {
  name: "0020_trust_setters",
  sql: `
    ALTER TABLE notes ADD COLUMN trust_by TEXT;
  `,
};
