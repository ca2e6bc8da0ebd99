import { sha256Hex } from "../../../kernel/builtins.js";
import { notFound } from "../../../kernel/outcome.js";
import { previewText } from "../../../kernel/text.js";
import type { NoteRecord } from "../../../store/knowledge.js";
import type { Store, Tx } from "../../../store/store.js";
import { type Actor, OWNER, principalOf } from "../../identity/actor.js";
import { authorLabels } from "../../identity/labels.js";
import { rolesOf } from "../../tasks/scope.js";
import type { WorkspaceConfig } from "../../workspace/config.js";
import { recallIn } from "../memory.js";
import { decisionWording, NOTE_FIELD_PREVIEW_CHARS, notePreview, trustSetBy } from "../notes.js";
import { riskRank } from "../risks.js";
import { taskScope, WORKSPACE_SCOPE } from "../text.js";
import { assembleBrief, type BriefResult, DEFAULT_BRIEF_BUDGET } from "./engine.js";
import type { BriefInputs, BriefTask, TaskBriefSource } from "./inputs.js";
import { matchForm, termMatcher } from "./term-match.js";

const LIMITS = { decisions: 20, findings: 20, facts: 8, risks: 10 };

/**
 * A brief quotes each written field of an item (a decision's `because`, a finding, a risk's
 * action, a term's meaning) as `note list` previews a note (notePreview, which decisions and
 * findings go through): its first thousand characters, then a mark naming where the whole is. A
 * section is shortened item by item from its end, and any writer may make a field 256 KiB long:
 * one such item first in its section (the newest decision, a major finding) filled any default
 * budget alone, and every item after it left every brief.
 */
const quoted = (text: string, whereWhole: string) => previewText(text, NOTE_FIELD_PREVIEW_CHARS, whereWhole);
const TOP_RISK_RANK = 2;

/** A note no later one replaced: a superseded note stays readable, but out of briefs. */
const standing = (note: NoteRecord) => note.superseded === undefined;

/** The characters a brief's preview (`quoted`) leaves out of a decision's fields. */
function unquoted(note: NoteRecord): number {
  if (note.body.kind !== "decision") return 0;
  const { chose, rejected, because } = note.body;
  return [chose, rejected, because].reduce(
    (sum, field) => sum + Math.max(0, field.length - NOTE_FIELD_PREVIEW_CHARS),
    0,
  );
}

/**
 * Decisions newest first, each once, with the other notes worded alike (decisionWording: not the
 * key a restatement is found by, which reads past punctuation, so an agent's "No; deploys on
 * Fridays!" was quoted in place of the owner's "No deploys on Fridays", the owner named as having
 * also recorded it). The note shown is the newest of those its preview cuts least: a copy padded
 * with a thousand spaces before its words is worded alike, newest, and was shown as its first
 * spaces and a mark, the owner's words left to `note show` in every brief of its scope.
 */
function collapseDecisions(notes: readonly NoteRecord[]): { note: NoteRecord; also: NoteRecord[] }[] {
  const byKey = new Map<string, NoteRecord[]>();
  for (const note of notes) {
    if (note.body.kind !== "decision") continue;
    const key = decisionWording(note.body);
    const same = byKey.get(key);
    if (same) same.push(note);
    else byKey.set(key, [note]);
  }
  return [...byKey.values()].map((same) => {
    // Newest first: on a tie the newer note stays.
    const note = same.reduce((best, candidate) => (unquoted(candidate) < unquoted(best) ? candidate : best));
    return { note, also: same.filter((other) => other !== note) };
  });
}

/**
 * Facts and risks a brief weighs: more than it shows, so no single voice fills a section (its
 * decisions are weighed within the pool it reads). Recall
 * ranks words, and any writer may remember facts stuffed with a task's words: ten of them, from
 * one agent and the child it minted, took every place, and the owner's fact on the task left the
 * brief without a word. Risks rank by the impact and likelihood their author states: ten rated
 * high and high by one agent put the owner's data-loss risk out the same way.
 */
const POOL = 3;

/**
 * The best `count` items, in their order, at most half of them from one agent's voice (an agent
 * and those it minted: principalOf) while other voices' items remain; places no other voice takes
 * go to the best of the rest, so a workspace with one writer still sees its `count` best. The
 * owner's words are no flood to guard against: they take what places they rank for.
 */
async function fewPerVoice<T>(
  tx: Tx,
  items: readonly T[],
  count: number,
  authorOf: (item: T) => string,
  /** Each author's voice, found once per brief: finding one reads the agent and its minting. */
  voiceOf: Map<string, string>,
): Promise<T[]> {
  const perVoice = Math.ceil(count / 2);
  const taken = new Map<string, number>();
  const chosen = new Set<T>();
  for (const item of items) {
    if (chosen.size === count) break;
    const voice = await voiceOfAuthor(tx, authorOf(item), voiceOf);
    const shown = taken.get(voice) ?? 0;
    if (shown >= perVoice && voice !== OWNER.id) continue;
    taken.set(voice, shown + 1);
    chosen.add(item);
  }
  for (const item of items) if (chosen.size < count) chosen.add(item);
  return items.filter((item) => chosen.has(item));
}

