import { delimiter, join } from "node:path";
import { crypto } from "../../kernel/builtins.js";
import { conflict, notFound, refuse } from "../../kernel/outcome.js";
import type { Setting } from "../../kernel/setting.js";
import { quoteValue } from "../../kernel/text.js";
import type {
  FrozenEvaluatorRecord,
  ProofSpec,
  ProposalRecord,
  RunRecord,
  Store,
  Tx,
} from "../../store/store.js";
import { homeWorkspace, type Workspace } from "../workspace/discover.js";
import { goalOrThrow, openQuestions } from "./contract.js";
import { type CatalogDirectories, type CatalogEntry, loadCatalog } from "./evaluators/catalog.js";
import { definitionHash, type EvaluatorDefinition, manifestHash } from "./evaluators/definition.js";
import { approvedEvaluators, type Selection, selectEvaluators } from "./evaluators/select.js";
import { isGitRepo } from "./git.js";
import { dependents, freezeInputs, inputDrift } from "./inputs.js";
import { notGit } from "./refusals.js";

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

export function freezeEntry(
  entry: CatalogEntry,
  proof: ProofSpec,
  inputs?: FrozenEvaluatorRecord["inputs"],
  setting: Setting = {},
): FrozenEvaluatorRecord {
  const definition = resolveDefinition(entry.definition, proof);
  // A holdout's hash is salted (see definitionHash): every agent reads it in run status.
  const salt = definition.hidden ? crypto().randomBytes(16).toString("hex") : undefined;
  return {
    name: definition.name,
    proof: proof.name,
    source: entry.source,
    hash: definitionHash(definition, salt),
    ...(salt ? { salt } : {}),
    definition: definition as unknown as Record<string, unknown>,
    ...(inputs ? { inputs } : {}),
    ...(setting.path ? { path: [...setting.path] } : {}),
    ...(setting.home ? { home: setting.home } : {}),
    ...(setting.locations ? { locations: { ...setting.locations } } : {}),
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
 * copied into the run with their content hashes, and so is every input each evaluator depends
 * on (see inputs.ts). Later edits to pack files change nothing here; later edits to inputs stop
 * attempts from being kept. Every freeze, the first included, needs `mayPlan`.
 */
export async function freezeRun(
  store: Store,
  goalId: string,
  root: string,
  directories: CatalogDirectories,
  actor: string,
  at: string,
  mayPlan: boolean,
  /** The freezer's `settingOf`: PATH and home every evaluation of the run uses. */
  setting: Setting,
): Promise<RunRecord> {
  if (!(await isGitRepo(root))) throw notGit(root, "freeze a run");
  const plan = async (tx: Tx) => {
    const goal = await goalOrThrow(tx, goalId);
    const previous = (await tx.goals.runs(goalId)).at(-1);
    // Every freeze needs planning: a later one changes what success means, and the first chooses
    // the evaluators that will judge the work, pack files on disk among them (a builder that wrote
    // one, then froze, was judged by its own).
    if (!mayPlan) {
      throw refuse(
        "planning",
        previous
          ? `${goalId} already has a frozen run (${previous.id}): freezing again changes what success means, which only the workspace owner or a role granted planning may do`
          : `freezing ${goalId}'s first run fixes the evaluators that will judge the work, which only the workspace owner or a role granted planning may do`,
        previous
          ? `keep working against ${previous.id}, or ask the owner to freeze a new run`
          : "ask the owner to freeze the run; until then the contract can still be drafted with `cairn goal update`",
      );
    }
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
        `propose one per proof (\`cairn eval propose ${goalId} --proof NAME --argv ...\`) and have the workspace owner approve it, or mark the proof manual, judged by a reported score (\`cairn goal update ${goalId} --proofs '{"name":"${selection.unmeasured[0]?.name}","manual":true}'\`)`,
      );
    }
    const entries = selection.measured.flatMap(({ proof, evaluators }) =>
      evaluators.map((entry) => ({ entry, proof, definition: resolveDefinition(entry.definition, proof) })),
    );
    return {
      goal,
      previous,
      entries,
      key: entries.map((e) => `${e.proof.name}=${definitionHash(e.definition)}`).join("\n"),
    };
  };
  // Inputs are hashed (git lists the checkout) outside any transaction: a big tree, or a slow git,
  // held the workspace's write lock meanwhile and failed every other writer past its busy timeout.
  const planned = await store.read(plan);
  const hashed: FrozenEvaluatorRecord[] = [];
  for (const { entry, proof, definition } of planned.entries)
    hashed.push(freezeEntry(entry, proof, await freezeInputs(definition, root), setting));
  return store.write(async (tx) => {
    const { goal, previous, key } = await plan(tx);
    if (key !== planned.key || previous?.id !== planned.previous?.id) {
      throw conflict(
        `${goalId}'s evaluators or runs changed while its run was being frozen`,
        `freeze again: \`cairn run freeze ${goalId}\``,
      );
    }
    const manifest = hashed;
    const run = await tx.goals.insertRun({
      goalId,
      contract: goal,
      milestones: await tx.goals.milestones(goalId),
      manifest,
      manifestHash: manifestHash(
        manifest.map(
          (entry) =>
            `${entry.name}=${entry.hash} ${Object.entries(entry.inputs?.files ?? {})
              .map(([file, hash]) => `${file}:${hash}`)
              .join(
                ",",
              )} path:${(entry.path ?? []).join(delimiter)} home:${entry.home ?? ""}${entry.locations ? ` locations:${JSON.stringify(entry.locations)}` : ""}`,
        ),
      ),
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
        // The journal is every agent's to read: a hidden holdout's inputs would name its script.
        inputs: manifest
          .filter((entry) => entry.definition.hidden !== true)
          .map((entry) => ({ evaluator: entry.name, files: Object.keys(entry.inputs?.files ?? {}) })),
      },
    });
    return run;
  });
}

