/** Text rules shared by memory and briefs: normalising, tokenising, scopes. */
import { notFound, usageError } from "../../kernel/outcome.js";
import { trimEndOf } from "../../kernel/text.js";
import type { Tx } from "../../store/store.js";
import { taskId } from "../tasks/common.js";

const foldAccents = (text: string) => text.normalize("NFKD").replace(/\p{M}+/gu, "");

const stripScheme = (url: string) => {
  const bare = url.replace(/^(?:https?|ftp):\/\/(?:www\.)?/i, "").replace(/^www\./i, "");
  return trimEndOf(bare, "/");
};

/**
 * Markdown links become their words and their address (just the address when the words are the
 * address); addresses lose scheme, `www.` and a trailing slash. Exported for the test that holds
 * it to the patterns it replaced.
 */
export function flattenLinks(text: string): string {
  return replaceMarkdownLinks(text, (words, url) =>
    stripScheme(words.trim()).toLowerCase() === stripScheme(url).toLowerCase() ? url : `${words} ${url}`,
  )
    .replace(/\b(?:https?|ftp):\/\/(?:www\.)?/gi, "")
    .replace(/\bwww\./gi, "")
    .replace(/\/(?=\s|$|[.,;:!?)])/g, "");
}

const URL_END = /[)\s]/g;

/**
 * text.replace(/\[([^\]]*)\]\(([^)\s]*)\)/g, …) in one pass. The pattern scans from every `[` to
 * the next `]` and from every `](` to the next `)` or space: a note of 100,000 `[` before one
 * `](x` held the server for 19 s, and every brief quoting it again. Here every `[` before the
 * same `]` shares its outcome, and a scan for an address's end is not repeated over the same span.
 */
function replaceMarkdownLinks(text: string, replace: (words: string, url: string) => string): string {
  let shown = "";
  let copiedUpTo = 0;
  let searchFrom = 0;
  // The last address scan: from `scannedFrom`, the first `)` or space is at `scanStop`.
  let scannedFrom = -1;
  let scanStop = -1;
  for (;;) {
    const open = text.indexOf("[", searchFrom);
    if (open < 0) break;
    const close = text.indexOf("]", open + 1);
    if (close < 0) break;
    if (text.charCodeAt(close + 1) === 0x28) {
      const urlStart = close + 2;
      if (urlStart < scannedFrom || urlStart > scanStop) {
        URL_END.lastIndex = urlStart;
        scannedFrom = urlStart;
        scanStop = URL_END.exec(text)?.index ?? text.length;
      }
      if (text.charCodeAt(scanStop) === 0x29) {
        shown +=
          text.slice(copiedUpTo, open) + replace(text.slice(open + 1, close), text.slice(urlStart, scanStop));
        copiedUpTo = searchFrom = scanStop + 1;
        continue;
      }
    }
    // Every `[` before `close` meets the same `]`, and fails as this one did.
    searchFrom = close + 1;
  }
  return shown + text.slice(copiedUpTo);
}

/**
 * Format characters (zero-width space and joiners, soft hyphen, word joiner, BOM, bidi marks)
 * show as nothing: a text is read as it shows, without them.
 */
const INVISIBLE_FORMAT = /\p{Cf}+/gu;

/**
 * Whether a text shows anything: a letter, digit, punctuation mark or symbol that draws. Spaces,
 * control and format characters, a combining mark with nothing to sit on, variation selectors and
 * the other characters Unicode says to draw as nothing (the Hangul fillers, the grapheme joiner),
 * and the blank braille pattern do not. A required field that does not is as good as empty (a
 * brief shows it so).
 */
export const shows = (text: string): boolean =>
  /(?![\p{Default_Ignorable_Code_Point}\u2800])[\p{L}\p{N}\p{P}\p{S}]/u.test(text);

/** Symbols that change what a text says: `x < 5` is not `x > 5`, nor `C++` C, nor `50%` 50. */
const MEANING = /[%&^]|\p{Sm}/u;
/** What of a run of symbols that says something is kept: its operators, not the brackets around them. */
const OPERATOR = /[%&^!*/-]|\p{Sm}/gu;
const WORD_CHAR = /[\p{L}\p{N}]/u;

