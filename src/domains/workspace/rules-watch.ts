import { thisMachineRecord } from "../../kernel/machine.js";
import { inCodeUnitOrder, previewText } from "../../kernel/text.js";
import type { Store, Tx } from "../../store/store.js";
import type { Actor } from "../identity/actor.js";
import type { WorkspaceConfig } from "./config.js";

// The rules a checkout's cairn.toml sets for the board: each role, each shortcut, the claims'
// lease, the definition of done and the verify timeout. Any agent with a shell (or a file editor)
// in the checkout can edit them, and cairn reads the file at every call, so an agent could loosen
// the rule it is about to be held to (empty `[done]`, then finish). cairn cannot tell who edited
// the file; it can tell when the rules changed and whose call first ran under them, and keep that
// in the journal for the owner (`status`, `task show`, `activity`).

/**
 * Each section's rules as canonical text. Kept whole rather than hashed: comparing them needs no
 * hashing module at start-up (a read loads none), and a file is small.
 */
export type Rules = { key: string; sections: Record<string, string> };

/** The journal's actions: the first rules a workspace records, and every change after them. */
const RULES_RECORDED = "rules.recorded";
export const RULES_CHANGED = "rules.changed";
/** Where the rules last seen are kept: every section whole, as long as the file makes them. */
export const RULES_META_KEY = "config_rules";
/** How much of each changed section a change's event keeps, before and after, and of how many. */
const VALUE_CHARS = 400;
const VALUES_KEPT = 20;

/** JSON with object keys sorted at every depth: reordering a file's tables changes no rule. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object")
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`)
      .join(",")}}`;
  return JSON.stringify(value) ?? "null";
}

/**
 * The rules as parsed (defaults filled in, so a comment, a blank line or writing out a default
 * changes nothing), section by section: `roles.<name>` and `shortcuts.<name>` each, and
 * `claims`, `done`, `verify` and, when set, `skills`.
 */
export function rulesOf(config: WorkspaceConfig): Rules {
  const sections: Record<string, string> = {
    claims: canonical(config.claims),
    done: canonical(config.done),
    verify: canonical(config.verify),
  };
  for (const [name, role] of Object.entries(config.roles)) sections[`roles.${name}`] = canonical(role);
  for (const [name, shortcut] of Object.entries(config.shortcuts))
    sections[`shortcuts.${name}`] = canonical(shortcut);
  // How long a skill's script may run and how many skill tools are served; kept when set.
  if (config.skills !== undefined) sections.skills = canonical(config.skills);
  return { key: canonical(sections), sections };
}

/** The sections that are one table each (`claims`, `done`...) rather than one of many roles or shortcuts. */
const isSingle = (section: string) => !section.includes(".");
const kindOf = (section: string) => (isSingle(section) ? section : section.slice(0, section.indexOf(".")));
/** Single tables first, then shortcuts (what [done] and criteria run), then roles; by name within each. */
const rank = (section: string) => (isSingle(section) ? 0 : section.startsWith("shortcuts.") ? 1 : 2);

/**
 * Sections in the order a change names them. Sorted by name alone, an emptied `[verify]` or a
 * redefined `shortcuts.test` came after every role: behind a thousand dummy roles added in the
 * same edit, past what `activity` previews and at the end of a line a page long.
 */
function inReadingOrder(sections: readonly string[]): string[] {
  return [...sections].sort((a, b) => rank(a) - rank(b) || inCodeUnitOrder(a, b));
}

/** The sections that differ between two sets of rules: added, removed or changed. */
export function changedSections(before: Rules, after: Rules): string[] {
  const names = new Set([...Object.keys(before.sections), ...Object.keys(after.sections)]);
  return inReadingOrder([...names].filter((name) => before.sections[name] !== after.sections[name]));
}

/** How many roles, and how many shortcuts, a change is shown naming; single tables are all named. */
const SECTIONS_SHOWN_PER_KIND = 10;

/**
 * The sections a view names: every single table, and the first roles and shortcuts. An edit can
 * add thousands of roles, and `status` and `task show` printed each name, a page long each read.
 */
function sectionsShown(sections: readonly string[]): string[] {
  const seen = new Map<string, number>();
  return inReadingOrder(sections).filter((section) => {
    if (isSingle(section)) return true;
    const count = (seen.get(kindOf(section)) ?? 0) + 1;
    seen.set(kindOf(section), count);
    return count <= SECTIONS_SHOWN_PER_KIND;
  });
}

