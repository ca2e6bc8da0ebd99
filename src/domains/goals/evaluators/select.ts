import { existsSync } from "node:fs";
import { join } from "node:path";
import type { GoalRecord, ProofSpec, ProposalRecord } from "../../../store/store.js";
import type { CatalogEntry } from "./catalog.js";
import { EvaluatorDefinition } from "./definition.js";

export interface ProofMatch {
  proof: ProofSpec;
  evaluators: CatalogEntry[];
}

export interface Selection {
  measured: ProofMatch[];
  /** Proofs no evaluator measures: each needs a proposal a human approves. */
  unmeasured: ProofSpec[];
  /** Proofs judged by a report, not measured. */
  manual: ProofSpec[];
}

function applies(entry: CatalogEntry, root: string): boolean {
  const files = entry.definition.applies_when;
  return files.length === 0 || files.some((file) => existsSync(join(root, file)));
}

/** Approved proposals become evaluators of their goal; unapproved ones never take part. */
export function approvedEvaluators(proposals: readonly ProposalRecord[]): CatalogEntry[] {
  return proposals
    .filter((proposal) => proposal.status === "approved")
    .map((proposal) => ({
      definition: EvaluatorDefinition.parse(proposal.definition),
      source: `proposal:${proposal.id}`,
    }));
}

/** Match every measured proof of a contract to the evaluators that apply to this workspace. */
export function selectEvaluators(
  goal: GoalRecord,
  catalog: ReadonlyMap<string, CatalogEntry>,
  approved: readonly CatalogEntry[],
  root: string,
): Selection {
  const candidates = [...catalog.values()].filter(
    (entry) => !entry.definition.template && applies(entry, root),
  );
  const selection: Selection = { measured: [], unmeasured: [], manual: [] };
  for (const proof of goal.proofs) {
    if (proof.manual) {
      selection.manual.push(proof);
      continue;
    }
    const evaluators = [...candidates, ...approved].filter((entry) => entry.definition.proof === proof.name);
    if (evaluators.length === 0) selection.unmeasured.push(proof);
    else selection.measured.push({ proof, evaluators });
  }
  return selection;
}
