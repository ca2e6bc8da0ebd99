import { z } from "zod";
import {
  addRisk,
  defineTerm,
  LEVELS,
  listGlossary,
  listRisks,
  riskRank,
} from "../../domains/knowledge/risks.js";
import type { RiskRecord } from "../../store/knowledge.js";
import { defineCommand } from "../define.js";

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
});

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
});

const riskLine = (r: z.infer<typeof Risk>) =>
  `${r.id} rank ${r.rank} (impact ${r.impact}, likelihood ${r.likelihood}) ${r.scope}\n  ${r.risk}\n  watch for: ${r.indicators}\n  then: ${r.action}`;

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

export const riskList = defineCommand({
  name: "risk list",
  summary: "Risks, worst rank first (rank from impact × likelihood)",
  effect: "read",
  input: z.object({ scope: z.string().optional().describe("only this scope") }),
  output: z.object({ risks: z.array(Risk) }),
  async handler(input, ctx) {
    return { risks: (await listRisks(ctx.store, input.scope)).map(riskView) };
  },
  render: (out) => (out.risks.length === 0 ? "No risks recorded." : out.risks.map(riskLine).join("\n")),
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

export const glossaryList = defineCommand({
  name: "glossary list",
  summary: "Every term and its meaning",
  effect: "read",
  input: z.object({}),
  output: z.object({ terms: z.array(Term) }),
  async handler(_input, ctx) {
    const entries = await listGlossary(ctx.store);
    return {
      terms: entries.map((e) => ({
        term: e.term,
        meaning: e.meaning,
        author: e.author,
        updated_at: e.updatedAt,
      })),
    };
  },
  render: (out) =>
    out.terms.length === 0 ? "No terms yet." : out.terms.map((t) => `${t.term}: ${t.meaning}`).join("\n"),
});
