import type Database from "better-sqlite3";
import { COLUMNS, type NoteRow, noteRowOf } from "./note-rows.js";

/** The note columns, each named through the `n` alias (a join would make `seq` ambiguous). */
const NOTE_COLUMNS = COLUMNS.split(", ")
  .map((column) => `n.${column} AS ${column}`)
  .join(", ");

/**
 * How findings are ordered: severity, then trust (confirmed, unverified, refuted), then newest.
 * Migration 0010_brief_reads indexes these very expressions, written out there.
 */
const severityRank = (column: string) =>
  `CASE ${column} WHEN 'major' THEN 0 WHEN 'moderate' THEN 1 ELSE 2 END`;
const trustRank = (column: string) =>
  `CASE ${column} WHEN 'confirmed' THEN 0 WHEN 'unverified' THEN 1 ELSE 2 END`;

/**
 * One scope's first page: a walk down notes_finding_rank, in its order, with no sort (a unit test
 * holds the plan to that, should these expressions ever drift from the migration's).
 */
export const FINDINGS_OF_SCOPE = `SELECT seq, ${COLUMNS},
    ${severityRank("severity")} AS severity_rank, ${trustRank("trust")} AS trust_rank
  FROM notes INDEXED BY notes_finding_rank WHERE scope = ? AND kind = 'finding'
  ORDER BY ${severityRank("severity")}, ${trustRank("trust")}, seq DESC LIMIT +?`;

/** A finding's values as read: seq, COLUMNS in their order, severity rank, trust rank. */
type Ranked = unknown[];
const SEQ = 0;
const SEVERITY = 1 + COLUMNS.split(", ").length;
const TRUST = SEVERITY + 1;
const rank = (row: Ranked, at: number) => row[at] as number;

const findingOrder = (a: Ranked, b: Ranked) =>
  rank(a, SEVERITY) - rank(b, SEVERITY) || rank(a, TRUST) - rank(b, TRUST) || rank(b, SEQ) - rank(a, SEQ);

/**
 * The first page of findings over a few scopes (a brief's task, its parents, the workspace) and
 * the children of one task (the task's siblings), merged here from one page per scope and one
 * for the children. Each page is already in order, so the first `limit` of their union is the
 * first `limit` of the merged pages, repeats dropped. One statement over every scope at once
 * read and sorted all of their findings, and the workspace scope of a mature board gathers
 * hundreds: a brief paid for sorting them all.
 */
export function findingPages(db: Database.Database) {
  const ofScope = db.prepare<[string, number], Ranked>(FINDINGS_OF_SCOPE).raw(true);
  // Children are many scopes with few findings each: looked up one child at a time from the
  // parent index (CROSS JOIN keeps the planner from walking every finding of the workspace
  // instead), then sorted.
  const ofChildren = db
    .prepare<[string, number], Ranked>(
      `SELECT n.seq AS seq, ${NOTE_COLUMNS},
       ${severityRank("n.severity")} AS severity_rank, ${trustRank("n.trust")} AS trust_rank
     FROM tasks t CROSS JOIN notes n ON n.scope = 'task:' || t.id AND n.kind = 'finding'
     WHERE t.parent_id = ? ORDER BY severity_rank, trust_rank, n.seq DESC LIMIT +?`,
    )
    .raw(true);

  return (scopes: readonly string[], limit: number, childrenOf?: string): NoteRow[] => {
    if (limit <= 0) return [];
    const pages = [...new Set(scopes)].map((scope) => ofScope.all(scope, limit));
    if (childrenOf !== undefined) pages.push(ofChildren.all(childrenOf, limit));
    const seen = new Set<number>();
    const union: Ranked[] = [];
    for (const row of pages.flat())
      if (!seen.has(rank(row, SEQ)) && seen.add(rank(row, SEQ))) union.push(row);
    return union
      .sort(findingOrder)
      .slice(0, limit)
      .map((row) => noteRowOf(row, 1));
  };
}
