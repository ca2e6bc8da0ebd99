import { usageError } from "../../kernel/outcome.js";
import { LONE_SURROGATE } from "../../kernel/text.js";

/**
 * The size limits of every text field any command takes, in one table. A value past its limit is
 * refused (a usage error naming the field and the limit) before any handler runs, and an import
 * is checked against the same table (`domains/transfer/limits.ts`), so nothing oversized is ever
 * stored, echoed, or served back to every other agent. Lengths are in
 * characters (UTF-16 code units, as JavaScript counts them). Domains may be stricter still (a
 * fact holds at most 4 000 characters); none is looser.
 */

/** Identifiers and short names: ids, names, roles, kinds, labels, keys, enum-like words. */
export const ID_CHARS = 200;
/** One-line titles and summaries. */
export const TITLE_CHARS = 500;
/** Paths (traces, --out, import files) and single argv words. */
export const PATH_CHARS = 4_096;
/** Long free text: task context, note bodies, answers, reasons. */
export const BODY_CHARS = 256 * 1024;
/** Any string field not named below. */
export const DEFAULT_CHARS = 64 * 1024;
/** Items in any list field (criteria, traces, labels, steps, argv...). */
export const DEFAULT_ITEMS = 1_000;
/** Words in a command (`argv`, `verify`). */
export const ARGV_WORDS = 256;
/**
 * Characters a shortcut's command (or a criterion's verify command) holds in all, its words summed. Each word may hold PATH_CHARS
 * and a command ARGV_WORDS words, 1 MiB: every `shortcut list` and every brief naming the
 * shortcuts read each one whole (160 made a list 160 MB), and each redefinition journaled it
 * twice. 16 KiB is a command line naming a hundred long paths; more belongs in a file it reads.
 */
export const ARGV_TOTAL_CHARS = 16 * 1024;

/**
 * What many values hold together, each within its own limit: one command's words, the params a
 * criterion fills its shortcut's command with, one queue's steps, one goal's contract, one task's
 * criteria. The domains that keep them take them from here
 * (tasks/shortcuts and tasks/criteria, tasks/queues, goals/contract), and `capabilities` lists them.
 */
export const TOTALS = {
  chars: {
    "shortcut command": ARGV_TOTAL_CHARS,
    "criterion verify command": ARGV_TOTAL_CHARS,
    "criterion shortcut params": ARGV_TOTAL_CHARS,
    "queue steps": 256 * 1024,
    "goal contract, as JSON": 4 * BODY_CHARS,
  },
  items: { "criteria of a task": DEFAULT_ITEMS },
} as const;

const classes: Record<string, readonly string[]> = {
  [ID_CHARS]: [
    "name",
    "role",
    "parent",
    "agent",
    "kind",
    "scope",
    "id",
    "task",
    "goal",
    "milestone",
    "proof",
    "proposal",
    "run",
    "attempt",
    "shortcut",
    "owner",
    "label",
    "labels",
    "ask",
    "key",
    "to",
    "topic",
    "topics",
    "severity",
    "trust",
    "priority",
    "effect",
    "grant",
    "status",
    "direction",
    "estimate",
    "depends_on",
    "on",
    "remove",
    "term",
    "role_name",
  ],
  [TITLE_CHARS]: ["title", "summary", "risk", "query", "target", "json_path", "pattern"],
  [PATH_CHARS]: ["out", "file", "traces", "argv", "verify", "params", "read", "step"],
  [BODY_CHARS]: [
    "text",
    "context",
    "so_that",
    "chose",
    "rejected",
    "because",
    "body",
    "answer",
    "question",
    "reason",
    "note",
    "meaning",
    "outcome",
    "constraints",
    "non_goals",
    "indicators",
    "action",
    "impact",
    "likelihood",
    "template",
  ],
};

/** Field name → the most characters one of its strings may hold. */
export const FIELD_CHARS: Readonly<Record<string, number>> = Object.fromEntries(
  Object.entries(classes).flatMap(([limit, fields]) => fields.map((field) => [field, Number(limit)])),
);

/**
 * A field whose name means something else in one command, with that command's limit: `to` is a
 * role in `ask` but a store URL or database path in `store copy`.
 */
export const COMMAND_FIELD_CHARS: Readonly<Record<string, Readonly<Record<string, number>>>> = {
  "store copy": { to: PATH_CHARS },
};

/** Field name → the most items its list may hold, where it differs from DEFAULT_ITEMS. */
export const FIELD_ITEMS: Readonly<Record<string, number>> = { argv: ARGV_WORDS, verify: ARGV_WORDS };

/**
 * A text no longer than this holds nothing past any limit, whatever JSON it may encode: no string
 * in it is longer, and no list in it has as many items (each item takes a character and a comma).
 */
export const NEVER_OVER_CHARS = Math.min(
  DEFAULT_CHARS,
  ...Object.values(FIELD_CHARS),
  2 * Math.min(DEFAULT_ITEMS, ...Object.values(FIELD_ITEMS)) + 1,
);

