import { notFound, refuse, usageError } from "../../kernel/outcome.js";
import { quoteValue } from "../../kernel/text.js";
import type { ProposalRecord, Store, Tx } from "../../store/store.js";
import type { Actor } from "../identity/actor.js";
import type { WorkspaceConfig } from "../workspace/config.js";
import { requirePlanning } from "./authority.js";
import { goalOrThrow, unknownProof } from "./contract.js";
import { type DryRun, dryRunCommand } from "./dry-run.js";
import { type CatalogDirectories, loadCatalog } from "./evaluators/catalog.js";
import { EvaluatorDefinition } from "./evaluators/definition.js";
import { describeZodIssues } from "./issues.js";

export interface ProposalInput {
  proof: string;
  template?: string;
  name?: string;
  argv?: string[];
  read?: "exit_code" | "regex" | "json";
  pattern?: string;
  json_path?: string;
  match?: "last" | "only";
  direction?: "higher" | "lower";
  threshold?: number;
  repeats?: number;
  timeout_seconds?: number;
  hidden?: boolean;
  inputs?: string[];
  noisy?: boolean;
  min_effect?: number;
  ignore_exit_code?: boolean;
}

/**
 * Propose an evaluator for a proof nobody measures. Anyone with a write grant may propose; it
 * stays inert until the workspace owner approves it.
 */
export async function proposeEvaluator(
  store: Store,
  goalId: string,
  input: ProposalInput,
  directories: CatalogDirectories,
  actor: Actor,
  at: string,
  /** Whether the caller reads holdouts (readsHoldouts): the owner, as a person. */
  readsHidden: boolean,
): Promise<ProposalRecord> {
  return store.write(async (tx) => {
    const goal = await goalOrThrow(tx, goalId);
    const proof = goal.proofs.find((item) => item.name === input.proof);
    if (!proof) throw unknownProof(input.proof, goal.proofs);
    if (proof.manual) {
      throw refuse(
        "proofs",
        `${proof.name} is a manual proof: it is judged by a report, not measured`,
        `make it measured first (\`cairn goal update ${goalId}\` with manual=false)`,
      );
    }
    let base: Record<string, unknown> = {};
    if (input.template) {
      const template = loadCatalog(directories).get(input.template);
      if (!template)
        throw notFound(
          `no evaluator template ${input.template}`,
          "built-in templates: exit-code, benchmark-number",
        );
      // A holdout is the owner's to read: copied into a proposal, its command and rule would be
      // shown back to whoever proposed it, and journaled for everyone once marked not hidden.
      if (template.definition.hidden && !readsHidden)
        throw refuse(
          "hidden",
          `${quoteValue(input.template, 80)} is a hidden holdout: only the workspace owner, as a person, reads it or starts a proposal from it`,
          "start from a template that is not hidden (exit-code, benchmark-number), or give the argv yourself",
        );
      const { template: _flag, applies_when: _applies, ...fields } = template.definition;
      base = fields;
    }
    const { proof: _proof, template: _template, ...overrides } = input;
    const candidate = {
      ...base,
      ...Object.fromEntries(Object.entries(overrides).filter(([, value]) => value !== undefined)),
      name: input.name ?? `${goalId.toLowerCase()}-${proof.name}`,
      proof: proof.name,
    };
    const parsed = EvaluatorDefinition.safeParse(candidate);
    if (!parsed.success) throw usageError(`evaluator proposal: ${describeZodIssues(parsed.error)}`);
    if (parsed.data.argv[0] === "COMMAND")
      throw usageError("argv: replace the template's COMMAND with the real program and its arguments");
    const proposal = await tx.goals.insertProposal(
      goalId,
      proof.name,
      parsed.data as unknown as Record<string, unknown>,
      actor.id,
      at,
    );
    await tx.journal.append({
      at,
      actor: actor.id,
      action: "evaluator.propose",
      subject: proposal.id,
      // The journal is every agent's to read: a hidden holdout's command stays out of it.
      data: { goal: goalId, proof: proof.name, argv: parsed.data.hidden ? null : parsed.data.argv },
    });
    return proposal;
  });
}