/**
 * Whether one agent's voice holds more than half of `items`, as fewPerVoice would not let it (the
 * owner's is not held to half): a workspace whose facts the owner wrote, most of one person's,
 * reads no wider pool.
 */
async function crowded<T>(
  tx: Tx,
  items: readonly T[],
  authorOf: (item: T) => string,
  voiceOf: Map<string, string>,
): Promise<boolean> {
  const perVoice = Math.ceil(items.length / 2);
  const held = new Map<string, number>();
  for (const item of items) {
    const voice = await voiceOfAuthor(tx, authorOf(item), voiceOf);
    if (voice === OWNER.id) continue;
    const count = (held.get(voice) ?? 0) + 1;
    if (count > perVoice) return true;
    held.set(voice, count);
  }
  return false;
}

/** An author's voice (principalOf), found once per brief in `voiceOf`. */
async function voiceOfAuthor(tx: Tx, author: string, voiceOf: Map<string, string>): Promise<string> {
  let voice = voiceOf.get(author);
  if (voice === undefined) {
    voice = await principalOf(tx, author);
    voiceOf.set(author, voice);
  }
  return voice;
}

export function taskText(task: BriefTask): string {
  return [task.title, task.soThat ?? "", task.context ?? "", ...task.acceptance.map((a) => a.text)].join(
    "\n",
  );
}

/**
 * Collect what the workspace knows that bears on one task, ready for the pure engine: all of it
 * read in one transaction, so the task, its notes and the memory recalled for it are one moment
 * of the workspace, never a task from before a write and its notes from after.
 */
