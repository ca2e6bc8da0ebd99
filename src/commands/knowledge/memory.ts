import { z } from "zod";
import {
  forget,
  forgettable,
  MAX_FACT_CHARS,
  recall,
  remember,
  showFact,
  topics,
} from "../../domains/knowledge/memory.js";
import { supersede } from "../../domains/knowledge/supersede.js";
import { quoteValue } from "../../kernel/text.js";
import type { FactRecord } from "../../store/knowledge.js";
import { defineCommand } from "../define.js";
import { textBlock } from "../field-text.js";
import { shortId } from "../ids.js";

const Fact = z.object({
  id: z.string(),
  text: z.string(),
  topics: z.array(z.string()),
  author: z.string(),
  created_at: z.string(),
  last_seen: z.string(),
  seen: z.number().int(),
  superseded_by: z.string().nullable(),
});

/** The id leads, so every rendering (and the JSON) starts with what to cite. */
const factView = (fact: FactRecord): z.infer<typeof Fact> => ({
  id: fact.id,
  text: fact.text,
  topics: fact.topics,
  author: fact.author,
  created_at: fact.createdAt,
  last_seen: fact.lastSeenAt,
  seen: fact.seenCount,
  superseded_by: fact.supersededBy,
});

/** What recall returns: the id first, then only what a reader needs (its schema is in every worker's context). */
const Recalled = z.object({
  id: z.string(),
  text: z.string(),
  topics: z.array(z.string()),
  by: z.string(),
  score: z.number(),
});

/**
 * A fact as a person reads it: cairn's line first (the id, who wrote it, its topics, how many
 * stated it), then the text under a gutter, as a note's is. Text first, "… [release, policy]
 * (stated by 7 authors)" written into a fact passed for cairn's own suffixes.
 */
const factLine = (fact: z.infer<typeof Fact>) =>
  `${fact.id} by ${fact.author}${fact.topics.length > 0 ? ` [${fact.topics.join(", ")}]` : ""}${fact.seen > 1 ? ` (stated by ${fact.seen} authors)` : ""}\n  | ${textBlock(fact.text, "  ")}`;

/**
 * What the audit log keeps of a call that writes a fact: everything but its text, and how long
 * that was. The log is append-only and every agent may tail it, so a fact kept there word for
 * word would outlive `forget`, which is how a leaked secret goes (the journal keeps no text
 * either). A digest is no better: a short secret in a known sentence is guessed from it.
 */
function withoutFactText<T extends { text: string }>(input: T): Record<string, unknown> {
  const { text, ...rest } = input;
  return { ...rest, text_chars: text.length };
}

const Topics = z.array(z.string()).optional().describe("words, e.g. db, auth");
const FactText = z
  .string()
  .min(1)
  .max(
    MAX_FACT_CHARS,
    `a fact holds at most ${MAX_FACT_CHARS} characters: state the point; keep documents in files (note add ref)`,
  )
  .describe("one fact");

export const rememberCommand = defineCommand({
  name: "remember",
  summary: "Store a durable fact; restating a known fact reinforces it instead of duplicating",
  effect: "write",
  positional: ["text"],
  input: z.object({ text: FactText, topics: Topics }),
  auditInput: withoutFactText,
  // Lean on purpose: this schema is in every worker's context.
  output: z.object({ id: z.string(), reinforced: z.boolean(), seen: z.number() }),
  async handler(input, ctx) {
    const { fact, reinforced } = await remember(ctx.store, ctx.actor, input, ctx.now());
    return { id: fact.id, reinforced, seen: fact.seenCount };
  },
  // `seen` counts authors, each once (see `corroborates`): a restatement by its own author adds none.
  render: (out) =>
    out.reinforced
      ? `Already known as ${out.id} (stated by ${out.seen} ${out.seen === 1 ? "author" : "authors"}; each counts once)`
      : `Remembered ${out.id}`,
});

