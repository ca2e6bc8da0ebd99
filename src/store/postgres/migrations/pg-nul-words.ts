/**
 * PostgreSQL-only (`pg_0102_…`): U+0000 splits words in recall as it does in FTS5. PostgreSQL
 * text holds it escaped (U+E000 then "0", see encodeText), and the parser read that escape as part
 * of a word: "zulu\0yankee" became one word "zulu\uE0000yankee", found by neither "zulu" nor
 * "yankee" as it is on SQLite. The escaped NUL becomes a space first (the code is prefix-free:
 * U+E000 "0" is always a whole escape). Facts already holding one are indexed again.
 */
export const PG_NUL_WORDS = `
  CREATE OR REPLACE FUNCTION cairn_words(value text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT regexp_replace(replace(value COLLATE "C", chr(57344) || '0', ' '), '[^0-9A-Za-z\\u0080-\\U0010FFFF]+', ' ', 'g') $$;
  UPDATE facts SET text = text
    WHERE strpos(text, chr(57344) || '0') > 0 OR strpos(topics, chr(57344) || '0') > 0;
`;
