import type { Migration } from "./migration.js";

/**
 * Which note replaced a note, and when. A decision reversed later stood in every brief beside the
 * one that reversed it, both as live; superseded, it stays readable (`note show`, `note list`,
 * marked) and leaves briefs, as a superseded fact leaves recall.
 */
export const noteSuperseding: Migration = {
  name: "0024_note_superseding",
  sql: `
    ALTER TABLE notes ADD COLUMN superseded_by TEXT;
    ALTER TABLE notes ADD COLUMN superseded_at TEXT;
  `,
};
