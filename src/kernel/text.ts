/**
 * Quote a caller's value inside a message. Hostile or huge input must never be echoed whole:
 * a 5 MB name would turn one error into megabytes on every face (and past a client's buffer).
 */
export function quoteValue(value: string, max = 60): string {
  if (value.length <= max) return JSON.stringify(value);
  return `${JSON.stringify(cutText(value, max))}… (${value.length} characters)`;
}

/** A UTF-16 half of a character without its other half. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

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
 * `text` without its trailing newlines. A loop, not `replace(/\n*$/, "")`: that pattern is tried
 * from every newline and runs over all the newlines after each one (a long run of newlines before
 * a last character took minutes).
 */
export function withoutTrailingNewlines(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 10) end--;
  return text.slice(0, end);
}
