import { z } from "zod";
import { addRisk, closeRisk, LEVELS, listRisks, riskRank } from "../../domains/knowledge/risks.js";
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
