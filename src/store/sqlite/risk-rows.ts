import type { RiskRecord } from "../knowledge.js";

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
});

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
