import { conflict, notFound, refuse } from "../../kernel/outcome.js";
import { quoteValue } from "../../kernel/text.js";
import type { Level, RiskRecord, RiskState } from "../../store/knowledge.js";
import type { Store } from "../../store/store.js";
import type { Actor } from "../identity/actor.js";
import { who } from "../tasks/common.js";
import { parseScope, requireScope, shows } from "./text.js";

export const LEVELS = ["high", "medium", "low"] as const satisfies readonly Level[];
const WEIGHT: Record<Level, number> = { high: 3, medium: 2, low: 1 };

/**
 * Rank 1 is the worst. Computed from impact × likelihood every time it is shown, never stored,
 * so a rule change re-ranks every risk at once: 9 → 1, 6 → 2, 4 → 3, 3 → 4, 2 → 5, 1 → 6.
 */
export function riskRank(risk: Pick<RiskRecord, "impact" | "likelihood">): number {
  const exposure = WEIGHT[risk.impact] * WEIGHT[risk.likelihood];
  return [9, 6, 4, 3, 2, 1].indexOf(exposure) + 1;
}

export function byRank<T extends Pick<RiskRecord, "impact" | "likelihood">>(risks: readonly T[]): T[] {
  return [...risks].sort((a, b) => riskRank(a) - riskRank(b));
}

/** Every required field must show something: spaces or invisible characters alone are refused. */
export function requireShown(what: "risk" | "term" | "closing", fields: Record<string, string>): void {
  for (const [field, value] of Object.entries(fields)) {
    if (!shows(value)) {
      throw refuse(
        what === "term" ? "glossary" : "risk",
        `a ${what} needs ${field}: this one holds only spaces or invisible characters`,
        `give ${field} in words`,
      );
    }
  }
}

export async function addRisk(
  store: Store,
  actor: Actor,
  input: {
    risk: string;
    impact: Level;
    likelihood: Level;
    indicators: string;
    action: string;
    scope?: string;
  },
  now: string,
): Promise<RiskRecord> {
  requireShown("risk", { risk: input.risk, indicators: input.indicators, action: input.action });
  const scope = parseScope(input.scope);
  return store.write(async (tx) => {
    await requireScope(tx, scope);
    const risk = await tx.risks.insert(
      {
        scope,
        risk: input.risk.trim(),
        impact: input.impact,
        likelihood: input.likelihood,
        indicators: input.indicators.trim(),
        action: input.action.trim(),
        author: actor.id,
      },
      now,
    );
    await tx.journal.append({
      at: now,
      actor: actor.id,
      action: "risk.add",
      subject: risk.id,
      data: { rank: riskRank(risk) },
    });
    return risk;
  });
}

/**
 * A page of the risks, worst rank first. A page, not all: any writer adds risks, each of up to
 * 512 KiB, and 100 of 200 KB made every `risk list` 20 MB, past what an MCP client reads.
 */
export async function listRisks(
  store: Store,
  query: { scope?: string; state?: RiskState; limit: number; offset: number },
): Promise<{ risks: RiskRecord[]; total: number }> {
  const scope = query.scope === undefined ? undefined : parseScope(query.scope);
  return store.read(async (tx) => {
    // As `note list` does: a mistyped task id is not found, never "no risks" about a task that
    // does not exist.
    if (scope) await requireScope(tx, scope);
    return tx.risks.page({
      scopes: scope ? [scope] : undefined,
      state: query.state,
      limit: query.limit,
      offset: query.offset,
    });
  });
}

/**
 * Close a risk: mitigated, past, or rated wrongly. It leaves every brief and stays readable with
 * why. A risk belongs to whoever recorded it: only its author or the owner closes it, or an agent
 * could take the warning about its own shortcut out of the briefs. A changed rating is a new risk
 * (`risk add`), the old one closed saying so.
 */
export async function closeRisk(
  store: Store,
  actor: Actor,
  input: { id: string; because: string },
  now: string,
): Promise<RiskRecord> {
  requireShown("closing", { because: input.because });
  return store.write(async (tx) => {
    const risk = await tx.risks.byId(input.id);
    if (!risk)
      throw notFound(`no risk ${quoteValue(input.id)}`, "list them with `cairn risk list --state all`");
    if (risk.closed)
      throw conflict(
        `${risk.id} was already closed by ${await who(tx, risk.closed.by)} at ${risk.closed.at}`,
        "record a new risk with `cairn risk add` if it stands again",
      );
    if (risk.author !== actor.id && !actor.isOwner)
      throw refuse(
        "ownership",
        `${risk.id} was recorded by ${await who(tx, risk.author)}; only its author or the owner may close it`,
        "record why it no longer holds as a finding on its scope, or ask its author or the owner to close it",
      );
    const closing = { at: now, by: actor.id, because: input.because.trim() };
    if (!(await tx.risks.close(risk.id, closing)))
      throw conflict(`${risk.id} was closed meanwhile`, `read it with \`cairn risk list --state closed\``);
    await tx.journal.append({
      at: now,
      actor: actor.id,
      action: "risk.close",
      subject: risk.id,
      data: { rank: riskRank(risk) },
    });
    return { ...risk, closed: closing };
  });
}
