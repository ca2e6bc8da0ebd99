import { usageError } from "../kernel/outcome.js";

/**
 * The size limits of every text field any command takes, in one table. A value past its limit is
 * refused (a usage error naming the field and the limit) before any handler runs, so nothing
 * oversized is ever stored, echoed, or served back to every other agent. Lengths are in
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

/** Field name → the most items its list may hold, where it differs from DEFAULT_ITEMS. */
export const FIELD_ITEMS: Readonly<Record<string, number>> = { argv: ARGV_WORDS, verify: ARGV_WORDS };

/** Every limit, as `capabilities` publishes it. */
export function limitsTable() {
  return {
    default_chars: DEFAULT_CHARS,
    default_items: DEFAULT_ITEMS,
    fields: FIELD_CHARS,
    items: FIELD_ITEMS,
  };
}

/**
 * Refuse any string or list past its limit, naming the field, the limit and the size. The value
 * itself is never quoted: a 5 MB id must not come back as a 5 MB error.
 */
export function checkLimits(command: string, input: unknown): void {
  const visit = (value: unknown, path: string, field: string): void => {
    if (typeof value === "string") {
      const max = FIELD_CHARS[field] ?? DEFAULT_CHARS;
      if (value.length > max) {
        throw usageError(
          `${command}: ${path} holds at most ${max} characters (this one has ${value.length})`,
          "shorten it; keep long documents in files and refer to their paths",
        );
      }
      return;
    }
    if (Array.isArray(value)) {
      const max = FIELD_ITEMS[field] ?? DEFAULT_ITEMS;
      if (value.length > max) {
        throw usageError(
          `${command}: ${path} holds at most ${max} items (this one has ${value.length})`,
          "split the change into smaller calls",
        );
      }
      for (const [index, item] of value.entries()) visit(item, `${path}[${index}]`, field);
      return;
    }
    if (value !== null && typeof value === "object") {
      for (const [key, item] of Object.entries(value)) visit(item, path ? `${path}.${key}` : key, key);
    }
  };
  visit(input, "", "");
}
