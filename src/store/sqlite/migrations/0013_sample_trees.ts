import type { Migration } from "./migration.js";

/**
 * Which tree each sample was taken to judge: a fingerprint of the attempt's checkout (HEAD and the
 * content of every changed path) when its evaluation started. A decision counts only samples of
 * the tree it would keep, so an attempt evaluated and then edited is not kept on old evidence.
 * Samples recorded before this have none.
 */
export const sampleTrees: Migration = {
  name: "0013_sample_trees",
  sql: `
    ALTER TABLE goal_samples ADD COLUMN tree TEXT;
  `,
};
