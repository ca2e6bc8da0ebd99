import { sha256Hex } from "../../kernel/builtins.js";

/**
 * One line of the audit log, and how lines chain. Each line is a JSON object whose fields come
 * in a fixed order and whose last field, `hash`, is the SHA-256 of the line's bytes before it
 * (the object closed right there). The next line's `prev` repeats that hash; the first line of
 * the first segment names the fixed genesis. So a one-byte edit anywhere breaks either the
 * edited line's own hash (the last line included) or the JSON itself.
 */

export const SEVERITIES = ["info", "notice", "critical"] as const;
export type Severity = (typeof SEVERITIES)[number];

/** What the first line of a fresh log links to. */
export const GENESIS = "0".repeat(64);

/** A line longer than this is never written: data is trimmed first (see `boundData`). */
export const MAX_LINE_BYTES = 16 * 1024;

export interface AuditEvent {
  severity: Severity;
  /** What happened: `command`, `skill_run`, `os_run`, `os_refused`, `audit_rotated`, … */
  event: string;
  /** Who: an agent id and name, or `owner`. */
  actor: string;
  data: Record<string, unknown>;
}

export interface AuditEntry extends AuditEvent {
  seq: number;
  ts: string;
  prev: string;
  hash: string;
}

/** The line for an event, linked after `prev` at position `seq`. No trailing newline. */
export function formatLine(event: AuditEvent, seq: number, ts: string, prev: string): string {
  const body = JSON.stringify({
    seq,
    ts,
    severity: event.severity,
    event: event.event,
    actor: event.actor,
    data: event.data,
    prev,
  });
  const hash = sha256Hex(body);
  return `${body.slice(0, -1)},"hash":"${hash}"}`;
}

const HASH_TAIL = /,"hash":"([0-9a-f]{64})"\}$/;

export type ParsedLine = { ok: true; entry: AuditEntry } | { ok: false; reason: string };

/** Parse one line and check its own hash; the link to the line before is the caller's to check. */
export function parseLine(line: string): ParsedLine {
  const tail = HASH_TAIL.exec(line);
  if (!tail) return { ok: false, reason: "the line does not end with its own hash" };
  const body = `${line.slice(0, tail.index)}}`;
  if (sha256Hex(body) !== tail[1]) return { ok: false, reason: "the line's content does not match its hash" };
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { ok: false, reason: "the line is not valid JSON" };
  }
  const entry = value as AuditEntry;
  if (
    typeof entry.seq !== "number" ||
    typeof entry.ts !== "string" ||
    !SEVERITIES.includes(entry.severity) ||
    typeof entry.event !== "string" ||
    typeof entry.prev !== "string" ||
    // The re-serialised body must be the very bytes that were hashed: no smuggled duplicate keys.
    formatLine(entry, entry.seq, entry.ts, entry.prev) !== line
  ) {
    return { ok: false, reason: "the line is not a well-formed audit entry" };
  }
  return { ok: true, entry };
}

/** How hard `boundData` cuts: a string's characters, a list's items, an object's members. */
interface Cut {
  chars: number;
  items: number;
  members: number;
}

/** `value` with long strings, lists and objects cut as `cut` says, each cut saying what it left out. */
function trimmed(value: unknown, cut: Cut, depth = 0): unknown {
  if (typeof value === "string") {
    return value.length > cut.chars ? `${value.slice(0, cut.chars)}… (${value.length} chars)` : value;
  }
  if (Array.isArray(value)) {
    const items = value.slice(0, cut.items).map((item) => trimmed(item, cut, depth + 1));
    return value.length > cut.items ? [...items, `… (${value.length} items)`] : items;
  }
  if (value !== null && typeof value === "object") {
    if (depth > 3) return "…";
    const entries = Object.entries(value as Record<string, unknown>);
    const kept = entries
      .slice(0, cut.members)
      .map(([key, item]) => [trimmed(key, cut) as string, trimmed(item, cut, depth + 1)]);
    return Object.fromEntries(
      entries.length > cut.members ? [...kept, ["…", `(${entries.length} members)`]] : kept,
    );
  }
  return value;
}

/** Each cut tighter than the one before, tried in turn until the data fits. */
const CUTS: readonly Cut[] = [
  { chars: 1_024, items: 64, members: 32 },
  { chars: 256, items: 8, members: 16 },
  { chars: 64, items: 2, members: 8 },
];

const fitsLine = (value: unknown) => Buffer.byteLength(JSON.stringify(value)) <= MAX_LINE_BYTES / 2;

/**
 * Trim an event's data so its line stays under the cap: long strings are cut, with their length
 * kept, and a value still too long is cut harder. What names the event (its top-level words: the
 * command, its outcome, a refusal's policy) stays whatever the input held: replaced whole by a
 * digest, a write with a dozen long criteria left a line naming neither its command nor that it
 * was refused, so an agent could make any call of its own unreadable in the log.
 */
export function boundData(data: Record<string, unknown>): Record<string, unknown> {
  for (const cut of CUTS) {
    const bounded = trimmed(data, cut) as Record<string, unknown>;
    if (fitsLine(bounded)) return bounded;
  }
  // Last: each top-level word cut short, anything nested kept by its digest alone.
  const named = Object.fromEntries(
    Object.entries(data)
      .slice(0, 16)
      .map(([key, value]) => [
        trimmed(key, { chars: 64, items: 0, members: 0 }) as string,
        value !== null && typeof value === "object"
          ? { truncated: true, sha256: sha256Hex(JSON.stringify(value)) }
          : trimmed(value, { chars: 256, items: 0, members: 0 }),
      ]),
  );
  return fitsLine(named) ? named : { truncated: true, sha256: sha256Hex(JSON.stringify(data)) };
}

/** An entry recorded earlier, kept where the log's writers cannot reach, that the log must still hold. */
export interface Anchor {
  seq: number;
  hash: string;
  /** How a break names it: "anchored" (given by a person), "witnessed" (the machine's witness). */
  by?: string;
}
