import { showInvisible } from "../src/kernel/visible-text.js";

/**
 * The most combining marks drawn on one character. Writing needs a few (Vietnamese two, pointed
 * Hebrew or a Tibetan stack four or five); hundreds piled on one letter are drawn far above and
 * below its line, over the rows around it and the page's own headings.
 */
const MARKS_DRAWN = 8;
const PILED = new RegExp(`(?<=\\p{M}{${MARKS_DRAWN}})\\p{M}`, "gu");

const code = (char: string) => {
  const point = char.codePointAt(0) as number;
  return point > 0xffff ? `\\u{${point.toString(16)}}` : `\\u${point.toString(16).padStart(4, "0")}`;
};

/**
 * Text as the page shows it: terminal colour codes dropped, every other invisible character (a
 * bidi override, a zero-width space) shown by its code, as the CLI shows it, and marks piled past
 * `MARKS_DRAWN` on one character shown by their codes too.
 */
export function readable(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping terminal escapes is the point.
  return showInvisible(text.replace(/\u001b\[[0-9;?]*[ -/]*[@-~]/g, "")).replace(PILED, code);
}

/**
 * Every string of an answer, made readable before any view sees it. Agents write labels, check
 * commands, evaluator names and the output their commands print as well as titles: a view that
 * showed one of those raw let a right-to-left override reorder what the person reads (a check
 * of `true # ‮tset mpn` drawn as `true # npm test`). Done once here, no field is left out.
 */
export function readableAnswer<T>(value: T): T {
  if (typeof value === "string") return readable(value) as T;
  if (Array.isArray(value)) return value.map(readableAnswer) as T;
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[readable(key)] = readableAnswer(item);
    return out as T;
  }
  return value;
}