export interface ApproveOptions {
  /** Where the approval's dry run executes the command (the workspace root). */
  root: string;
  /** Approve even though the dry run extracted no number. */
  force?: boolean;
  signal?: AbortSignal;
}

/**
 * Only the workspace owner (or a role granted planning) decides which commands may judge the
 * work. Approving runs the command once and shows what its rule extracts; a rule that extracts
 * nothing is refused before it can reach a freeze, unless forced.
 */
export async function decideProposal(
  store: Store,
  id: string,
  approve: boolean,
  actor: Actor,
  config: WorkspaceConfig,
  at: string,
  options: ApproveOptions,
): Promise<{ proposal: ProposalRecord; dryRun: DryRun | null }> {
  requirePlanning(actor, config, `${approve ? "approve" : "reject"} evaluator proposals`);
  const found = await store.read((tx) => undecidedProposal(tx, id));
  let dryRun: DryRun | null = null;
  if (approve) {
    const definition = EvaluatorDefinition.parse(found.definition);
    dryRun = await dryRunCommand(definition, options.root, options.signal);
    if (dryRun.value === null && definition.read !== "exit_code" && !options.force) {
      // A refusal's reason goes into the audit log, which every agent may tail: a holdout's
      // rule (which the reading error quotes too) stays out of it.
      if (definition.hidden)
        throw refuse(
          "dry-run",
          `${id} (hidden) extracts nothing from one run of its command; its rule and what it read are left out here, since the audit log keeps this message where agents read it`,
          `see its rule with \`cairn eval proposals ${found.goalId} --json\` and try it on the command's output with \`cairn eval propose ... --sample-output\`; propose a corrected evaluator, or approve with --force if the command cannot run here yet`,
        );
      throw refuse(
        "dry-run",
        `${id}'s ${dryRun.rule} extracts nothing from its command: ${dryRun.error ?? "no value"}${dryRun.output_tail ? `; output ends: ${JSON.stringify(dryRun.output_tail.slice(-200))}` : ""}`,
        "propose a corrected evaluator (`cairn eval propose ... --pattern ...`), or approve with --force if the command cannot run here yet",
      );
    }
  }
  const proposal = await store.write(async (tx) => {
    const current = await undecidedProposal(tx, id);
    const status = approve ? "approved" : "rejected";
    await tx.goals.decideProposal(id, status, actor.id, at);
    await tx.journal.append({
      at,
      actor: actor.id,
      action: `evaluator.${status}`,
      subject: id,
      data: {
        goal: current.goalId,
        dry_run:
          dryRun && current.definition.hidden !== true ? { value: dryRun.value, error: dryRun.error } : null,
      },
    });
    return { ...current, status, decidedBy: actor.id, decidedAt: at } as ProposalRecord;
  });
  return { proposal, dryRun };
}

/**
 * What the person is asked to own when a model approves an evaluator (judgedByPerson): what it
 * runs, what it measures and who proposed it. One refused anyway is refused here, before anyone is asked.
 */
export async function describeProposal(store: Store, id: string): Promise<string> {
  const found = await store.read((tx) => undecidedProposal(tx, id));
  const argv = (found.definition as { argv?: unknown }).argv;
  const runs = Array.isArray(argv)
    ? argv.map((word) => quoteValue(String(word), 200)).join(" ")
    : "(no command)";
  const hidden = (found.definition as { hidden?: unknown }).hidden === true ? ", hidden from builders" : "";
  return `${found.id}, proposed by ${found.proposedBy}, to measure proof ${found.proof} of goal ${found.goalId}${hidden}: it runs ${runs}`;
}

/** The proposal `id`, still waiting for its decision; not found, or refused once decided. */
async function undecidedProposal(tx: Tx, id: string): Promise<ProposalRecord> {
  const proposal = await tx.goals.proposal(id);
  if (!proposal)
    throw notFound(`no evaluator proposal ${quoteValue(id)}`, "`cairn eval proposals GOAL` lists them");
  if (proposal.status !== "proposed")
    throw refuse(
      "proposal",
      `${proposal.id} was already ${proposal.status}`,
      "propose a new evaluator to change it",
    );
  return proposal;
}
