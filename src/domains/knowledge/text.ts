/** Text rules shared by memory and briefs: normalising, tokenising, scopes. */
import { usageError } from "../../kernel/outcome.js";

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
 * The identity of a fact: two texts that differ only in case, accents, punctuation, whitespace
 * or how a link is written are the same fact, so restating it reinforces instead of duplicating.
 */
export function normaliseFact(text: string): string {
  return foldAccents(flattenLinks(text))
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
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

/** Query words worth searching for: lowercased, deduplicated, common words dropped unless nothing else is left. */
export function queryTerms(query: string, max = 32): string[] {
  const all = [...new Set(words(query).map((word) => word.toLowerCase()))];
  const meaningful = all.filter((word) => !STOPWORDS.has(foldAccents(word)));
  return (meaningful.length > 0 ? meaningful : all).slice(0, max);
}

export function normaliseTopics(topics: readonly string[] | undefined): string[] {
  const cleaned = (topics ?? [])
    .map((topic) => foldAccents(topic).toLowerCase().trim().replace(/\s+/g, "-"))
    .filter((topic) => topic !== "");
  return [...new Set(cleaned)];
}

export function mergeTopics(a: readonly string[], b: readonly string[]): string[] {
  return [...new Set([...a, ...b])];
}

export const WORKSPACE_SCOPE = "workspace";
const TASK_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** `workspace`, `task:T-12`, or a bare task id (taken as `task:T-12`). */
export function parseScope(scope: string | undefined): string {
  const raw = (scope ?? WORKSPACE_SCOPE).trim();
  if (raw === WORKSPACE_SCOPE) return raw;
  const id = raw.startsWith("task:") ? raw.slice(5) : raw;
  if (!TASK_ID.test(id)) {
    throw usageError(
      `scope ${JSON.stringify(raw)} is neither \`workspace\` nor a task id`,
      "pass --scope workspace or --scope task:T-12",
    );
  }
  return `task:${id}`;
}

export const taskScope = (taskId: string) => `task:${taskId}`;