export const recallCommand = defineCommand({
  name: "recall",
  summary: "Find remembered facts by words or topic, best first (no query: most recent)",
  effect: "read",
  positional: ["query"],
  flagHelp: { topic: "only the facts kept under this topic (see `topics`)" },
  input: z.object({
    query: z.string().optional().describe("words"),
    topic: z.string().optional(),
    limit: z.number().int().min(1).max(100).optional().describe("default 10"),
  }),
  output: z.object({ facts: z.array(Recalled) }),
  async handler(input, ctx) {
    const hits = await recall(ctx.store, input, ctx.now());
    return {
      facts: hits.map(({ fact, score }) => ({
        id: fact.id,
        text: fact.text,
        topics: fact.topics,
        by: fact.author,
        score: Math.round(score * 1000) / 1000,
      })),
    };
  },
  render: (out) =>
    out.facts.length === 0
      ? "Nothing recalled."
      : out.facts
          .map((f) =>
            factLine({ ...f, author: f.by, created_at: "", last_seen: "", seen: 1, superseded_by: null }),
          )
          .join("\n"),
});

/**
 * Topics `topics` lists by default, and the most it lists: a topic holds at most 64 characters,
 * so the longest list is about 100 KB.
 */
const TOPICS_DEFAULT = 100;
const TOPICS_MAX = 1_000;

export const topicsCommand = defineCommand({
  name: "topics",
  summary: "Subjects of remembered facts, most used first, with how many facts each",
  effect: "read",
  input: z.object({
    limit: z.number().int().min(1).max(TOPICS_MAX).optional(),
  }),
  output: z.object({
    topics: z.array(z.object({ topic: z.string(), count: z.number().int() })),
    total: z.number().int().describe("how many topics there are in all"),
  }),
  async handler(input, ctx) {
    return topics(ctx.store, input.limit ?? TOPICS_DEFAULT);
  },
  render: (out) =>
    out.total === 0
      ? "No topics yet."
      : [
          ...out.topics.map((t) => `${t.topic} (${t.count})`),
          ...(out.topics.length < out.total
            ? [`(the ${out.topics.length} most used of ${out.total}; more with --limit)`]
            : []),
        ].join("\n"),
});

export const supersedeCommand = defineCommand({
  name: "supersede",
  summary: "Replace a fact with a corrected one; the old stays readable but is never recalled",
  effect: "write",
  positional: ["id", "text"],
  input: z.object({
    id: shortId("F").describe("fact to replace, e.g. F-3"),
    text: FactText,
    topics: Topics,
  }),
  output: z.object({ old: Fact, fact: Fact, reinforced: z.boolean() }),
  auditInput: withoutFactText,
  async handler(input, ctx) {
    const result = await supersede(ctx.store, ctx.actor, input, ctx.now());
    return { old: factView(result.old), fact: factView(result.fact), reinforced: result.reinforced };
  },
  render: (out) => `${out.old.id} superseded by ${factLine(out.fact)}`,
});

export const forgetCommand = defineCommand({
  name: "forget",
  summary: "Delete a fact for good",
  effect: "destructive",
  positional: ["id"],
  input: z.object({
    id: shortId("F").describe("fact id"),
    confirm: z.boolean().optional().describe("required"),
  }),
  output: z.object({
    forgotten: Fact,
    restored: z.array(z.string()).describe("facts it had replaced, back in recall"),
  }),
  // The person agreeing reads the fact itself, not only an id the caller may have misdescribed.
  personSees: async (input, ctx) => {
    const fact = await ctx.store.read((tx) => forgettable(tx, ctx.actor, input.id));
    return `${fact.id}, remembered by ${fact.author} on ${fact.createdAt.slice(0, 10)}: ${quoteValue(fact.text, 300)}`;
  },
  async handler(input, ctx) {
    const { fact, restored } = await forget(ctx.store, ctx.actor, input.id, ctx.now());
    return { forgotten: factView(fact), restored };
  },
  render: (out) =>
    `Forgot ${out.forgotten.id}${out.restored.length > 0 ? `; ${out.restored.join(", ")}, which it had replaced, is back in recall` : ""}`,
});

export const factShow = defineCommand({
  name: "fact show",
  summary: "Show one fact by id, superseded or not",
  effect: "read",
  positional: ["id"],
  input: z.object({ id: shortId("F").describe("fact id") }),
  output: z.object({ fact: Fact }),
  async handler(input, ctx) {
    return { fact: factView(await showFact(ctx.store, input.id)) };
  },
  render: (out) =>
    `${factLine(out.fact)}${out.fact.superseded_by ? `\n(superseded by ${out.fact.superseded_by})` : ""}`,
});
