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

  CREATE FUNCTION cairn_fill_seq() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN NEW.seq := cairn_next(TG_TABLE_NAME, NEW.seq); RETURN NEW; END $$;
  CREATE FUNCTION cairn_fill_id() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN NEW.id := cairn_next(TG_TABLE_NAME, NEW.id); RETURN NEW; END $$;
  CREATE FUNCTION cairn_fill_rowid() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN NEW._rowid := cairn_next(TG_TABLE_NAME, NEW._rowid); RETURN NEW; END $$;
`;

/** Updates, deletes and TRUNCATE of the journal are refused by the database itself. */
export const JOURNAL_GUARDS = `
  CREATE FUNCTION cairn_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN RAISE EXCEPTION 'the event journal is append-only'; END $$;
  CREATE TRIGGER events_no_change BEFORE UPDATE OR DELETE ON events
    FOR EACH ROW EXECUTE FUNCTION cairn_append_only();
  CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events
    FOR EACH STATEMENT EXECUTE FUNCTION cairn_append_only();
`;
