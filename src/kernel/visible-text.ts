/**
 * What a terminal would act on or a reader could not see: control characters (C0, DEL, C1) but
 * tab and newline, and format characters (bidi embeddings, overrides and isolates, zero-width
 * spaces, the byte-order mark, tag characters), and the Unicode line and paragraph separators.
 * The zero-width joiner and non-joiner stay: scripts and emoji need them, and they move nothing.
 * The letters drawn blank (the Hangul fillers, the blank braille pattern) are shown by their
 * codes too: they are no format characters, and `db\u3164\u3164(dry-run)` read as two arguments.
 * Pure and import-free: the CLI and the dashboard's browser bundle both use it.
 */
const INVISIBLE = /(?![\t\n\u200c\u200d])[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\u115f\u1160\u3164\uffa0\u2800]/gu;

/** A character shown by its code: `\r`, `\x1b`, `\u202e`, `\u{e0041}`. */
function visible(char: string): string {
  if (char === "\r") return "\\r";
  const code = char.codePointAt(0) as number;
  if (code <= 0xff) return `\\x${code.toString(16).padStart(2, "0")}`;
  if (code <= 0xffff) return `\\u${code.toString(16).padStart(4, "0")}`;
  return `\\u{${code.toString(16)}}`;
}

/** Every invisible character of `text` shown by its code instead, so it cannot act or hide. */
export function showInvisible(text: string): string {
  return text.replace(INVISIBLE, visible);
}

/** One line of a log: invisible characters and line breaks shown by their codes, so no value in it can forge the next line. */
export const oneLine = (text: string): string => showInvisible(text).replace(/\n/g, "\\n");

/** A character as JSON writes an escape: `\u001b`, `\u202e`, an astral one as its two halves. */
function jsonEscape(char: string): string {
  let escaped = "";
  for (let i = 0; i < char.length; i++) escaped += `\\u${char.charCodeAt(i).toString(16).padStart(4, "0")}`;
  return escaped;
}

/**
 * showInvisible, with each character written as a JSON escape (`\u001b`, not `\x1b`): what it
 * returns stays valid inside a JSON string, so it may run over JSON text too (a `cli` result's).
 */
export function escapeInvisible(text: string): string {
  INVISIBLE.lastIndex = 0;
  return INVISIBLE.test(text) ? text.replace(INVISIBLE, jsonEscape) : text;
}
