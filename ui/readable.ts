import { showInvisible } from "../src/kernel/visible-text.js";

/**
 * Text as the page shows it: terminal colour codes dropped, and every other invisible character
 * (a bidi override, a zero-width space) shown by its code, as the CLI shows it.
 */
export function readable(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping terminal escapes is the point.
  return showInvisible(text.replace(/\u001b\[[0-9;?]*[ -/]*[@-~]/g, ""));
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
