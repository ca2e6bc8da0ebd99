import { notFound, refuse } from "../../kernel/outcome.js";
import { previewText, quoteValue } from "../../kernel/text.js";
import type { NoteBody, NoteKind, NoteRecord, Severity, Trust } from "../../store/knowledge.js";
import type { Store, Tx } from "../../store/store.js";
import { type Actor, OWNER, sameTree } from "../identity/actor.js";
import { normaliseFact, parseScope, requireScope, shows } from "./text.js";

export const NOTE_KINDS = ["decision", "finding", "metric", "ref"] as const satisfies readonly NoteKind[];
export const SEVERITIES = ["major", "moderate", "minor"] as const satisfies readonly Severity[];
export const TRUSTS = ["unverified", "confirmed", "refuted"] as const satisfies readonly Trust[];

/** Every field any kind may carry; which ones a kind needs is checked here, not in a face. */
export interface NoteDraft {
  kind: NoteKind;
  scope?: string;
  text?: string;
  chose?: string;
  rejected?: string;
  because?: string;
  severity?: Severity;
  target?: string;
  summary?: string;
}

const present = (value: string | undefined): value is string => value !== undefined && shows(value);

function required(draft: NoteDraft, field: keyof NoteDraft, why: string, example: string): string {
  const value = draft[field];
  if (typeof value === "string" && present(value)) return value.trim();
  throw refuse("note", `a ${draft.kind} note needs ${field}: ${why}`, example);
}

const METRIC_FORM = 'text as "goal: … question: … metric: …"';
const METRIC_LABELS = ["goal", "question", "metric"] as const;

/**
 * A metric is written goal first, then the question that serves it, then the number that answers
 * the question. A metric whose labels are missing or out of that order is refused.
 */
export function parseMetric(text: string | undefined): { goal: string; question: string; metric: string } {
  const source = text ?? "";
  const labels = [...source.matchAll(/\b(goal|question|metric)\s*:/gi)];
  const found = labels.map((match) => (match[1] as string).toLowerCase());
  const inOrder = found.length === 3 && METRIC_LABELS.every((label, index) => found[index] === label);
  if (!inOrder) {
    throw refuse(
      "note",
      `a metric note states goal, then question, then metric; found ${found.length > 0 ? found.join(", ") : "no labels"}`,
      `write ${METRIC_FORM}, in that order`,
    );
  }
  const parts = labels.map((match, index) => {
    const start = (match.index ?? 0) + match[0].length;
    const end = labels[index + 1]?.index ?? source.length;
    return source.slice(start, end).trim();
  });
  const [goal, question, metric] = parts as [string, string, string];
  const empty = METRIC_LABELS.find((_, index) => !shows(parts[index] ?? ""));
  if (empty) throw refuse("note", `the metric note's ${empty} is empty`, `write ${METRIC_FORM}`);
  return { goal, question, metric };
}

export function noteBody(draft: NoteDraft): NoteBody {
  switch (draft.kind) {
    case "decision":
      return {
        kind: "decision",
        chose: required(draft, "chose", "what was decided", "give chose, rejected and because"),
        rejected: required(
          draft,
          "rejected",
          "what was considered and not chosen; without it the decision cannot be safely revisited",
          "give rejected: the alternative you turned down, and why not",
        ),
        because: required(draft, "because", "why", "give because: why this choice"),
      };
    case "finding":
      if (!draft.severity) {
        throw refuse(
          "note",
          "a finding needs a severity",
          "give severity: major (fix not obvious), moderate (fix clear, needs review) or minor (obvious)",
        );
      }
      return {
        kind: "finding",
        text: required(draft, "text", "what you found", "give text: what you found"),
        severity: draft.severity,
        trust: "unverified",
      };
    case "metric":
      return { kind: "metric", ...parseMetric(draft.text) };
    case "ref":
      return {
        kind: "ref",
        target: required(
          draft,
          "target",
          "a URL or a path",
          "give target: a URL or a path, e.g. docs/adr/7.md",
        ),
        summary: required(
          draft,
          "summary",
          "what it says, in a line",
          "give summary: what it says, in a line",
        ),
      };
  }
}

/**
 * The longest field read the way a fact is. normaliseFact is made for facts (4,000 characters at
 * most) and reads text beyond ASCII at about 5 MB a second: forty decisions of three 256 KiB
 * fields, which one agent adds in seconds, made every brief of their scope take 7 s to fold them,
 * and every decision added there hold the write lock as long (it looks for a restatement among
 * the scope's fifty newest). A longer field is the same only spelled the same, so a retried call
 * still finds its note.
 */