async function recordedRules(tx: Tx): Promise<Rules | null> {
  const kept = await tx.meta.get(RULES_META_KEY);
  if (kept === undefined) return null;
  try {
    const sections = JSON.parse(kept) as unknown;
    // Anything but a table of texts is no record: the rules are then recorded afresh.
    const table =
      sections !== null &&
      typeof sections === "object" &&
      !Array.isArray(sections) &&
      Object.values(sections).every((text) => typeof text === "string");
    return table ? { key: canonical(sections), sections: sections as Record<string, string> } : null;
  } catch {
    return null;
  }
}

/** What `cairn init` records of a new workspace's rules, in its own first transaction. */
export async function recordFirstRules(tx: Tx, rules: Rules): Promise<void> {
  await tx.meta.set(RULES_META_KEY, JSON.stringify(rules.sections));
}

/**
 * Note the rules a call runs under. Nothing is written while they are the ones last recorded (one
 * read). A change is recorded once, by whichever call first sees it: the rules are compared again
 * inside the write, so two processes seeing one edit journal it once.
 */
export async function noteRules(store: Store, rules: Rules, caller: Actor, now: string): Promise<void> {
  const same = await store.read(async (tx) => (await recordedRules(tx))?.key === rules.key);
  if (same) return;
  await store.write(async (tx) => {
    const before = await recordedRules(tx);
    if (before?.key === rules.key) return;
    await tx.meta.set(RULES_META_KEY, JSON.stringify(rules.sections));
    const changed = before ? changedSections(before, rules) : inReadingOrder(Object.keys(rules.sections));
    // What each section held before and holds now, so the owner sees the change without git.
    const value = (text: string | undefined) =>
      text === undefined ? null : previewText(text, VALUE_CHARS, "`cairn.toml`");
    await tx.journal.append({
      at: now,
      actor: "cairn",
      action: before ? RULES_CHANGED : RULES_RECORDED,
      subject: "cairn.toml",
      data: {
        sections: changed,
        ...(before
          ? {
              values: Object.fromEntries(
                changed
                  .slice(0, VALUES_KEPT)
                  .map((name) => [
                    name,
                    { before: value(before.sections[name]), after: value(rules.sections[name]) },
                  ]),
              ),
            }
          : {}),
        first_seen_in_call_of: caller.id,
        ...(caller.isOwner ? {} : { caller_name: caller.name }),
        // On a shared store each machine reads its own checkout's file: which one it was.
        ...(store.shared ? { machine: thisMachineRecord() } : {}),
      },
    });
  });
}

/** A change of the rules, as the journal keeps it. */
export interface RulesChange {
  at: string;
  /** Each single table it changed, and its first roles and shortcuts (sectionsShown). */
  sections: string[];
  /** How many sections it changed in all, when more than `sections` names. */
  sectionsTotal?: number;
  firstSeenInCallOf: string;
  /** The machine whose checkout's file it was, on a shared store. */
  machine?: string;
}

/**
 * The changes recorded between two journal events (either end open), newest first, at most
 * `limit`; `more` says some were left out.
 */
export async function rulesChanges(
  tx: Tx,
  span: { afterId?: number; beforeId?: number },
  limit: number,
): Promise<{ changes: RulesChange[]; more: boolean }> {
  const events = await tx.journal.list({
    action: RULES_CHANGED,
    subject: "cairn.toml",
    ...(span.beforeId !== undefined ? { beforeId: span.beforeId } : {}),
    limit: limit + 1,
  });
  // Newest first: past the first one older than the span, all are.
  const within = events.filter((event) => span.afterId === undefined || event.id > span.afterId);
  const changes = within.slice(0, limit).map((event): RulesChange => {
    const data = event.data as {
      sections?: unknown;
      first_seen_in_call_of?: unknown;
      caller_name?: unknown;
      machine?: unknown;
    };
    const caller = String(data.first_seen_in_call_of ?? "");
    const sections = Array.isArray(data.sections) ? data.sections.map(String) : [];
    const shown = sectionsShown(sections);
    return {
      at: event.at,
      sections: shown,
      ...(shown.length < sections.length ? { sectionsTotal: sections.length } : {}),
      firstSeenInCallOf: typeof data.caller_name === "string" ? `${caller} (${data.caller_name})` : caller,
      ...(typeof data.machine === "string" ? { machine: data.machine } : {}),
    };
  });
  return { changes, more: within.length > limit };
}
