/**
 * Full-text search over live facts, ranked by bm25 computed in SQL (FTS5's formula: k1 = 1.2,
 * b = 0.75, text weighing 1 and topics 0.5). The words are the runs of letters and digits, like
 * FTS5's unicode61; accents are folded by unaccent and English words stemmed (no stop words, like
 * FTS5's porter). Term document counts and corpus totals are kept in step by triggers, so a query
 * never counts the corpus.
 */
export const FACTS_SEARCH = (unaccent: string | null) => `
  CREATE TEXT SEARCH DICTIONARY cairn_english (TEMPLATE = snowball, Language = english);
  CREATE TEXT SEARCH CONFIGURATION cairn_fts (COPY = simple);
  ALTER TEXT SEARCH CONFIGURATION cairn_fts
    ALTER MAPPING FOR asciiword, word, numword, asciihword, hword, numhword, hword_asciipart, hword_part, hword_numpart
    WITH ${unaccent ? `${unaccent}, ` : ""}cairn_english;

  -- ASCII punctuation becomes a space before the parser sees the text, so paths, addresses and
  -- versions split into words as in FTS5 (the parser alone keeps src/store/a.ts whole). Classes
  -- like [:alnum:] follow the column's collation ("C": ASCII only), so non-ASCII is left for the
  -- parser, which reads letters by Unicode.
  CREATE FUNCTION cairn_words(value text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT regexp_replace(value COLLATE "C", '[^0-9A-Za-z\\u0080-\\U0010FFFF]+', ' ', 'g') $$;
  CREATE FUNCTION cairn_tsv_len(value tsvector) RETURNS integer LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT coalesce(sum(coalesce(array_length(positions, 1), 1)), 0)::integer FROM unnest(value) $$;

  -- Only live facts are indexed: a superseded fact leaves the index the moment it is superseded.
  ALTER TABLE facts ADD COLUMN _tsv tsvector GENERATED ALWAYS AS (
    CASE WHEN superseded_by IS NULL
      THEN setweight(to_tsvector('cairn_fts', cairn_words(text)), 'A')
        || setweight(to_tsvector('cairn_fts', cairn_words(topics)), 'B')
      ELSE ''::tsvector END) STORED;
  ALTER TABLE facts ADD COLUMN _len integer GENERATED ALWAYS AS (
    CASE WHEN superseded_by IS NULL
      THEN cairn_tsv_len(to_tsvector('cairn_fts', cairn_words(text)) || to_tsvector('cairn_fts', cairn_words(topics)))
      ELSE 0 END) STORED;
  CREATE INDEX facts_tsv ON facts USING gin (_tsv);

  CREATE TABLE facts_terms (term text COLLATE "C" PRIMARY KEY, docs bigint NOT NULL);
  CREATE TABLE facts_stats (one integer PRIMARY KEY CHECK (one = 1), docs bigint NOT NULL, tokens bigint NOT NULL);
  INSERT INTO facts_stats VALUES (1, 0, 0);

  CREATE FUNCTION cairn_facts_terms() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF TG_OP <> 'INSERT' AND OLD._tsv <> ''::tsvector THEN
      UPDATE facts_terms t SET docs = t.docs - 1 FROM unnest(tsvector_to_array(OLD._tsv)) AS l(term)
        WHERE t.term = l.term;
      UPDATE facts_stats SET docs = docs - 1, tokens = tokens - OLD._len;
    END IF;
    IF TG_OP <> 'DELETE' AND NEW._tsv <> ''::tsvector THEN
      INSERT INTO facts_terms AS t (term, docs) SELECT l.term, 1 FROM unnest(tsvector_to_array(NEW._tsv)) AS l(term)
        ON CONFLICT (term) DO UPDATE SET docs = t.docs + 1;
      UPDATE facts_stats SET docs = docs + 1, tokens = tokens + NEW._len;
    END IF;
    RETURN NULL;
  END $$;
  CREATE TRIGGER facts_terms_insert AFTER INSERT ON facts FOR EACH ROW EXECUTE FUNCTION cairn_facts_terms();
  CREATE TRIGGER facts_terms_delete AFTER DELETE ON facts FOR EACH ROW EXECUTE FUNCTION cairn_facts_terms();
  CREATE TRIGGER facts_terms_update AFTER UPDATE ON facts FOR EACH ROW
    WHEN (OLD._tsv IS DISTINCT FROM NEW._tsv) EXECUTE FUNCTION cairn_facts_terms();
`;