const NORMAL_FORM_CHARS = 4_000;

/**
 * A field too long to normalise, as its key holds it: a NUL, which no normal form holds, then its
 * length, so neither the field's own line breaks nor a normal form can pass for another field.
 */
const spelledField = (text: string) => `\u0000${text.length}:${text}`;

/**
 * What makes two decisions one: what was chosen, rejected and why, read the way a fact is (case,
 * spacing, punctuation and invisible characters aside), each field up to NORMAL_FORM_CHARS.
 */
export function decisionKey(d: { chose: string; rejected: string; because: string }): string {
  const fields = [d.chose, d.rejected, d.because];
  // Not kept among the keys seen lately either: each would hold its fields whole, 768 KiB a key.
  if (fields.some((field) => field.length > NORMAL_FORM_CHARS))
    return fields
      .map((field) => (field.length > NORMAL_FORM_CHARS ? spelledField(field) : normaliseFact(field)))
      .join("\n");
  return remembered(decisionKeys, d, () => fields.map(normaliseFact).join("\n"));
}

/**
 * A decision as its reader reads it: case, runs of spacing and invisible characters aside, every
 * mark kept. decisionKey reads past punctuation, which can turn what a decision says around ("No
 * deploys on Fridays", "No; deploys on Fridays!"): a brief folds into one quote only notes worded
 * alike, so no note's words stand for another's under "also recorded as". A field too long to
 * normalise is taken as spelled, as decisionKey takes it.
 */
export function decisionWording(d: { chose: string; rejected: string; because: string }): string {
  const fields = [d.chose, d.rejected, d.because];
  const worded = () =>
    fields
      .map((field) =>
        field.length > NORMAL_FORM_CHARS
          ? spelledField(field)
          : field
              .replace(/\p{Cf}+/gu, "")
              .replace(/\s+/g, " ")
              .trim()
              .toLowerCase(),
      )
      .join("\n");
  // Not kept when a field is too long to normalise: each would hold its fields whole.
  return fields.some((field) => field.length > NORMAL_FORM_CHARS)
    ? worded()
    : remembered(decisionWordings, d, worded);
}

/**
 * Keys of the decisions seen lately, by their exact texts. Every brief folds copies among forty
 * decisions, most of them the workspace's and its epic's, the same in brief after brief; their
 * normal form took a tenth of a brief. A pure function of the texts, so nothing goes stale.
 */
const decisionKeys = new Map<string, string>();
/** The same for decisionWording: it took a sixteenth of a brief at scale. */
const decisionWordings = new Map<string, string>();
const MAX_DECISION_KEYS = 4_096;

/** `made()` for these texts, from `seen` when it was made for them lately. */
function remembered(
  seen: Map<string, string>,
  d: { chose: string; rejected: string; because: string },
  made: () => string,
): string {
  // Lengths first: no choice of texts makes two different decisions one spelling.
  const spelled = `${d.chose.length}:${d.rejected.length}:${d.chose}${d.rejected}${d.because}`;
  let value = seen.get(spelled);
  if (value === undefined) {
    value = made();
    if (seen.size >= MAX_DECISION_KEYS) seen.clear();
    seen.set(spelled, value);
  }
  return value;
}

/**
 * How far back a scope's decisions are searched for one being restated. A brief shows a scope's
 * newest 20 decisions: a restatement among them is what would fill it with copies.
 */
export const RESTATED_DECISION_WINDOW = 50;

/**
 * Record a note. A decision its scope already holds among its newest (a retried call, or the same
 * words again) is not recorded twice: the note already there comes back, marked `restated`.
 */
export async function addNote(
  store: Store,
  actor: Actor,
  draft: NoteDraft,
  now: string,
): Promise<NoteRecord & { restated?: true }> {
  // A read-only agent may still report what it found; every other note is a write it may not make.
  if (actor.grant === "ro" && draft.kind !== "finding") {
    throw refuse(
      "grant",
      `${actor.name} has a read-only grant; only findings may be recorded`,
      "record it as a finding, or ask an agent with a write grant",
    );
  }
  const body = noteBody(draft);
  const scope = parseScope(draft.scope);
  return store.write(async (tx) => {
    await requireScope(tx, scope);
    if (body.kind === "decision") {
      const key = decisionKey(body);
      const recent = await tx.notes.list({
        kinds: ["decision"],
        scopes: [scope],
        limit: RESTATED_DECISION_WINDOW,
      });
      const same = recent.find((note) => note.body.kind === "decision" && decisionKey(note.body) === key);
      if (same) return { ...same, restated: true as const };
    }
    const note = await tx.notes.insert({ scope, author: actor.id, body }, now);
    await tx.journal.append({
      at: now,
      actor: actor.id,
      action: "note.add",
      subject: note.id,
      data: { kind: body.kind, scope },
    });
    return note;
  });
}

