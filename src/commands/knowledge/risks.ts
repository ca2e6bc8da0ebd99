import { z } from "zod";
import {
  addRisk,
  closeRisk,
  defineTerm,
  LEVELS,
  listGlossary,
  listRisks,
  removeTerm,
  riskRank,
} from "../../domains/knowledge/risks.js";
import type { RiskRecord } from "../../store/knowledge.js";
import { defineCommand } from "../define.js";
import { shortId } from "../ids.js";
import { nextOffset, pageFooter, pageInput, pageOutput, withinBytes } from "../paging.js";

const Risk = z.object({
  id: z.string(),
  rank: z.number().int(),
  scope: z.string(),
  risk: z.string(),
  impact: z.enum(LEVELS),
  likelihood: z.enum(LEVELS),
  indicators: z.string(),
  action: z.string(),
  author: z.string(),
  created_at: z.string(),
  closed: z
    .object({ at: z.string(), by: z.string(), because: z.string() })
    .nullable()
    .describe("when, by whom and why it was closed; null while open"),
});

const RiskState = z.enum(["open", "closed", "all"]);

const riskView = (risk: RiskRecord): z.infer<typeof Risk> => ({
  id: risk.id,
  rank: riskRank(risk),
  scope: risk.scope,
  risk: risk.risk,
  impact: risk.impact,
  likelihood: risk.likelihood,
  indicators: risk.indicators,
  action: risk.action,
  author: risk.author,
  created_at: risk.createdAt,
  closed: risk.closed,
});

/** cairn's line first, naming who wrote the risk: its words follow, and are theirs. */
const riskLine = (r: z.infer<typeof Risk>) =>
  `${r.id} rank ${r.rank} (impact ${r.impact}, likelihood ${r.likelihood}) ${r.scope} by ${r.author}${r.closed ? `, closed by ${r.closed.by} at ${r.closed.at}` : ""}\n  ${r.risk}\n  watch for: ${r.indicators}\n  then: ${r.action}${r.closed ? `\n  closed because: ${r.closed.because}` : ""}`;

export const riskAdd = defineCommand({
  name: "risk add",
  summary: "Record a risk: what could go wrong, how likely, how bad, what signals it, what to do",
  effect: "write",
  positional: ["risk"],
  input: z.object({
    risk: z.string().min(1).describe("what could go wrong"),
    impact: z.enum(LEVELS).describe("high | medium | low"),
    likelihood: z.enum(LEVELS).describe("high | medium | low"),
    indicators: z.string().min(1).describe("what shows it is happening"),
    action: z.string().min(1).describe("what to do then"),
    scope: z.string().optional().describe("task id or workspace (default)"),
  }),
  output: z.object({ risk: Risk }),
  async handler(input, ctx) {
    return { risk: riskView(await addRisk(ctx.store, ctx.actor, input, ctx.now())) };
  },
  render: (out) => `Recorded ${riskLine(out.risk)}`,
});

/**
 * Risks per page of `risk list`, and the most one page holds. A risk's indicators and action hold
 * up to 256 KiB each: a page also ends where its JSON would pass PAGE_JSON_BYTES (withinBytes).
 */
const RISKS_PAGE = 10;
const RISKS_PAGE_MAX = 100;

export const riskList = defineCommand({
  name: "risk list",
  summary: "Risks, worst rank first (rank from impact × likelihood); paged",
  effect: "read",
  input: z.object({
    scope: z.string().optional().describe("only this scope"),
    state: RiskState.optional().describe("open (the default: what briefs show), closed, or all"),
    ...pageInput(RISKS_PAGE, RISKS_PAGE_MAX),
  }),
  output: z.object({ state: RiskState, risks: z.array(Risk), ...pageOutput }),
  async handler(input, ctx) {
    const offset = input.offset ?? 0;
    const state = input.state ?? "open";
    const { risks, total } = await listRisks(ctx.store, {
      scope: input.scope,
      state,
      limit: input.limit ?? RISKS_PAGE,
      offset,
    });
    const shown = withinBytes(risks.map(riskView));
    return { state, risks: shown, total, next_offset: nextOffset(offset, shown.length, total) };
  },
  render: (out) =>
    out.total === 0
      ? { open: "No open risks.", closed: "No closed risks.", all: "No risks recorded." }[out.state]
      : [...out.risks.map(riskLine), ...pageFooter(out, out.risks.length)].join("\n"),
});

export const riskClose = defineCommand({
  name: "risk close",
  summary: "Close a risk you recorded (the owner may close any): it leaves every brief, kept with why",
  effect: "write",
  positional: ["id"],
  input: z.object({
    id: shortId("RK").describe("e.g. RK-3"),
    because: z.string().min(1).describe("why it no longer holds: mitigated how, or why it was wrong"),
  }),
  output: z.object({ risk: Risk }),
  async handler(input, ctx) {
    return { risk: riskView(await closeRisk(ctx.store, ctx.actor, input, ctx.now())) };
  },
  render: (out) => `Closed ${riskLine(out.risk)}`,
});

const Term = z.object({ term: z.string(), meaning: z.string(), author: z.string(), updated_at: z.string() });

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
    return {
      entry: { term: entry.term, meaning: entry.meaning, author: entry.author, updated_at: entry.updatedAt },
      created,
    };
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
    const entry = await removeTerm(ctx.store, ctx.actor, input.term, ctx.now());
    return {
      removed: {
        term: entry.term,
        meaning: entry.meaning,
        author: entry.author,
        updated_at: entry.updatedAt,
      },
    };
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
    const terms = withinBytes(
      entries.map((e) => ({ term: e.term, meaning: e.meaning, author: e.author, updated_at: e.updatedAt })),
    );
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
