/** The key columns a counter fills, by the name of the functions that fill and raise them. */
export const COUNTED_KEYS = { seq: "seq", id: "id", _rowid: "rowid" } as const;

/**
 * A row with no key takes the counter's next value as it is inserted (one counter update per
 * row). Rows given their keys (an import, a copy, ids taken beforehand) raise the counter once
 * per statement, to the largest key the statement wrote. Raised row by row, one transaction's
 * inserts updated one counter row over and over, and each update walked every version the
 * transaction had left of that row: a restore of 40,000 rows took 20 s, 10,000 took 1 s.
 * Writers of a workspace hold its lock (see pg-store.ts), so none takes a value in between.
 */
export function counterFunctions(): string {
  return Object.entries(COUNTED_KEYS)
    .map(
      ([column, name]) => `
  CREATE OR REPLACE FUNCTION cairn_fill_${name}() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN IF NEW.${column} IS NULL THEN NEW.${column} := cairn_next(TG_TABLE_NAME, NULL); END IF; RETURN NEW; END $$;
  ${raiseFunction(column, name)}`,
    )
    .join("");
}

/** The statement-level half for one key column; also written beside each table's trigger. */
export function raiseFunction(column: string, name: string): string {
  return `CREATE OR REPLACE FUNCTION cairn_raise_${name}() RETURNS trigger LANGUAGE plpgsql AS $$
  DECLARE top bigint;
  BEGIN
    SELECT max(${column}) INTO top FROM cairn_inserted;
    -- Keys the counter gave are behind it already: a look, not another update of its row.
    IF top > (SELECT coalesce(max(last), 0) FROM cairn_counters WHERE name = TG_TABLE_NAME) THEN
      PERFORM cairn_next(TG_TABLE_NAME, top);
    END IF;
    RETURN NULL;
  END $$;`;
}

/**
 * What every PostgreSQL workspace schema needs before its first table: transactional counters
 * (SQLite's AUTOINCREMENT and rowid, without the gaps a sequence leaves after a rollback) and
 * the trigger functions that fill key columns from them.
 */
export const PLUMBING = `
  CREATE TABLE cairn_counters (name text COLLATE "C" PRIMARY KEY, last bigint NOT NULL);

  -- The next value of a counter; an explicit value (an import, a short id taken beforehand)
  -- only raises it, so a value is never handed out twice.
  CREATE FUNCTION cairn_next(counter text, explicit bigint) RETURNS bigint LANGUAGE plpgsql AS $$
  DECLARE v bigint;
  BEGIN
    IF explicit IS NULL THEN
      INSERT INTO cairn_counters AS c (name, last) VALUES (counter, 1)
        ON CONFLICT (name) DO UPDATE SET last = c.last + 1 RETURNING c.last INTO v;
      RETURN v;
    END IF;
    INSERT INTO cairn_counters AS c (name, last) VALUES (counter, explicit)
      ON CONFLICT (name) DO UPDATE SET last = greatest(c.last, explicit);
    RETURN explicit;
  END $$;

${counterFunctions()}`;

/** Updates, deletes and TRUNCATE of the journal are refused by the database itself. */
export const JOURNAL_GUARDS = `
  CREATE FUNCTION cairn_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN RAISE EXCEPTION 'the event journal is append-only'; END $$;
  CREATE TRIGGER events_no_change BEFORE UPDATE OR DELETE ON events
    FOR EACH ROW EXECUTE FUNCTION cairn_append_only();
  CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events
    FOR EACH STATEMENT EXECUTE FUNCTION cairn_append_only();
`;