export async function showNote(store: Store, id: string): Promise<NoteRecord> {
  const note = await store.read((tx) => tx.notes.byId(id));
  if (!note) throw notFound(`no note ${quoteValue(id)}`, "list notes with `cairn note list`");
  return note;
}

/**
 * How much of each text field a list shows of a note: `note show` shows it whole. Anyone may add
 * a finding, a read-only agent too, each field up to 256 KiB: 45 of them made `note list` an
 * answer of 22.5 MB over MCP, more than a client reads in one message, so no one could list notes.
 */
export const NOTE_FIELD_PREVIEW_CHARS = 1_000;

/** A note as a list shows it: each text field previewed, the mark naming where it is whole. */
export function notePreview(note: NoteRecord): NoteRecord {
  const whole = `\`cairn note show ${note.id}\``;
  const cut = (text: string) => previewText(text, NOTE_FIELD_PREVIEW_CHARS, whole);
  const body = note.body;
  switch (body.kind) {
    case "decision":
      return {
        ...note,
        body: { ...body, chose: cut(body.chose), rejected: cut(body.rejected), because: cut(body.because) },
      };
    case "finding":
      return { ...note, body: { ...body, text: cut(body.text) } };
    case "metric":
      return {
        ...note,
        body: { ...body, goal: cut(body.goal), question: cut(body.question), metric: cut(body.metric) },
      };
    case "ref":
      return { ...note, body: { ...body, target: cut(body.target), summary: cut(body.summary) } };
  }
}

/** A page of notes, newest first, each previewed (notePreview). */
export async function listNotes(
  store: Store,
  filter: { kind?: NoteKind; scope?: string; limit?: number },
): Promise<NoteRecord[]> {
  const scope = filter.scope === undefined ? undefined : parseScope(filter.scope);
  const notes = await store.read(async (tx) => {
    if (scope) await requireScope(tx, scope);
    return tx.notes.list({
      kinds: filter.kind ? [filter.kind] : undefined,
      scopes: scope === undefined ? undefined : [scope],
      limit: filter.limit ?? 50,
    });
  });
  return notes.map(notePreview);
}

/**
 * Who last confirmed or refuted a finding: kept beside the verdict, or, for a verdict set before
 * that was (migration 0020), from the journal, which no one rewrites; undefined: no one. Looked up
 * there by action: an agent could otherwise hide the owner's verdict behind twenty runs of a
 * shortcut it named after the note (`N-4`), since subjects are one namespace.
 */
export async function trustSetBy(tx: Tx, note: NoteRecord): Promise<string | undefined> {
  if (note.body.kind !== "finding" || note.body.trust === "unverified") return undefined;
  if (note.body.trustBy) return note.body.trustBy;
  const [latest] = await tx.journal.list({ subject: note.id, action: "note.trust", limit: 1 });
  return latest?.actor;
}

/** Confirm or refute a finding. Its author's tree cannot vouch for it: trust comes from someone else. */
export async function setFindingTrust(
  store: Store,
  actor: Actor,
  id: string,
  trust: Exclude<Trust, "unverified">,
  now: string,
): Promise<NoteRecord> {
  return store.write(async (tx) => {
    const note = await tx.notes.byId(id);
    if (!note)
      throw notFound(`no note ${quoteValue(id)}`, "list findings with `cairn note list --kind finding`");
    if (note.body.kind !== "finding") {
      throw refuse("note", `${id} is a ${note.body.kind}, not a finding`, "only findings carry trust");
    }
    if (!actor.isOwner && (await sameTree(tx, actor, note.author))) {
      throw refuse(
        "note",
        note.author === actor.id
          ? `${id} is your own finding`
          : `${id} was written by ${note.author}, of your own line (an ancestor, a descendant or another agent under the same root)`,
        "another agent or the owner confirms or refutes it",
      );
    }
    if (!actor.isOwner && (await trustSetBy(tx, note)) === OWNER.id) {
      throw refuse(
        "note",
        `the owner set ${id}'s trust (${note.body.trust}); an agent does not overturn the owner's verdict`,
        "record what you found as a finding of your own, or ask the owner to look again",
      );
    }
    await tx.notes.setTrust(id, trust, now, actor.id);
    await tx.journal.append({ at: now, actor: actor.id, action: "note.trust", subject: id, data: { trust } });
    return (await tx.notes.byId(id)) as NoteRecord;
  });
}