/**
 * A fact's words, and the symbols among them that carry meaning: a run holding an operator (`<`,
 * `!=`, `++`, `%`), a `#` right after a word (C#, F#), a minus sign before a number (-1). Other
 * punctuation (sentence marks, brackets, quotes, a hyphen inside a word) says nothing here.
 */
function factTokens(text: string): string[] {
  const tokens: string[] = [];
  for (const match of text.matchAll(/[\p{L}\p{N}]+|[^\s\p{L}\p{N}]+/gu)) {
    const token = match[0];
    if (WORD_CHAR.test(token.charAt(0))) {
      tokens.push(token);
      continue;
    }
    const before = text.charAt(match.index - 1);
    const after = text.charAt(match.index + token.length);
    const afterWord = before !== "" && WORD_CHAR.test(before);
    if (MEANING.test(token)) tokens.push((token.match(OPERATOR) ?? []).join(""));
    else if (afterWord && token.startsWith("#")) tokens.push("#");
    else if (!afterWord && token.endsWith("-") && /\p{N}/u.test(after)) tokens.push("-");
  }
  return tokens;
}

/**
 * The identity of a fact: two texts that differ only in case, accents, punctuation, whitespace,
 * invisible characters or how a link is written are the same fact, so restating it reinforces
 * instead of duplicating. Symbols that carry meaning are kept (factTokens): "x < 5" restated as
 * "x > 5" is another fact, never a reinforcement of the first. A text without them has the normal
 * form it always had, so facts stored before keep theirs.
 */
export function normaliseFact(text: string): string {
  if (!BEYOND_ASCII.test(text))
    return asciiFactTokens((MAY_LINK.test(text) ? flattenLinks(text) : text).toLowerCase()).join(" ");
  return anyTextNormalForm(text);
}

/**
 * A run of superscript digits (and their signs) is an exponent: `10³` is a thousand, not 103.
 * Compatibility folding makes them plain digits, so it is written as `10^3` first, as a fact
 * typed in ASCII would say it. Subscripts stay folded: H₂O is H2O.
 */
const SUPERSCRIPTS = /[\u00B2\u00B3\u00B9\u2070\u2074-\u207C]+/gu;
const exponents = (text: string) => text.replace(SUPERSCRIPTS, "^$&");

/** normaliseFact for any text, Unicode and all. */
export const anyTextNormalForm = (text: string) => {
  const folded = foldAccents(flattenLinks(exponents(text.replace(INVISIBLE_FORMAT, ""))));
  return factTokens(folded.toLowerCase()).join(" ");
};

/**
 * Most texts are plain ASCII: no accents to fold, no invisible characters, and nothing of a link
 * without a `/`, `](` or `www.`. A brief normalises each of its decisions (forty of them, to fold
 * copies), and the general path's Unicode regexes were a quarter of building one; this path gives
 * the same tokens (test/unit/knowledge-text.test.ts compares the two) at half the cost.
 */
