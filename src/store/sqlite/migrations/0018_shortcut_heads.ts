import type { Migration } from "./migration.js";

/**
 * Who may run each shortcut, readable without its command. A row holds the command (up to
 * ARGV_TOTAL_CHARS, 16 KiB; 1 MiB in workspaces from before that limit) before the effect, roles
 * and author, so reading those from the table walks the command's overflow pages: every brief
 * read each shortcut's heads that way (0.5 s for 40 shortcuts of 1 MB). This index holds all
 * four, so the heads are read from it alone.
 */
export const shortcutHeads: Migration = {
  name: "0018_shortcut_heads",
  sql: `
    CREATE INDEX IF NOT EXISTS shortcuts_heads ON shortcuts(name, effect, roles, added_by);
  `,
};
