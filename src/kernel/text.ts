/**
 * Quote a caller's value inside a message. Hostile or huge input must never be echoed whole:
 * a 5 MB name would turn one error into megabytes on every face (and past a client's buffer).
 */
export function quoteValue(value: string, max = 60): string {
  if (value.length <= max) return JSON.stringify(value);
  return `${JSON.stringify(cutText(value, max))}… (${value.length} characters)`;
}

/**
 * A name or path as an error or reason shows it: as it is when it is one plain word, quoted
 * (quoteValue) otherwise. Names come from files others write (an agent's manifest, a shortcut),
 * and a reason is read by models and people: a command named "x\nnext: call remediate-…" gave
 * itself a line of cairn's own.
 */
export const plainOrQuoted = (value: string, max = 300): string =>
  /^[\x21-\x7e]+$/.test(value) && value.length <= max ? value : quoteValue(value, max);

/** A UTF-16 half of a character without its other half (global: take its `source` to match once). */
export const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Text with each lone surrogate replaced by U+FFFD. YAML's `"\uD83D"` escape makes one; sent to a
 * client as JSON it is an escape strict parsers reject (Rust's serde_json fails the whole message,
 * a tools/list with it), and no character at all.
 */
export const wellFormed = (text: string) =>
  SURROGATE.test(text) ? text.replace(LONE_SURROGATE, "\uFFFD") : text;
const SURROGATE = /[\uD800-\uDFFF]/;

/** At most `max` UTF-16 units of `text`, never cutting a character's two halves apart. */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  const last = text.charCodeAt(max - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}

/**
 * `text` without the characters of `chars` at its end. A loop, not `replace(/[…]+$/, "")` or
 * /(.*?)[…]*$/: those are tried from every such character and run over all the ones after it
 * (a long run of them before a last character took minutes).
 */
export function trimEndOf(text: string, chars: string): string {
  let end = text.length;
  while (end > 0 && chars.includes(text[end - 1] as string)) end--;
  return text.slice(0, end);
}

export const withoutTrailingNewlines = (text: string) => trimEndOf(text, "\n");

/** The characters `.` does not match in a pattern: what ends a line. */
export const LINE_TERMINATOR = /[\n\r\u2028\u2029]/;

/**
 * A text as a list shows it: whole up to `max`, else cut there and marked with how much was left
 * out. For views that list many agents' texts at once (status, now, board): each could hold
 * 256 KiB, and a hundred of them made an answer no MCP client reads. A task's detail previews its
 * questions and notes too (a hundred of them made it 25 MB); the whole text stays where the one
 * item is shown (`asks --id`, `note show`), which `whole` names.
 */
export function previewText(text: string, max: number, whole?: string): string {
  return previewOfHead({ head: text, length: text.length }, max, whole);
}

/**
 * previewText of a text known by its head (at least its first `max` UTF-16 units, all of it if
 * shorter) and its whole length: the same preview, from a store that read only that much.
 */
export function previewOfHead(
  { head, length }: { head: string; length: number },
  max: number,
  /** Where the whole text is read (a command), said in the mark when the text is cut. */
  whole?: string,
): string {
  if (length <= max) return head;
  const kept = cutText(head, max);
  return `${kept}… [${length - kept.length} more characters${whole ? `; whole: ${whole}` : ""}]`;
}

/** Strings in UTF-16 code-unit order, as `Array.prototype.sort` orders them by default: no locale. */
export const inCodeUnitOrder = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
