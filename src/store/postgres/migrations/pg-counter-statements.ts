import { counterFunctions } from "./plumbing.js";

/**
 * PostgreSQL-only (`pg_0103_…`): rows given their keys raise their table's counter once per
 * statement, no longer once per row (see counterFunctions in ./plumbing.ts). Schemas made before
 * get the new functions, and every table filled by a counter gets its statement-level trigger;
 * on a schema made since, both are there already and this changes nothing.
 */
export const PG_COUNTER_STATEMENTS = `${counterFunctions()}
  DO $$
  DECLARE t record;
  BEGIN
    FOR t IN
      SELECT c.relname AS tab, substring(p.proname FROM 'cairn_fill_(.*)') AS kind
      FROM pg_trigger g
      JOIN pg_class c ON c.oid = g.tgrelid
      JOIN pg_proc p ON p.oid = g.tgfoid
      WHERE c.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema())
        AND p.proname IN ('cairn_fill_seq', 'cairn_fill_id', 'cairn_fill_rowid')
        AND NOT EXISTS (
          SELECT 1 FROM pg_trigger r WHERE r.tgrelid = g.tgrelid AND r.tgname = c.relname || '_counter_raise')
    LOOP
      EXECUTE format(
        'CREATE TRIGGER %I AFTER INSERT ON %I REFERENCING NEW TABLE AS cairn_inserted '
        'FOR EACH STATEMENT EXECUTE FUNCTION %I()',
        t.tab || '_counter_raise', t.tab, 'cairn_raise_' || t.kind);
    END LOOP;
  END $$;
`;
