import type { Migration } from "./migration.js";

/**
 * When a risk was closed, by whom and why. A risk stood in every brief of its scope for good:
 * one mitigated, or rated high by mistake, could not leave them. A closed risk stays readable
 * (`risk list --state closed`) and leaves briefs; risks recorded before this are open.
 */
export const riskClosing: Migration = {
  name: "0023_risk_closing",
  sql: `
    ALTER TABLE risks ADD COLUMN closed_at TEXT;
    ALTER TABLE risks ADD COLUMN closed_by TEXT;
    ALTER TABLE risks ADD COLUMN closed_because TEXT;
  `,
};