export async function gatherBriefInputs(
  store: Store,
  source: TaskBriefSource,
  options: { actor: Actor; config: WorkspaceConfig; taskId: string; now: string },
): Promise<BriefInputs> {
  return store.read(async (tx) => {
    const task = await source.briefTask(tx, options.taskId);
    if (!task) throw notFound(`no task ${options.taskId}`, "list tasks with `cairn task list`");
    const text = taskText(task);
    const own = [taskScope(task.id), ...task.parents.map((p) => taskScope(p.id)), WORKSPACE_SCOPE];
    // Tasks under the same parent: what any of them found matters to this one. The store names
    // them from its parent index, however many there are, within the findings query itself.
    const parentId = task.parents[0]?.id;
    // The first page and one more fact (to say whether more matched), and the wider pool only when
    // one voice holds more than its share of that page: recall is a third of a brief at scale, and
    // three pages every time cost about as much again, for a flood most briefs never meet.
    const factAuthor = (hit: { fact: { author: string } }) => hit.fact.author;
    const voices = new Map<string, string>();
    let recalled = await recallIn(tx, { query: text, limit: LIMITS.facts + 1 }, options.now);
    let facts = await fewPerVoice(tx, recalled, LIMITS.facts, factAuthor, voices);
    if (
      recalled.length > LIMITS.facts &&
      (await crowded(tx, recalled.slice(0, LIMITS.facts), factAuthor, voices))
    ) {
      recalled = await recallIn(tx, { query: text, limit: LIMITS.facts * POOL }, options.now);
      facts = await fewPerVoice(tx, recalled, LIMITS.facts, factAuthor, voices);
    }
    const shortcuts = source.shortcuts ? await source.shortcuts(tx, options.actor) : null;
    // One decision recorded in several of these scopes is shown once: a pool past the limit, so
    // the copies folded away leave room for the decisions after them.
    const pool = await tx.notes.list({ kinds: ["decision"], scopes: own, limit: LIMITS.decisions * 2 });
    // A decision a later one replaced (`note supersede`) no longer stands: it is not briefed.
    const distinct = collapseDecisions(pool.filter(standing));
    // Twenty newer decisions from one agent put the owner's out of every brief of the workspace.
    const decisions = await fewPerVoice(tx, distinct, LIMITS.decisions, (d) => d.note.author, voices);
    const moreDecisions = distinct.length > decisions.length || pool.length === LIMITS.decisions * 2;
    const lastShown = distinct.indexOf(decisions[decisions.length - 1] as (typeof distinct)[number]);
    const newerLeftOut = distinct.slice(0, lastShown).some((d) => !decisions.includes(d));
    const firstFindings = (await tx.notes.findings(own, LIMITS.findings + 1, parentId)).filter(standing);
    const findings = firstFindings.slice(0, LIMITS.findings);
    // A verdict is someone's word, as the finding is: a read-only agent refuting the owner's
    // finding showed as "refuted, by owner", its own name nowhere.
    const trustBy = new Map<string, string>();
    for (const note of findings) {
      const setter = await trustSetBy(tx, note);
      if (setter) trustBy.set(note.id, setter);
    }
    // The first page by rank, as `risk list` pages them: any writer adds risks, of up to 256 KiB
    // a text, and reading every one in scope made each brief slower with every risk. The oldest
    // of a rank come first, so risks added later never push out those already there.
    const pageOfRisks = LIMITS.risks * POOL;
    const { risks: worst, total: allRisks } = await tx.risks.page({
      scopes: own,
      limit: pageOfRisks,
      offset: 0,
    });
    const top = worst.filter((risk) => riskRank(risk) <= TOP_RISK_RANK);
    const risks = await fewPerVoice(tx, top, LIMITS.risks, (risk) => risk.author, voices);
    // Past the page, a risk may still be a top one when every risk read was.
    const moreRisks = top.length > risks.length || (allRisks > worst.length && top.length === worst.length);
    const occurs = termMatcher(text);
    const glossary = await tx.glossary.byTerms(
      (await tx.glossary.termsMayOccurIn(matchForm(text))).filter(occurs),
    );
    const label = await authorLabels(tx, [
      ...decisions.flatMap((d) => [d.note, ...d.also].map((note) => note.author)),
      ...findings.map((n) => n.author),
      ...trustBy.values(),
      ...risks.map((r) => r.author),
      ...glossary.map((g) => g.author),
      ...facts.map((f) => f.fact.author),
    ]);
    const roleConfig = options.config.roles[options.actor.role];
    // A child acts within every role of its line: what any of them puts out of scope binds it.
    const line = rolesOf(options.config, options.actor).map(({ role }) => role);
    const outOfScope = [
      ...new Set([roleConfig?.out_of_scope ?? [], ...line.map((role) => role.out_of_scope)].flat()),
    ];
    return {
      task,
      role:
        roleConfig || outOfScope.length > 0
          ? {
              name: options.actor.role,
              summary: roleConfig?.summary ?? "",
              instructions: roleConfig?.instructions ?? "",
              outOfScope,
            }
          : null,
      // Decisions and findings are quoted as `note list` previews them (notePreview).
      decisions: decisions.flatMap(({ note, also }) => {
        const { body } = notePreview(note);
        return body.kind === "decision"
          ? [
              {
                id: note.id,
                at: note.createdAt,
                scope: note.scope,
                author: label(note.author),
                ...body,
                ...(also.length > 0
                  ? { also: also.map((n) => ({ id: n.id, scope: n.scope, author: label(n.author) })) }
                  : {}),
              },
            ]
          : [];
      }),
      risks: risks.map((risk) => ({
        ...risk,
        risk: quoted(risk.risk, "`cairn risk list`"),
        indicators: quoted(risk.indicators, "`cairn risk list`"),
        action: quoted(risk.action, "`cairn risk list`"),
        rank: riskRank(risk),
        author: label(risk.author),
      })),
      glossary: glossary.map((entry) => ({
        term: entry.term,
        meaning: quoted(entry.meaning, "`cairn glossary list`"),
        author: label(entry.author),
      })),
      findings: findings.flatMap((note) => {
        const { body } = notePreview(note);
        return body.kind === "finding"
          ? [
              {
                id: note.id,
                at: note.createdAt,
                scope: note.scope,
                author: label(note.author),
                text: body.text,
                severity: body.severity,
                trust: body.trust,
                ...(trustBy.has(note.id) ? { trustBy: label(trustBy.get(note.id) as string) } : {}),
              },
            ]
          : [];
      }),
      facts: facts.map((hit) => ({ id: hit.fact.id, text: hit.fact.text, author: label(hit.fact.author) })),
      shortcuts:
        shortcuts ?? (roleConfig?.shortcuts ?? []).map((shortcut) => ({ text: shortcut, uses: null })),
      more: {
        decisions: moreDecisions,
        ...(newerLeftOut ? { decisionsPassedOver: true } : {}),
        findings: firstFindings.length > LIMITS.findings,
        facts: recalled.length > facts.length,
        risks: moreRisks,
      },
    };
  });
}

export async function buildBrief(
  store: Store,
  source: TaskBriefSource,
  options: { actor: Actor; config: WorkspaceConfig; taskId: string; now: string; budget?: number },
): Promise<BriefResult> {
  const inputs = await gatherBriefInputs(store, source, options);
  return assembleBrief(inputs, options.budget ?? DEFAULT_BRIEF_BUDGET);
}

export const briefHash = (text: string) => `sha256:${sha256Hex(text)}`;

/** Freeze what an agent was told, so a later reader can check it against the hash. */
export async function recordBrief(
  store: Store,
  actor: Actor,
  brief: { taskId: string; budget: number; text: string },
  now: string,
): Promise<{ id: string; hash: string }> {
  const hash = briefHash(brief.text);
  return store.write(async (tx) => {
    // The same brief recorded again by the same caller is the record it already has: a loop of
    // `brief record` stored a megabyte-sized brief once per call, the same bytes each time.
    const last = await tx.briefs.latest(brief.taskId, actor.id);
    const same = last !== undefined && last.hash === hash && last.budget === brief.budget;
    const id = same
      ? last.id
      : (
          await tx.briefs.insert(
            { task: brief.taskId, actor: actor.id, budget: brief.budget, hash, text: brief.text },
            now,
          )
        ).id;
    await tx.journal.append({
      at: now,
      actor: actor.id,
      action: "brief.record",
      subject: id,
      data: { task: brief.taskId, hash, ...(same ? { again: true } : {}) },
    });
    return { id, hash };
  });
}
