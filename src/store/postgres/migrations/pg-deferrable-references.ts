/**
 * PostgreSQL-only (`pg_0104_…`): every reference between tables may be checked at the commit
 * instead of row by row. An import restores rows in the order they were made, and a task moved
 * under one made after it names its parent before the parent's row: on PostgreSQL a checked
 * export then failed to import (on SQLite too, where `defer_foreign_keys` now serves). Commands
 * keep the check row by row (INITIALLY IMMEDIATE); only an import defers it (`SET CONSTRAINTS`).
 * Tables made later take the same form from translate.ts.
 */
export const PG_DEFERRABLE_REFERENCES = `
  DO $$
  DECLARE reference record;
  BEGIN
    FOR reference IN
      SELECT c.conname, t.relname FROM pg_constraint c
      JOIN pg_class t ON t.oid = c.conrelid
      JOIN pg_namespace s ON s.oid = t.relnamespace
      WHERE c.contype = 'f' AND s.nspname = current_schema() AND NOT c.condeferrable
    LOOP
      EXECUTE format('ALTER TABLE %I ALTER CONSTRAINT %I DEFERRABLE INITIALLY IMMEDIATE', reference.relname, reference.conname);
    END LOOP;
  END $$;
`;
