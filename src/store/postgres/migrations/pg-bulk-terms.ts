/**
 * PostgreSQL-only (no SQLite twin; recorded as `pg_0100_…` so it can never collide with a shared
 * migration name). Two changes that make a write of many rows cost the same per row as a write of
 * one, with the same resulting rows:
 *
 * - The term counts and corpus totals of recall (`facts_terms`, `facts_stats`) are kept by
 *   statement-level triggers over the transition tables: one grouped upsert per statement
 *   instead of one per row. A statement of 5,000 facts then touches each term and the stats row
 *   once, where the row triggers rewrote the stats row 5,000 times within one transaction.
 * - `cairn_next` with an explicit value (a key taken beforehand, an import) no longer rewrites
 *   the counter row when the value does not raise it: same result, no new row version per row.
 */
export const PG_BULK_TERMS = `
  CREATE OR REPLACE FUNCTION cairn_next(counter text, explicit bigint) RETURNS bigint LANGUAGE plpgsql AS $$
  DECLARE v bigint;
  BEGIN
    IF explicit IS NULL THEN
      INSERT INTO cairn_counters AS c (name, last) VALUES (counter, 1)
        ON CONFLICT (name) DO UPDATE SET last = c.last + 1 RETURNING c.last INTO v;
      RETURN v;
    END IF;
    INSERT INTO cairn_counters AS c (name, last) VALUES (counter, explicit)
      ON CONFLICT (name) DO UPDATE SET last = excluded.last WHERE c.last < excluded.last;
    RETURN explicit;
  END $$;

  -- Signed document vectors: +1 for a row entering the index, -1 for one leaving it.
  CREATE FUNCTION cairn_facts_terms_apply(tsvs tsvector[], lens integer[], signs integer[])
    RETURNS void LANGUAGE sql AS $$
    INSERT INTO facts_terms AS t (term, docs)
      SELECT l.term, sum(c.sign) FROM unnest(tsvs, signs) AS c(tsv, sign), unnest(tsvector_to_array(c.tsv)) AS l(term)
      GROUP BY l.term HAVING sum(c.sign) <> 0
      ON CONFLICT (term) DO UPDATE SET docs = t.docs + excluded.docs;
    UPDATE facts_stats SET docs = docs + s.n, tokens = tokens + s.len
      FROM (SELECT sum(c.sign) AS n, sum(c.sign * c.len) AS len
            FROM unnest(tsvs, lens, signs) AS c(tsv, len, sign) WHERE c.tsv <> ''::tsvector) AS s
      WHERE s.n <> 0 OR s.len <> 0;
  $$;

  CREATE FUNCTION cairn_facts_terms_by_statement() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF TG_OP = 'INSERT' THEN
      PERFORM cairn_facts_terms_apply(array_agg(n._tsv), array_agg(n._len), array_agg(1))
        FROM new_rows n WHERE n._tsv <> ''::tsvector HAVING count(*) > 0;
    ELSIF TG_OP = 'DELETE' THEN
      PERFORM cairn_facts_terms_apply(array_agg(o._tsv), array_agg(o._len), array_agg(-1))
        FROM old_rows o WHERE o._tsv <> ''::tsvector HAVING count(*) > 0;
    ELSE
      PERFORM cairn_facts_terms_apply(array_agg(c.tsv), array_agg(c.len), array_agg(c.sign))
        FROM (SELECT o._tsv, o._len, -1 FROM old_rows o JOIN new_rows n ON n.seq = o.seq
                WHERE o._tsv IS DISTINCT FROM n._tsv AND o._tsv <> ''::tsvector
              UNION ALL
              SELECT n._tsv, n._len, 1 FROM old_rows o JOIN new_rows n ON n.seq = o.seq
                WHERE o._tsv IS DISTINCT FROM n._tsv AND n._tsv <> ''::tsvector) AS c(tsv, len, sign)
        HAVING count(*) > 0;
    END IF;
    RETURN NULL;
  END $$;

  DROP TRIGGER facts_terms_insert ON facts;
  DROP TRIGGER facts_terms_delete ON facts;
  DROP TRIGGER facts_terms_update ON facts;
  DROP FUNCTION cairn_facts_terms();
  CREATE TRIGGER facts_terms_insert AFTER INSERT ON facts REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION cairn_facts_terms_by_statement();
  CREATE TRIGGER facts_terms_delete AFTER DELETE ON facts REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION cairn_facts_terms_by_statement();
  CREATE TRIGGER facts_terms_update AFTER UPDATE ON facts REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION cairn_facts_terms_by_statement();
`;
