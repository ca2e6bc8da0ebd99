/** Text rules shared by memory and briefs: normalising, tokenising, scopes. */
import { notFound, usageError } from "../../kernel/outcome.js";
import type { Tx } from "../../store/store.js";
import { taskId } from "../tasks/common.js";

const foldAccents = (text: string) => text.normalize("NFKD").replace(/\p{M}+/gu, "");

const stripScheme = (url: string) =>
  url
    .replace(/^(?:https?|ftp):\/\/(?:www\.)?/i, "")
    .replace(/^www\./i, "")
    .replace(/\/+$/, "");

/**
 * Markdown links become their words and their address (just the address when the words are the
 * address); addresses lose scheme, `www.` and a trailing slash.
 */
function flattenLinks(text: string): string {
  return text
    .replace(/\[([^\]]*)\]\(([^)\s]*)\)/g, (_, words: string, url: string) =>
      stripScheme(words.trim()).toLowerCase() === stripScheme(url).toLowerCase() ? url : `${words} ${url}`,
    )
    .replace(/\b(?:https?|ftp):\/\/(?:www\.)?/gi, "")
    .replace(/\bwww\./gi, "")
    .replace(/\/(?=\s|$|[.,;:!?)])/g, "");
}

/**
 * Format characters (zero-width space and joiners, soft hyphen, word joiner, BOM, bidi marks)
 * show as nothing: a text is read as it shows, without them.
 */
const INVISIBLE_FORMAT = /\p{Cf}+/gu;

/**
 * Whether a text shows anything: a character besides spaces, control characters, invisible
 * format characters and the letters that draw as blank (the Hangul fillers, the blank braille
 * pattern). A required field that does not is as good as empty (a brief shows it so).
 */
export const shows = (text: string): boolean =>
  /[^\s\p{Z}\p{Cc}\p{Cf}\u115F\u1160\u2800\u3164\uFFA0]/u.test(text);

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
  return factTokens(foldAccents(flattenLinks(text.replace(INVISIBLE_FORMAT, ""))).toLowerCase()).join(" ");
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

export function mergeTopics(a: readonly string[], b: readonly string[]): string[] {
  return [...new Set([...a, ...b])];
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
