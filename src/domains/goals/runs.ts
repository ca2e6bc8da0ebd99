import { join } from "node:path";
import { notFound, refuse } from "../../kernel/outcome.js";
import type { FrozenEvaluatorRecord, ProofSpec, RunRecord, Store, Tx } from "../../store/store.js";
import { homeWorkspace, type Workspace } from "../workspace/discover.js";
import { goalOrThrow, openQuestions } from "./contract.js";
import { type CatalogDirectories, type CatalogEntry, loadCatalog } from "./evaluators/catalog.js";
import { definitionHash, type EvaluatorDefinition, manifestHash } from "./evaluators/definition.js";
import { approvedEvaluators, type Selection, selectEvaluators } from "./evaluators/select.js";

export function catalogDirectories(workspace: Workspace, env: NodeJS.ProcessEnv): CatalogDirectories {
  return {
    workspace: join(workspace.stateDir, "evaluators"),
    home: join(homeWorkspace(env).stateDir, "evaluators"),
  };
}

/**
 * The definition a run freezes: the evaluator's own fields with the direction and threshold it
 * will be judged by settled (its own, else the contract's proof), so a run needs nothing else.
 */
export function resolveDefinition(definition: EvaluatorDefinition, proof: ProofSpec): EvaluatorDefinition {
  const direction = definition.read === "exit_code" ? "higher" : (definition.direction ?? proof.direction);
  const threshold =
    definition.threshold ?? proof.threshold ?? (definition.read === "exit_code" ? 1 : undefined);
  return { ...definition, direction, threshold };
}

export function freezeEntry(entry: CatalogEntry, proof: ProofSpec): FrozenEvaluatorRecord {
  const definition = resolveDefinition(entry.definition, proof);
  return {
    name: definition.name,
    proof: proof.name,
    source: entry.source,
    hash: definitionHash(definition),
    definition: definition as unknown as Record<string, unknown>,
  };
}

export async function selectionFor(
  tx: Tx,
  goalId: string,
  root: string,
  directories: CatalogDirectories,
): Promise<Selection> {
  const goal = await goalOrThrow(tx, goalId);
  const catalog = loadCatalog(directories);
  const approved = approvedEvaluators(await tx.goals.proposals(goalId));
  return selectEvaluators(goal, catalog, approved, root);
}

/**
 * Freeze a run: the contract, its milestones and every selected evaluator's definition are
 * copied into the run with their content hashes. Later edits to pack files change nothing here.
 */
export async function freezeRun(
  store: Store,
  goalId: string,
  root: string,
  directories: CatalogDirectories,
  actor: string,
  at: string,
): Promise<RunRecord> {
  return store.write(async (tx) => {
    const goal = await goalOrThrow(tx, goalId);
    const { blocking } = openQuestions(goal);
    if (blocking.length > 0) {
      throw refuse(
        "contract",
        `${goalId} is not ready to freeze; still open: ${blocking.join("; ")}`,
        `fill them in with \`cairn goal update ${goalId}\``,
      );
    }
    const selection = await selectionFor(tx, goalId, root, directories);
    if (selection.unmeasured.length > 0) {
      const names = selection.unmeasured.map((proof) => proof.name).join(", ");
      throw refuse(
        "evaluators",
        `no approved evaluator measures: ${names}`,
        `propose one per proof (\`cairn eval propose ${goalId} --proof NAME --argv ...\`) and have the workspace owner approve it, or mark the proof manual`,
      );
    }
    const manifest = selection.measured.flatMap(({ proof, evaluators }) =>
      evaluators.map((entry) => freezeEntry(entry, proof)),
    );
    const run = await tx.goals.insertRun({
      goalId,
      contract: goal,
      milestones: await tx.goals.milestones(goalId),
      manifest,
      manifestHash: manifestHash(manifest.map((entry) => `${entry.name}=${entry.hash}`)),
      createdBy: actor,
      createdAt: at,
    });
    await tx.journal.append({
      at,
      actor,
      action: "run.freeze",
      subject: run.id,
      data: {
        goal: goalId,
        manifest_hash: run.manifestHash,
        evaluators: manifest.map((entry) => entry.name),
      },
    });
    return run;
  });
}

export async function runOrThrow(tx: Tx, id: string): Promise<RunRecord> {
  const run = await tx.goals.run(id);
  if (!run) throw notFound(`no run ${id}`, "`cairn run list` shows the runs");
  return run;
}

/** Evaluators whose pack definition no longer matches what the run froze (informational). */
export function driftOf(run: RunRecord, directories: CatalogDirectories): string[] {
  let catalog: Map<string, CatalogEntry>;
  try {
    catalog = loadCatalog(directories);
  } catch {
    return [];
  }
  const drifted: string[] = [];
  for (const frozen of run.manifest) {
    if (frozen.source.startsWith("proposal:")) continue;
    const current = catalog.get(frozen.name);
    const proof = run.contract.proofs.find((item) => item.name === frozen.proof);
    if (!current || !proof) {
      drifted.push(frozen.name);
      continue;
    }
    if (freezeEntry(current, proof).hash !== frozen.hash) drifted.push(frozen.name);
  }
  return drifted;
}