export async function runOrThrow(tx: Tx, id: string): Promise<RunRecord> {
  const run = await tx.goals.run(id);
  if (!run) throw notFound(`no run ${quoteValue(id)}`, "`cairn run list` shows the runs");
  return run;
}

export interface Drift {
  evaluator: string;
  /** definition: its pack file changed; missing: gone from the catalog; proposal: no longer approved; inputs: files it depends on changed. */
  kind: "definition" | "missing" | "proposal" | "inputs";
  files: string[];
}

/**
 * How the world moved since the run froze, for every kind of evaluator: pack definitions edited
 * or gone, proposals no longer approved, and frozen inputs changed in the checkout at `dir`.
 * Informational: the run keeps its frozen copy, and attempts touching inputs are never kept.
 */
export async function driftOf(
  run: RunRecord,
  directories: CatalogDirectories,
  proposals: readonly ProposalRecord[],
  dir: string,
): Promise<Drift[]> {
  let catalog: Map<string, CatalogEntry> | null;
  try {
    catalog = loadCatalog(directories);
  } catch {
    catalog = null;
  }
  const drifted: Drift[] = [];
  for (const frozen of run.manifest) {
    const proof = run.contract.proofs.find((item) => item.name === frozen.proof);
    if (frozen.source.startsWith("proposal:")) {
      const proposal = proposals.find((item) => `proposal:${item.id}` === frozen.source);
      if (proposal?.status !== "approved")
        drifted.push({ evaluator: frozen.name, kind: "proposal", files: [] });
      continue;
    }
    if (!catalog) continue;
    const current = catalog.get(frozen.name);
    if (!current || !proof) drifted.push({ evaluator: frozen.name, kind: "missing", files: [] });
    else if (definitionHash(resolveDefinition(current.definition, proof), frozen.salt) !== frozen.hash)
      drifted.push({ evaluator: frozen.name, kind: "definition", files: [] });
  }
  const changed = await inputDrift(run.manifest, dir);
  for (const { path, evaluators } of dependents(run.manifest, changed)) {
    for (const evaluator of evaluators) {
      const entry = drifted.find((item) => item.evaluator === evaluator && item.kind === "inputs");
      if (entry) entry.files.push(path);
      else drifted.push({ evaluator, kind: "inputs", files: [path] });
    }
  }
  return drifted;
}
