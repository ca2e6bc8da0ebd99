/**
 * What a terminal would act on or a reader could not see: control characters (C0, DEL, C1) but
 * tab and newline, and format characters (bidi embeddings, overrides and isolates, zero-width
 * spaces, the byte-order mark, tag characters), and the Unicode line and paragraph separators.
 * The zero-width joiner and non-joiner stay: scripts and emoji need them, and they move nothing.
 * Pure and import-free: the CLI and the dashboard's browser bundle both use it.
 */
const INVISIBLE = /(?![\t\n\u200c\u200d])[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;

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
