import type { ShortcutEffect, ShortcutHead, ShortcutRecord } from "../tasks.js";

/** Rows of the shortcuts table as both stores read them, and their records (shared, not copied). */
export interface ShortcutRow {
  name: string;
  argv: string;
  effect: ShortcutEffect;
  roles: string;
  summary: string;
  added_by: string;
  version: number;
}

export type ShortcutHeadRow = Pick<ShortcutRow, "name" | "effect" | "roles" | "added_by">;

export const UPSERT_SHORTCUT_SQL = `INSERT INTO shortcuts (name, argv, effect, roles, summary, updated_at, added_by, version) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT(name) DO UPDATE SET argv = excluded.argv, effect = excluded.effect, roles = excluded.roles,
       summary = excluded.summary, updated_at = excluded.updated_at, added_by = excluded.added_by,
       version = excluded.version`;

/**
 * Heads by name. On SQLite they are read from the shortcuts_heads index alone (migration 0018),
 * never from the rows, which hold each command before the columns after it.
 */
export const SHORTCUT_HEADS_SQL = "SELECT name, effect, roles, added_by FROM shortcuts ORDER BY name";

export const toShortcut = (row: ShortcutRow): ShortcutRecord => ({
  name: row.name,
  argv: JSON.parse(row.argv) as string[],
  effect: row.effect,
  roles: JSON.parse(row.roles) as string[],
  summary: row.summary,
  source: "store",
  addedBy: row.added_by,
  version: row.version,
});

export const toShortcutHead = (row: ShortcutHeadRow): ShortcutHead => ({
  name: row.name,
  effect: row.effect,
  roles: JSON.parse(row.roles) as string[],
  source: "store",
  addedBy: row.added_by,
});
