/**
 * Short ids (`G-3`, `AT-12`, `F-7`) are typed by hand and read aloud, so `g-3`, ` G-3 ` and `3`
 * name the same record as `G-3`. Anything else is left as typed: it names no record of this kind,
 * and the lookup's not-found error says so, quoting it.
 */
export function canonicalShortId(raw: string, prefix: string): string {
  const text = raw.trim();
  if (/^\d+$/.test(text)) return `${prefix}-${text}`;
  const match = /^([a-z]+)-(\d+)$/i.exec(text);
  return match && match[1]?.toUpperCase() === prefix ? `${prefix}-${match[2]}` : raw;
}

/** A short id's number (`T-12` → 12): ids are handed out in order, so a larger one came later. */
export const shortIdNumber = (id: string) => Number(id.slice(id.indexOf("-") + 1));

/**
 * The start of a `prefix` id that was typed, in any form canonicalShortId reads (`G-3`, `g-3`,
 * ` 3`), for completion: digits alone (or nothing) start `G-`, and so does `G`. Undefined when
 * what was typed can start no such id.
 */
export function shortIdStart(typed: string, prefix: string): string | undefined {
  const text = typed.trim().toUpperCase();
  if (/^\d*$/.test(text)) return `${prefix}-${text}`;
  if (text === prefix) return `${prefix}-`;
  return text.startsWith(`${prefix}-`) && /^\d*$/.test(text.slice(prefix.length + 1)) ? text : undefined;
}

/**
 * Every short id's prefix (`T-4` a task, `AT-2` an attempt, ...): the stores hand ids out only
 * with one of these, so a new kind of record is named here and its ids are refused as names.
 */
export const SHORT_ID_PREFIXES = [
  "A",
  "AR",
  "AT",
  "B",
  "EP",
  "F",
  "G",
  "M",
  "N",
  "Q",
  "R",
  "RK",
  "T",
] as const;
export type ShortIdPrefix = (typeof SHORT_ID_PREFIXES)[number];
const ID_SHAPED = new RegExp(`^(\\d+|(${SHORT_ID_PREFIXES.join("|")})-\\d+)$`, "i");

/**
 * Whether a name a caller picks (an agent's, a shortcut's, a queue's) reads as a short id: `T-4`,
 * `a-2`, `at-12`, or digits alone, which the lookups above take for one. Journal events, briefs
 * and refusals name records by id and by name side by side, so a shortcut named `A-2` wrote
 * events that read as being about agent A-2, and an agent named `7` was the one `agent retire 7`
 * found.
 */
export const readsAsShortId = (name: string): boolean => ID_SHAPED.test(name.trim());
