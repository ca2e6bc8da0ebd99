import { notFound, refuse, usageError } from "../../kernel/outcome.js";
import type { ProposalRecord, Store } from "../../store/store.js";
import type { Actor } from "../identity/actor.js";
import { goalOrThrow, unknownProof } from "./contract.js";
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
  direction?: "higher" | "lower";
  threshold?: number;
  repeats?: number;
  timeout_seconds?: number;
  hidden?: boolean;
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
  actor: string,
  at: string,
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
      actor,
      at,
    );
    await tx.journal.append({
      at,
      actor,
      action: "evaluator.propose",
      subject: proposal.id,
      data: { goal: goalId, proof: proof.name, argv: parsed.data.argv },
    });
    return proposal;
  });
}

/** Only a human (the workspace owner) decides which commands may judge the work. */
export async function decideProposal(
  store: Store,
  id: string,
  approve: boolean,
  actor: Actor,
  at: string,
): Promise<ProposalRecord> {
  if (!actor.isOwner) {
    throw refuse(
      "owner",
      `only the workspace owner can ${approve ? "approve" : "reject"} evaluator proposals`,
      "ask the human who owns this workspace to review it",
    );
  }
  return store.write(async (tx) => {
    const proposal = await tx.goals.proposal(id);
    if (!proposal) throw notFound(`no evaluator proposal ${id}`, "`cairn eval proposals GOAL` lists them");
    if (proposal.status !== "proposed") {
      throw refuse(
        "proposal",
        `${id} was already ${proposal.status}`,
        "propose a new evaluator to change it",
      );
    }
    const status = approve ? "approved" : "rejected";
    await tx.goals.decideProposal(id, status, actor.id, at);
    await tx.journal.append({
      at,
      actor: actor.id,
      action: `evaluator.${status}`,
      subject: id,
      data: { goal: proposal.goalId },
    });
    return { ...proposal, status, decidedBy: actor.id, decidedAt: at };
  });
}