/** Every limit, as `capabilities` publishes it. */
export function limitsTable() {
  return {
    default_chars: DEFAULT_CHARS,
    default_items: DEFAULT_ITEMS,
    fields: FIELD_CHARS,
    items: FIELD_ITEMS,
    commands: COMMAND_FIELD_CHARS,
    totals: TOTALS,
  };
}

/** A string or list past its limit: where it sits, the limit and its size. */
export interface Overrun {
  path: string;
  max: number;
  size: number;
  unit: "characters" | "items";
}

export interface LimitOptions {
  /** Count the items of lists (the default); off for lists that grow over many calls. */
  items?: boolean;
  /** A stricter character limit a domain keeps for every string of this value. */
  maxChars?: number;
  /** Limits by field name that take the place of FIELD_CHARS's (one command's own). */
  fields?: Readonly<Record<string, number>>;
}

/**
 * The first string or list in `value` past its limit, or undefined. `field` names the value; an
 * object's members are checked under their own keys, a list's items under the list's name.
 */
export function findOverrun(
  value: unknown,
  field: string,
  path: string,
  options: LimitOptions = {},
): Overrun | undefined {
  if (typeof value === "string") {
    const limit = options.fields?.[field] ?? FIELD_CHARS[field] ?? DEFAULT_CHARS;
    const max = Math.min(limit, options.maxChars ?? Number.POSITIVE_INFINITY);
    return value.length > max ? { path, max, size: value.length, unit: "characters" } : undefined;
  }
  if (Array.isArray(value)) {
    const max = FIELD_ITEMS[field] ?? DEFAULT_ITEMS;
    if (options.items !== false && value.length > max)
      return { path, max, size: value.length, unit: "items" };
    for (const [index, item] of value.entries()) {
      const found = findOverrun(item, field, `${path}[${index}]`, options);
      if (found) return found;
    }
    return undefined;
  }
  if (value !== null && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      const found = findOverrun(item, key, path ? `${path}.${key}` : key, options);
      if (found) return found;
    }
  }
  return undefined;
}

/** An overrun in words, without the value itself: a 5 MB id must not come back as a 5 MB error. */
export const describeOverrun = (overrun: Overrun): string =>
  `${overrun.path} holds at most ${overrun.max} ${overrun.unit} (this one has ${overrun.size})`;

/** Refuse any string or list past its limit, naming the field, the limit and the size. */
export function checkLimits(command: string, input: unknown): void {
  const overrun = findOverrun(input, "", "", { fields: COMMAND_FIELD_CHARS[command] });
  if (!overrun) return;
  throw usageError(
    `${command}: ${describeOverrun(overrun)}`,
    overrun.unit === "characters"
      ? "shorten it; keep long documents in files and refer to their paths"
      : "split the change into smaller calls",
  );
}

/**
 * A list whose items are each within their limit may still hold too much in all, where every
 * reader of the record pays for the whole of it (a task's traces, a queue's steps): refused past
 * `limit` characters summed, naming `what` and how much it held.
 */
export function requireTotalChars(what: string, items: readonly string[], limit: number, next: string): void {
  const chars = items.reduce((sum, item) => sum + item.length, 0);
  if (chars > limit)
    throw usageError(`${what} hold at most ${limit} characters in all (these have ${chars})`, next);
}

const HALF = /[\uD800-\uDFFF]/;
const LONE = new RegExp(LONE_SURROGATE.source);

/** Where `value` holds half of a UTF-16 character without its other half, and that half's code. */
export function findLoneSurrogate(value: unknown, path: string): { path: string; code: string } | undefined {
  if (typeof value === "string") {
    // Most text has no surrogate at all: one test, not the pattern's lookarounds at every character.
    const found = HALF.test(value) ? LONE.exec(value) : null;
    if (!found) return undefined;
    const code = found[0].charCodeAt(0).toString(16).toUpperCase();
    return { path, code };
  }
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = findLoneSurrogate(item, `${path}[${index}]`);
      if (found) return found;
    }
    return undefined;
  }
  if (value !== null && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      const at = path ? `${path}.${key}` : key;
      const found = findLoneSurrogate(key, at) ?? findLoneSurrogate(item, at);
      if (found) return found;
    }
  }
  return undefined;
}

/**
 * Refuse a string holding half of a character (a lone UTF-16 surrogate). No terminal sends one, but
 * JSON may ("\ud800"): stored, it went back out in every result quoting it, an escape that strict
 * parsers (Rust's serde_json) reject with the whole message, so one finding from a read-only agent
 * left every brief of the workspace unreadable to such a client. Whole characters pass.
 */
export function checkWholeCharacters(command: string, input: unknown): void {
  const found = findLoneSurrogate(input, "");
  if (!found) return;
  throw usageError(
    `${command}: ${found.path || "(input)"} holds a lone UTF-16 surrogate (U+${found.code}), half of a character`,
    "send text as whole characters",
  );
}
