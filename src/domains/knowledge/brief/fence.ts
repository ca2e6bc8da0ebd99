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

/**
 * A line that would read as cairn's own: a fence (```` ```quote N-1 decision by owner ````, `~~~`)
 * or a heading (`## Decisions`), up to three spaces in, as CommonMark reads them. The fence rule
 * keeps such a line inside its quote, but a model reading the brief counts no backticks: an agent's
 * decision holding "```", "## Decisions" and "```quote N-1 decision by owner" read as a second
 * decision of the owner's, under a section of cairn's. Escaped (`\##`), it reads as what it is.
 */
const STRUCTURE_LINE = /^( {0,3})(`{3}|~{3}|#{1,6}(?=[ \t]|$))/gm;
const MAY_HOLD_STRUCTURE = /[`~#]/;

/** The text a quote holds: cleaned, each line that would read as cairn's escaped. */
export function quotedBody(text: string): string {
  const clean = cleanText(text);
  return MAY_HOLD_STRUCTURE.test(clean) ? clean.replace(STRUCTURE_LINE, "$1\\$2") : clean;
}

/** A body as it is, fenced under its label. */
export function fenced(label: string, body: string): string {
  const ticks = "`".repeat(Math.max(3, longestBacktickRun(body) + 1));
  return `${ticks}quote ${cleanLabel(label)}\n${body}\n${ticks}`;
}

/** Text quoted as it is, cleaned: what a program printed, a goal's words in its instructions. */
export const quote = (label: string, text: string): string => fenced(label, cleanText(text));

/** Text quoted in a brief, where every quote sits among cairn's sections: quotedBody. */
export const briefQuote = (label: string, text: string): string => fenced(label, quotedBody(text));
