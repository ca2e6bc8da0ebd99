import type { RiskRecord, RiskState } from "../knowledge.js";

/** Rows of the risks tables as both stores read them, and their records (shared, not copied). */
export interface RiskRow {
  id: string;
  scope: string;
  risk: string;
  impact: RiskRecord["impact"];
  likelihood: RiskRecord["likelihood"];
  indicators: string;
  action: string;
  author: string;
  created_at: string;
  closed_at: string | null;
  closed_by: string | null;
  closed_because: string | null;
}

export const toRisk = (row: RiskRow): RiskRecord => ({
  id: row.id,
  scope: row.scope,
  risk: row.risk,
  impact: row.impact,
  likelihood: row.likelihood,
  indicators: row.indicators,
  action: row.action,
  author: row.author,
  createdAt: row.created_at,
  closed:
    row.closed_at === null
      ? null
      : { at: row.closed_at, by: row.closed_by ?? "", because: row.closed_because ?? "" },
});

/** A risk's state in SQL, for a page to keep the states asked for: `${RISK_STATE} IN (?, ?)`. */
export const RISK_STATE = "(CASE WHEN closed_at IS NULL THEN 'open' ELSE 'closed' END)";

/** The two values `RISK_STATE IN (?, ?)` is given for a page of `state` (open when not given). */
export const statesOf = (state: RiskState = "open"): [string, string] =>
  state === "all" ? ["open", "closed"] : [state, state];

/** A level's weight in a risk's exposure, in SQL: high 3, medium 2, low 1 (as `riskRank` weighs it). */
const weight = (column: string) => `(CASE ${column} WHEN 'high' THEN 3 WHEN 'medium' THEN 2 ELSE 1 END)`;

/**
 * Risks worst rank first, oldest first among equals, in SQL: rank falls as impact × likelihood
 * rises (`riskRank`), so both stores page the risks in the order `byRank` sorts them.
 */
export const BY_RANK = `${weight("impact")} * ${weight("likelihood")} DESC, seq`;

/**
 * A page of risks by rank: the page's seqs found first, from the columns ranked by alone, then
 * only those rows read whole (indicators and actions may hold 256 KiB each). `where` filters both.
 */
export const riskPageSql = (where: string, limit: string, offset: string) =>
  `SELECT r.* FROM (SELECT seq FROM risks ${where} ORDER BY ${BY_RANK} LIMIT ${limit} OFFSET ${offset}) p
   JOIN risks r ON r.seq = p.seq ORDER BY ${BY_RANK.replace("seq", "r.seq")}`;
