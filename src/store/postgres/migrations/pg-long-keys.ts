/**
 * PostgreSQL-only (`pg_0101_…`): no btree over text that cairn lets grow past what a btree entry
 * holds. PostgreSQL refuses an index entry past 2,704 bytes (after compression) where SQLite has
 * no such bound, so values within cairn's limits were refused on this store alone:
 *
 * - A live fact's normal form is unique (a fact holds up to 4,000 characters, up to 16,000 bytes):
 *   the unique btree becomes an exclusion constraint over a hash index, the same rule (one live
 *   fact per normal form, 23P01 on a second) with equality lookups still indexed, whatever the
 *   length.
 * - `labels` (up to 1,000 labels of 200 characters) leaves the task indexes: label filters test
 *   a substring, which no btree serves anyway; status and tree order keep theirs.
 */
export const PG_LONG_KEYS = `
  DROP INDEX facts_live_norm;
  ALTER TABLE facts ADD CONSTRAINT facts_live_norm
    EXCLUDE USING hash (norm WITH =) WHERE (superseded_by IS NULL);
  DROP INDEX tasks_labels;
  DROP INDEX tasks_status_tree;
  CREATE INDEX tasks_status_tree ON tasks (status, sort_path);
`;
