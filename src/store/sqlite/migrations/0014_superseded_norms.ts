import type { Migration } from "./migration.js";

/**
 * Superseded facts by their normal form, so `remember` can tell a restatement of a corrected
 * fact from a new one without reading every fact. Partial: only superseded rows, a small part.
 */
export const supersededNorms: Migration = {
  name: "0014_superseded_norms",
  sql: `
    CREATE INDEX facts_superseded_norm ON facts(norm) WHERE superseded_by IS NOT NULL;
  `,
};
