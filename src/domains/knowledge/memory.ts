import { notFound, refuse, usageError } from "../../kernel/outcome.js";
import { quoteValue } from "../../kernel/text.js";
import type { FactRecord } from "../../store/knowledge.js";
import type { Store, Tx } from "../../store/store.js";
import { type Actor, sameLine, sameTree } from "../identity/actor.js";
import { authorLabels } from "../identity/labels.js";
import { factQuote, factQuoteStart, factQuoteUnescaped } from "./brief/sections.js";
import { mergeTopics, normaliseFact, normaliseTopics, queryTerms } from "./text.js";

/** A fact is a sentence or a short paragraph; documents belong in files, referenced by a `ref` note. */
export const MAX_FACT_CHARS = 4_000;
export const MAX_TOPICS = 16;
export const MAX_TOPIC_CHARS = 64;
export const DEFAULT_RECALL_LIMIT = 10;

export interface RememberResult {
  fact: FactRecord;
  /** True when the text restated a stored fact, which was reinforced instead of duplicated. */
  reinforced: boolean;
}

export function checkFact(
  text: string,
  topics: readonly string[] | undefined,
): { norm: string; topics: string[] } {
  if (text.length > MAX_FACT_CHARS) {
    throw usageError(
      `a fact holds at most ${MAX_FACT_CHARS} characters (this one has ${text.length})`,
      "remember the point in a sentence; keep the document in a file and record it with `cairn note add ref`",
    );
  }
  const norm = normaliseFact(text);
  if (norm === "") throw usageError("a fact needs words", "remember a sentence that states something");
  const cleaned = normaliseTopics(topics);
  if (cleaned.length > MAX_TOPICS) throw usageError(`at most ${MAX_TOPICS} topics per fact`);
  const long = cleaned.find((topic) => topic.length > MAX_TOPIC_CHARS);
  if (long)
    throw usageError(
      `topic "${long.slice(0, 20)}…" is longer than ${MAX_TOPIC_CHARS} characters`,
      "a topic is a word or two",
    );
  return { norm, topics: cleaned };
}

/** How far a chain of corrections is followed (each supersede adds one link). */
const MAX_CORRECTIONS = 1_000;

/**
 * The live fact that now stands for a superseded one: the end of its chain of corrections, or
 * nothing when the chain ends in a forgotten fact.
 */
async function correctionOf(tx: Tx, superseded: FactRecord): Promise<FactRecord | undefined> {
  let fact: FactRecord | undefined = superseded;
  for (let step = 0; fact?.supersededBy && step < MAX_CORRECTIONS; step++) {
    fact = await tx.facts.byId(fact.supersededBy);
  }
  return fact && !fact.supersededBy ? fact : undefined;
}

/**
 * Restating a fact that was corrected would put it back in recall beside its correction, undoing
 * the correction without a word (an agent briefed before it, or one that never saw it). That is
 * refused, naming the correction; the path to say the old text holds again is `supersede`.
 */
export async function refuseIfCorrected(
  tx: Tx,
  norms: readonly string[],
  /** The fact a supersede is replacing: the old text coming back in place of its own correction. */
  replacing?: string,
): Promise<void> {
  if (norms.length === 0) return;
  for (const old of (await tx.facts.supersededByNorms(norms)).values()) {
    const current = await correctionOf(tx, old);
    if (!current || current.id === replacing) continue;
    // The correction's words go in `next`, which the caller reads and the audit log does not
    // keep: a reason is audited, and would outlive a forget of the correction. They are another
    // author's, shown in cairn's instructions: quoted, and named with who wrote them.
    const author = (await authorLabels(tx, [current.author]))(current.author);
    throw refuse(
      "memory",
      `${old.id} said this and was corrected by ${current.id}`,
      `what you knew is out of date: ${current.id}, written by ${author}, says ${quoteValue(current.text, 200)}; if ${current.id} is what is wrong, supersede ${current.id} with this text`,
    );
  }
}

/** How many earlier corroborations a restatement is compared with (recall's weight is near 1 long before). */
const MAX_VOICES = 500;

/**
 * Whether restating `fact` corroborates it, so its seen count (recall's reinforcement) grows.
 * Each author counts once: the fact's author restating it, or one of a tree that already
 * corroborated it (`sameTree`: itself, its parent or children, children minted by one agent),
 * adds nothing. One agent saying a thing sixty times is one voice, not a crowd, and recall must
 * not rank that over the owner's word. A restatement is still seen (recency moves, topics merge);
 * counted ones are journaled as `fact.reinforce`, the others as `fact.restate`.
 */
export async function corroborates(tx: Tx, actor: Actor, fact: FactRecord): Promise<boolean> {
  if (await sameTree(tx, actor, fact.author)) return false;
  const voices = await tx.journal.list({ subject: fact.id, action: "fact.reinforce", limit: MAX_VOICES });
  for (const voice of voices) if (await sameTree(tx, actor, voice.actor)) return false;
  return true;
}

