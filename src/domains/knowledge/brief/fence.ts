/**
 * Quoted content. A quote opens with a backtick run longer than any run inside the text, so no
 * line of the text can close it (CommonMark's fence rule): whatever an agent wrote stays data.
 */

/**
 * What could hide text from a person reading the brief while a model still reads it, or move
 * it: control characters (C0 but tab and newline, DEL, C1), format characters (bidi marks,
 * embeddings, overrides and isolates, zero-width ones, the BOM, tag characters that spell ASCII
 * unseen) and the line and paragraph separators. They are dropped.
 */
const INVISIBLE_CLASS = "[[\\p{Cc}\\p{Cf}\\p{Zl}\\p{Zp}]--[\\t\\n]]";
// Written as a set difference (the `v` flag), not a lookahead before each character: the same
// characters, tested three times faster, and every quoted text of a brief is tested.
const INVISIBLE = new RegExp(INVISIBLE_CLASS, "gv");
/** The same class without `g`, so a test leaves no state behind. `\r` is in it. */
const HAS_INVISIBLE = new RegExp(INVISIBLE_CLASS, "v");

/**
 * Most text holds none of these: one test, and the text itself, rather than two replacements
 * that copy it (a brief quotes ~50 texts and labels).
 */
export function cleanText(text: string): string {
  if (!HAS_INVISIBLE.test(text)) return text;
  return text.replace(/\r\n?/g, "\n").replace(INVISIBLE, "");
}

function longestBacktickRun(text: string): number {
  if (!text.includes("`")) return 0;
  let longest = 0;
  for (const run of text.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  return longest;
}

/** A label sits on the fence line: one line, no backticks. */
const cleanLabel = (label: string) => {
  const clean = cleanText(label);
  return clean.includes("`") || clean.includes("\n") ? clean.replace(/[`\n]/g, "'") : clean;
};

export function quote(label: string, text: string): string {
  const body = cleanText(text);
  const ticks = "`".repeat(Math.max(3, longestBacktickRun(body) + 1));
  return `${ticks}quote ${cleanLabel(label)}\n${body}\n${ticks}`;
}