const BEYOND_ASCII = /[^\p{ASCII}]/u;
const MAY_LINK = /\/|\]\(|www\./i;

const isWordCode = (c: number) => (c >= 97 && c <= 122) || (c >= 48 && c <= 57);
/** What `\s` matches below 128: tab, line feed, vertical tab, form feed, carriage return, space. */
const isSpaceCode = (c: number) => c === 32 || (c >= 9 && c <= 13);
/** `%`, `&`, `^` and the ASCII math symbols `+ < = > | ~`: MEANING below 128. */
const isMeaningCode = (c: number) =>
  c === 37 || c === 38 || c === 94 || c === 43 || c === 60 || c === 61 || c === 62 || c === 124 || c === 126;
/** OPERATOR below 128: the above, and `!`, `*`, `/`, `-`. */
const isOperatorCode = (c: number) => isMeaningCode(c) || c === 33 || c === 42 || c === 47 || c === 45;

/** factTokens over lower-cased ASCII, a character at a time, by the same rules. */
function asciiFactTokens(text: string): string[] {
  const tokens: string[] = [];
  let at = 0;
  while (at < text.length) {
    const code = text.charCodeAt(at);
    if (isSpaceCode(code)) {
      at++;
      continue;
    }
    const start = at;
    if (isWordCode(code)) {
      while (at < text.length && isWordCode(text.charCodeAt(at))) at++;
      tokens.push(text.slice(start, at));
      continue;
    }
    let operators = "";
    let meaning = false;
    for (; at < text.length; at++) {
      const symbol = text.charCodeAt(at);
      if (isWordCode(symbol) || isSpaceCode(symbol)) break;
      if (isMeaningCode(symbol)) meaning = true;
      if (isOperatorCode(symbol)) operators += text.charAt(at);
    }
    const afterWord = start > 0 && isWordCode(text.charCodeAt(start - 1));
    const next = text.charCodeAt(at);
    if (meaning) tokens.push(operators);
    else if (afterWord && code === 35) tokens.push("#");
    else if (!afterWord && text.charCodeAt(at - 1) === 45 && next >= 48 && next <= 57) tokens.push("-");
  }
  return tokens;
}

/** Words as the full-text index sees them (letters and digits, accents kept for the index to fold). */
export function words(text: string): string[] {
  return text.match(/[\p{L}\p{N}][\p{L}\p{N}\p{M}]*/gu) ?? [];
}

const STOPWORDS = new Set(
  (
    "a an and are as at be but by did do does for from had has have how i if in into is it its " +
    "of on or our so than that the their then there these this to was we were what when where " +
    "which who why will with you your can should would could about"
  ).split(" "),
);

/**
 * A lone Latin letter or digit names nothing on its own: the `2` of "task 2" or "cluster 2", the
 * `t` of "T-12". Searched for, it matched any fact holding it, and a brief of a task with a number
 * in its title was filled with facts that shared only that digit.
 */
const LONE_CHARACTER = /^[a-z0-9]$/;

/**
 * Query words worth searching for: lowercased, deduplicated, common words and lone characters
 * dropped unless nothing else is left.
 */
export function queryTerms(query: string, max = 32): string[] {
  const all = [...new Set(words(query).map((word) => word.toLowerCase()))];
  const meaningful = all.filter((word) => !STOPWORDS.has(foldAccents(word)) && !LONE_CHARACTER.test(word));
  return (meaningful.length > 0 ? meaningful : all).slice(0, max);
}

export function normaliseTopics(topics: readonly string[] | undefined): string[] {
  const cleaned = (topics ?? [])
    .map((topic) =>
      foldAccents(topic.replace(INVISIBLE_FORMAT, "")).toLowerCase().trim().replace(/\s+/g, "-"),
    )
    .filter((topic) => topic !== "");
  return [...new Set(cleaned)];
}

/**
 * A reinforced fact's topics: the ones it had, then new ones while fewer than `max`. Restating a
 * fact with other topics each time must not grow it past the limit a new fact is held to.
 */
export function mergeTopics(a: readonly string[], b: readonly string[], max: number): string[] {
  return [...new Set([...a, ...b])].slice(0, Math.max(max, a.length));
}

export const WORKSPACE_SCOPE = "workspace";

/**
 * `workspace`, or a task named the way the board names it: `task:T-12`, `T-12`, `t-12` and `12`
 * all become `task:T-12`. Whether the task exists is checked where the scope is used.
 */
export function parseScope(scope: string | undefined): string {
  const raw = (scope ?? WORKSPACE_SCOPE).trim();
  if (raw === WORKSPACE_SCOPE) return raw;
  const id = raw.toLowerCase().startsWith("task:") ? raw.slice(5) : raw;
  try {
    return taskScope(taskId(id));
  } catch {
    throw usageError(
      `scope ${JSON.stringify(raw)} is neither \`workspace\` nor a task id`,
      "pass --scope workspace or --scope T-12",
    );
  }
}

export const taskScope = (taskId: string) => `task:${taskId}`;

/** The task a scope names, or null for the workspace. */
export const scopeTask = (scope: string): string | null =>
  scope.startsWith("task:") ? scope.slice(5) : null;

/** A task scope must name a task on the board: an unknown one is not found, never stored. */
export async function requireScope(tx: Tx, scope: string): Promise<void> {
  const id = scopeTask(scope);
  if (id && !(await tx.tasks.byId(id))) throw notFound(`no task ${id}`, "see `cairn task list`");
}