export const restatementAction = (counted: boolean) => (counted ? "fact.reinforce" : "fact.restate");

/** A live fact stated again: seen now, its topics merged, counted when it corroborates. */
export async function restate(
  tx: Tx,
  actor: Actor,
  existing: FactRecord,
  topics: readonly string[],
  now: string,
): Promise<{ fact: FactRecord; counted: boolean }> {
  const counted = await corroborates(tx, actor, existing);
  const merged = mergeTopics(existing.topics, [...topics], MAX_TOPICS);
  return { fact: await tx.facts.reinforce(existing.id, merged, now, counted), counted };
}

export async function remember(
  store: Store,
  actor: Actor,
  input: { text: string; topics?: string[] },
  now: string,
): Promise<RememberResult> {
  const text = input.text.trim();
  const { norm, topics } = checkFact(text, input.topics);
  return store.write(async (tx) => {
    const existing = await tx.facts.liveByNorm(norm);
    if (existing) {
      const { fact, counted } = await restate(tx, actor, existing, topics, now);
      await tx.journal.append({
        at: now,
        actor: actor.id,
        action: restatementAction(counted),
        subject: fact.id,
        data: {},
      });
      return { fact, reinforced: true };
    }
    await refuseIfCorrected(tx, [norm]);
    const fact = await tx.facts.insert({ text, norm, topics, author: actor.id }, now);
    await tx.journal.append({
      at: now,
      actor: actor.id,
      action: "fact.remember",
      subject: fact.id,
      data: { topics },
    });
    return { fact, reinforced: false };
  });
}

export interface RecallHit {
  fact: FactRecord;
  score: number;
}

const DAY_MS = 86_400_000;
/** Relevance leads; recency and reinforcement break near-ties and lift what keeps coming back. */
const WEIGHTS = { relevance: 0.8, recency: 0.1, reinforcement: 0.1 };
const RECENCY_HALF_LIFE_DAYS = 30;

type Scored = Pick<FactRecord, "lastSeenAt" | "seenCount">;

/**
 * `blendScore` at one moment: a recall scores fifty candidates against the same `now`, which is
 * parsed once here rather than once per candidate.
 */
export function blendScorer(now: string): (relevance: number, bestRelevance: number, fact: Scored) => number {
  const nowMs = Date.parse(now);
  return (relevance, bestRelevance, fact) => {
    const ageDays = Math.max(0, (nowMs - Date.parse(fact.lastSeenAt)) / DAY_MS);
    const recency = 0.5 ** (ageDays / RECENCY_HALF_LIFE_DAYS);
    const reinforcement = 1 - 1 / fact.seenCount;
    const normalised = bestRelevance > 0 ? relevance / bestRelevance : 0;
    return WEIGHTS.relevance * normalised + WEIGHTS.recency * recency + WEIGHTS.reinforcement * reinforcement;
  };
}

/** Blend full-text relevance with how recently and how often a fact was seen. */
export function blendScore(relevance: number, bestRelevance: number, fact: Scored, now: string): number {
  return blendScorer(now)(relevance, bestRelevance, fact);
}

/**
 * Live facts that best answer a query, or the most recent ones when there is no query. The query
 * is plain words: any punctuation or full-text syntax in it is treated as a separator.
 */
export async function recall(
  store: Store,
  input: { query?: string; topic?: string; limit?: number },
  now: string,
): Promise<RecallHit[]> {
  return store.read((tx) => recallIn(tx, input, now));
}

/** `recall` within a transaction the caller holds (a brief reads everything in one). */
export async function recallIn(
  tx: Tx,
  input: { query?: string; topic?: string; limit?: number },
  now: string,
): Promise<RecallHit[]> {
  const limit = input.limit ?? DEFAULT_RECALL_LIMIT;
  const terms = queryTerms(input.query ?? "");
  const topic = input.topic === undefined ? undefined : normaliseTopics([input.topic])[0];
  if (terms.length === 0) {
    const recent = await tx.facts.search({ terms, topic, limit });
    return recent.map((hit) => ({ fact: hit.fact, score: 0 }));
  }
  // A pool of candidates, re-ranked by the blend; the store loads whole facts for the kept alone.
  const blend = blendScorer(now);
  const hits = await tx.facts.search({
    terms,
    topic,
    limit: Math.max(limit * 5, 50),
    keep: {
      count: limit,
      score: (candidate, best) => blend(candidate.relevance, best, candidate),
    },
  });
  return hits.map((hit) => ({ fact: hit.fact, score: hit.score ?? 0 }));
}

