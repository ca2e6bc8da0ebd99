import type { Migration } from "./migration.js";

/**
 * What every brief reads of its scopes (the task, its parents, the workspace), each as a walk of
 * an index that grows with the board, never a scan or a sort of all of it:
 * - each scope's findings in the order a brief shows them (severity, trust, newest): the first
 *   page of a scope is a walk down this index, where before all its findings were sorted (a
 *   workspace scope gathers hundreds). The expressions are note-findings.ts's `severityRank` and
 *   `trustRank`, written out, since a migration never changes once shipped; a unit test holds
 *   the query's plan to a walk of this index, with no sort;
 * - each scope's risks, which were read whole, every one on the board, for every brief.
 */
export const briefReads: Migration = {
  name: "0010_brief_reads",
  sql: `
    CREATE INDEX IF NOT EXISTS notes_finding_rank
      ON notes(
        scope,
        (CASE severity WHEN 'major' THEN 0 WHEN 'moderate' THEN 1 ELSE 2 END),
        (CASE trust WHEN 'confirmed' THEN 0 WHEN 'unverified' THEN 1 ELSE 2 END),
        seq DESC
      ) WHERE kind = 'finding';
    CREATE INDEX IF NOT EXISTS risks_scope ON risks(scope, seq);
  `,
};
