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
