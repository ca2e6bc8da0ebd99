import { z } from "zod";
import { defineTerm, listGlossary, removeTerm } from "../../domains/knowledge/glossary.js";
import type { GlossaryEntry } from "../../store/knowledge.js";
import { defineCommand } from "../define.js";
import { nextOffset, pageFooter, pageInput, pageOutput, withinBytes } from "../paging.js";

const Term = z.object({ term: z.string(), meaning: z.string(), author: z.string(), updated_at: z.string() });

const termView = (entry: GlossaryEntry): z.infer<typeof Term> => ({
  term: entry.term,
  meaning: entry.meaning,
  author: entry.author,
  updated_at: entry.updatedAt,
});

export const glossarySet = defineCommand({
  name: "glossary set",
  summary: "Define a term, or redefine one you defined (the owner may redefine any)",
  effect: "write",
  positional: ["term", "meaning"],
  input: z.object({
    term: z.string().min(1).max(200).describe("the term"),
    meaning: z.string().min(1).describe("what it means here"),
  }),
  output: z.object({ entry: Term, created: z.boolean() }),
  async handler(input, ctx) {
    const { entry, created } = await defineTerm(ctx.store, ctx.actor, input, ctx.now());
    return { entry: termView(entry), created };
  },
  render: (out) => `${out.created ? "Defined" : "Redefined"} ${out.entry.term}: ${out.entry.meaning}`,
});

export const glossaryRemove = defineCommand({
  name: "glossary remove",
  summary: "Remove a term you defined (the owner may remove any): no brief quotes it from then on",
  effect: "write",
  positional: ["term"],
  input: z.object({ term: z.string().min(1).max(200).describe("the term, in any case") }),
  output: z.object({ removed: Term }),
  async handler(input, ctx) {
    return { removed: termView(await removeTerm(ctx.store, ctx.actor, input.term, ctx.now())) };
  },
  render: (out) => `Removed ${out.removed.term} (defined by ${out.removed.author})`,
});

/**
 * Terms per page of `glossary list`, and the most one page holds. A meaning holds up to 256 KiB:
 * a page also ends where its JSON would pass PAGE_JSON_BYTES (withinBytes).
 */
const GLOSSARY_PAGE = 25;
const GLOSSARY_PAGE_MAX = 200;

export const glossaryList = defineCommand({
  name: "glossary list",
  summary: "The terms and their meanings, by term; paged",
  effect: "read",
  input: z.object(pageInput(GLOSSARY_PAGE, GLOSSARY_PAGE_MAX)),
  output: z.object({ terms: z.array(Term), ...pageOutput }),
  async handler(input, ctx) {
    const offset = input.offset ?? 0;
    const { entries, total } = await listGlossary(ctx.store, { limit: input.limit ?? GLOSSARY_PAGE, offset });
    const terms = withinBytes(entries.map(termView));
    return { terms, total, next_offset: nextOffset(offset, terms.length, total) };
  },
  render: (out) =>
    out.total === 0
      ? "No terms yet."
      : [
          // Who defined it leads the line, where no term or meaning can stand.
          ...out.terms.map((t) => `by ${t.author}: ${t.term}: ${t.meaning}`),
          ...pageFooter(out, out.terms.length),
        ].join("\n"),
});
