import type { Migration } from "./migration.js";

/**
 * Shortcuts belong to their authors: who added a stored shortcut, and which definition of it is
 * current (each redefinition bumps the version; the journal keeps every version's argv).
 */
export const identity: Migration = {
  name: "0006_identity",
  sql: `
    ALTER TABLE shortcuts ADD COLUMN added_by TEXT NOT NULL DEFAULT 'owner';
    ALTER TABLE shortcuts ADD COLUMN version INTEGER NOT NULL DEFAULT 1;
  `,
};