/**
 * A full-text index that grew in many small steps is split into pieces, and every search reads
 * each of its words from every piece (at a million facts: recall from ~1 ms of index reading to
 * ~0.3). A few pieces cost little; past this many, maintenance merges them into one, which
 * rewrites the index (about 3 s at a million facts), so it is left to `cairn sweep`, never done
 * inside a call an agent waits on.
 */
export const MAX_INDEX_PIECES = 8;

/** Maintenance: merge the memory's full-text index back into one piece when it is fragmented. */
export async function compactMemory(store: Store, actor: Actor, now: string): Promise<number> {
  return store.write(async (tx) => {
    const merged = await tx.facts.compactIndex(MAX_INDEX_PIECES);
    if (merged > 0)
      await tx.journal.append({
        at: now,
        actor: actor.id,
        action: "fact.index.compact",
        subject: "facts",
        data: { pieces: merged },
      });
    return merged;
  });
}

/**
 * The `limit` most used topics, and how many there are: every fact adds up to 16 topics, and
 * 4,800 of them made every `topics` 509 KB, growing with each fact any agent remembered.
 */
export async function topics(
  store: Store,
  limit: number,
): Promise<{ topics: { topic: string; count: number }[]; total: number }> {
  return store.read((tx) => tx.facts.topTopics(limit));
}

/** The fact `forget` deletes for this caller, refused as `forget` refuses: no such fact, or not the caller's. */
export async function forgettable(tx: Tx, actor: Actor, id: string): Promise<FactRecord> {
  const fact = await tx.facts.byId(id);
  if (!fact) throw notFound(`no fact ${quoteValue(id)}`, "find facts with `cairn recall`");
  if (!actor.isOwner && !(await sameLine(tx, actor, fact.author))) {
    throw refuse(
      "ownership",
      `${fact.id} was remembered by ${fact.author}; only its author (or its parent or child) or the owner may forget it`,
      `if it is wrong, supersede ${fact.id} with the correction (the old text stays readable); if it must go (a leaked secret), ask the owner to forget it`,
    );
  }
  return fact;
}

/**
 * Delete a fact for good (the journal keeps only that it was forgotten, not its text). Only its
 * author's line or the owner may: a deletion leaves nothing to read back, unlike a supersede.
 */
export async function forget(
  store: Store,
  actor: Actor,
  id: string,
  now: string,
): Promise<{ fact: FactRecord; restored: string[] }> {
  const forgotten = await store.write(async (tx) => {
    const fact = await forgettable(tx, actor, id);
    // A link in the middle of a chain of corrections: what it replaced was corrected again since,
    // so it counts as replaced by the live correction. Brought back instead, a fact corrected
    // twice stood in recall beside the correction of its correction.
    const correction = fact.supersededBy ? await correctionOf(tx, fact) : undefined;
    await tx.facts.delete(id);
    let restored: string[] = [];
    if (correction) await tx.facts.handOverReplaced(id, correction.id);
    // What it had replaced comes back: forgetting a correction must not leave the fact it
    // corrected out of recall for good (a writer superseding the owner's fact, then forgetting
    // its own replacement, would otherwise have made the owner's fact vanish).
    else restored = await tx.facts.restoreReplacedBy(id);
    // A recorded brief froze what an agent was told, this fact's text with it (each fact is quoted
    // whole under its id: brief/sections.ts). A fact forgotten because it must not stay (a leaked
    // secret) leaves those too. Each keeps its hash, of what was said; the journal names them.
    // Its whole quote, as whole lines, is what goes: its text alone, found anywhere in a brief
    // naming the quote's opening, let a writer remember a line of the owner's decision, name the
    // opening in a finding, forget its fact and so take the owner's line out of every record.
    const author = (await authorLabels(tx, [fact.author]))(fact.author);
    const gone = `\n${factQuote(fact.id, author, `[forgotten: the text of ${fact.id} was removed when it was forgotten]`)}\n`;
    const quoted = factQuote(fact.id, author, fact.text);
    const unescaped = factQuoteUnescaped(fact.id, author, fact.text);
    const briefs = [
      ...new Set([
        ...(await tx.briefs.redact(factQuoteStart(fact.id), `\n${quoted}\n`, gone)),
        ...(unescaped === quoted
          ? []
          : await tx.briefs.redact(factQuoteStart(fact.id), `\n${unescaped}\n`, gone)),
      ]),
    ];
    await tx.journal.append({
      at: now,
      actor: actor.id,
      action: "fact.forget",
      subject: id,
      data: { ...(restored.length > 0 ? { restored } : {}), ...(briefs.length > 0 ? { briefs } : {}) },
    });
    return { fact, restored };
  });
  await store.reclaimDeleted?.();
  return forgotten;
}

export async function showFact(store: Store, id: string): Promise<FactRecord> {
  const fact = await store.read((tx) => tx.facts.byId(id));
  if (!fact) throw notFound(`no fact ${quoteValue(id)}`, "find facts with `cairn recall`");
  return fact;
}
