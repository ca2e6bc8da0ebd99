import type { TextHead } from "../tasks.js";

/**
 * SQL for the head of a long text column and its length, `<as>_head` and `<as>_length`, taken in
 * SQL when the text is ASCII (one byte a character, no U+0000). Elsewhere SQL's counts are not
 * JavaScript's: SQLite's length() and substr() stop at U+0000, a character past U+FFFF is two
 * UTF-16 units, SQLite keeps a lone surrogate as three bytes it counts as one character and reads
 * back as three U+FFFD, and PostgreSQL stores U+0000 and U+E000 as two characters (encodeText).
 * Such a text is read whole, with a null length, and measured in JavaScript (textHeadOf). An ASCII
 * text's length is its octet_length. Both stores' SQL. What this saves is the text's trip into
 * JavaScript (a string, and its UTF-8 decoding, per row): SQLite still loads the whole value to
 * test it (length) and cut it (substr), so a hundred texts of 120 KB still cost ~24 ms of SQL.
 */
export function headColumns(column: string, chars: number, as: string): string {
  const ascii = `octet_length(${column}) = length(${column})`;
  return `CASE WHEN ${ascii} THEN substr(${column}, 1, ${chars}) ELSE ${column} END AS ${as}_head, CASE WHEN ${ascii} THEN octet_length(${column}) END AS ${as}_length`;
}

/** A head and length read by headColumns; null for a null column. */
export const textHeadOf = (head: string | null, length: number | null): TextHead | null =>
  head === null ? null : { head, length: length ?? head.length };
