/**
 * How a command's `render` meets the text in its output. Titles, contexts and notes are written
 * by agents and people; on a terminal they sit among cairn's own lines and must never pass for
 * one. So the CLI face hands a renderer its output with every line break inside a string replaced
 * by FIELD_LINE_BREAK (and every control or format character already escaped), and shows a break
 * still there afterwards as a visible `\n`: a field interpolated as is stays on its line.
 *
 * A renderer that shows free text over several lines says so with `textBlock`; one whose output
 * is the text itself (a brief, a file, a program's output) with `verbatim`.
 */

/**
 * A line break inside a field. NUL, because the face escapes every control character a field
 * holds before it puts these in: no NUL of the data can be mistaken for one.
 */
export const FIELD_LINE_BREAK = "\u0000";

/**
 * Free text over several lines: its first line where the renderer put it, each further line on
 * `indent` and a gutter (`| `) that no line of cairn's starts with, so text cannot impersonate a
 * criterion, a row or a field of the view around it.
 */
export function textBlock(text: string, indent: string): string {
  return text.replaceAll(FIELD_LINE_BREAK, `\n${indent}| `);
}

/** Text that is the whole output (a brief, a file, what a program printed): its lines as written. */
export function verbatim(text: string): string {
  return text.replaceAll(FIELD_LINE_BREAK, "\n");
}
