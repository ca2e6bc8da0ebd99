import { MIGRATIONS } from "./sqlite/migrations/index.js";

/**
 * Whether a store at schema `current` imports an export written at `schema` (each a count of the
 * migrations both stores share): the same, or older by migrations that changed indexes alone,
 * whose exports hold the very tables and columns this one does. A backup stays restorable across
 * an upgrade that only made reads faster.
 */
export function readsExportsOf(schema: number, current: number): boolean {
  if (!Number.isInteger(schema) || schema < 1 || schema > current) return false;
  return MIGRATIONS.slice(schema, current).every((migration) => migration.indexOnly === true);
}

/** The schema this build writes: the count of the migrations both stores share. */
export const CURRENT_SCHEMA = MIGRATIONS.length;
