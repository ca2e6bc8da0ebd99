import { z } from "zod";
import { loadCatalog } from "../../domains/goals/evaluators/catalog.js";
import { decideProposal, proposeEvaluator } from "../../domains/goals/proposals.js";
import { catalogDirectories, selectionFor } from "../../domains/goals/runs.js";
import type { ProposalRecord } from "../../store/store.js";
import type { CommandContext } from "../context.js";
import { defineCommand } from "../define.js";

const Proposal = z.object({
  id: z.string(),
  goal_id: z.string(),
  proof: z.string(),
  status: z.enum(["proposed", "approved", "rejected"]),
  name: z.string(),
  argv: z.array(z.string()).nullable(),
  proposed_by: z.string(),
  decided_by: z.string().nullable(),
});

function proposalView(proposal: ProposalRecord, owner: boolean): z.infer<typeof Proposal> {
  const hidden = proposal.definition.hidden === true;
  return {
    id: proposal.id,
    goal_id: proposal.goalId,
    proof: proposal.proof,
    status: proposal.status,
    name: String(proposal.definition.name),
    argv: hidden && !owner ? null : (proposal.definition.argv as string[]),
    proposed_by: proposal.proposedBy,
    decided_by: proposal.decidedBy,
  };
}

const dirs = (ctx: CommandContext) => catalogDirectories(ctx.workspace, ctx.env);

export const evalSelect = defineCommand({
  name: "eval select",
  summary: "Match a goal's proofs to the evaluators that apply here; list proofs nobody measures",
  effect: "read",
  positional: ["goal"],
  input: z.object({ goal: z.string().describe("goal id") }),
  output: z.object({
    goal_id: z.string(),
    measured: z.array(
      z.object({
        proof: z.string(),
        evaluators: z.array(
          z.object({
            name: z.string(),
            source: z.string(),
            hidden: z.boolean(),
            argv: z.array(z.string()).nullable(),
          }),
        ),
      }),
    ),
    unmeasured: z.array(z.string()).describe("each needs `eval propose` and the owner's approval"),
    manual: z.array(z.string()).describe("judged by `attempt report`, never measured"),
  }),
  async handler(input, ctx) {
    const selection = await ctx.store.read((tx) =>
      selectionFor(tx, input.goal, ctx.workspace.root, dirs(ctx)),
    );
    const owner = ctx.actor.isOwner;
    return {
      goal_id: input.goal,
      measured: selection.measured.map(({ proof, evaluators }) => ({
        proof: proof.name,
        evaluators: evaluators.map(({ definition, source }) => ({
          name: definition.name,
          source: definition.hidden && !owner ? "(hidden)" : source,
          hidden: definition.hidden,
          argv: definition.hidden && !owner ? null : definition.argv,
        })),
      })),
      unmeasured: selection.unmeasured.map((proof) => proof.name),
      manual: selection.manual.map((proof) => proof.name),
    };
  },
  render: (out) =>
    [
      ...out.measured.map(
        (m) =>
          `${m.proof.padEnd(12)} ${m.evaluators.map((e) => `${e.name}${e.hidden ? " (hidden)" : ""}`).join(", ")}`,
      ),
      ...out.unmeasured.map(
        (p) => `${p.padEnd(12)} UNMEASURED: cairn eval propose ${out.goal_id} --proof ${p} --argv ...`,
      ),
      ...out.manual.map((p) => `${p.padEnd(12)} manual (attempt report)`),
    ].join("\n"),
});

export const evalPropose = defineCommand({
  name: "eval propose",
  summary:
    "Propose an evaluator for a proof nobody measures; it runs only once the workspace owner approves it",
  effect: "write",
  positional: ["goal"],
  input: z.object({
    goal: z.string().describe("goal id"),
    proof: z.string().describe("the contract proof it measures"),
    argv: z.array(z.string()).optional().describe("program and arguments; never run through a shell"),
    template: z.string().optional().describe("start from a pack evaluator, e.g. benchmark-number"),
    name: z.string().optional(),
    read: z
      .enum(["exit_code", "regex", "json"])
      .optional()
      .describe("how to read the result (default exit_code)"),
    pattern: z.string().optional().describe("regex whose first group is the number"),
    json_path: z.string().optional().describe("dotted path into stdout's JSON"),
    direction: z.enum(["higher", "lower"]).optional(),
    threshold: z.number().optional(),
    repeats: z.number().int().optional(),
    timeout_seconds: z.number().optional(),
    hidden: z.boolean().optional().describe("a holdout builders cannot read"),
  }),
  output: z.object({ proposal: Proposal }),
  async handler(input, ctx) {
    const { goal, ...rest } = input;
    const proposal = await proposeEvaluator(ctx.store, goal, rest, dirs(ctx), ctx.actor.id, ctx.now());
    return { proposal: proposalView(proposal, ctx.actor.isOwner) };
  },
  render: (out) =>
    `Proposed ${out.proposal.id} (${out.proposal.name}) for ${out.proposal.proof}; the owner approves it with \`cairn eval approve ${out.proposal.id}\``,
});

export const evalApprove = defineCommand({
  name: "eval approve",
  summary: "Approve an evaluator proposal (workspace owner only)",
  effect: "write",
  positional: ["proposal"],
  input: z.object({ proposal: z.string().describe("proposal id, e.g. EP-1") }),
  output: z.object({ proposal: Proposal }),
  async handler(input, ctx) {
    return {
      proposal: proposalView(
        await decideProposal(ctx.store, input.proposal, true, ctx.actor, ctx.now()),
        true,
      ),
    };
  },
});

export const evalReject = defineCommand({
  name: "eval reject",
  summary: "Reject an evaluator proposal (workspace owner only)",
  effect: "write",
  positional: ["proposal"],
  input: z.object({ proposal: z.string().describe("proposal id") }),
  output: z.object({ proposal: Proposal }),
  async handler(input, ctx) {
    return {
      proposal: proposalView(
        await decideProposal(ctx.store, input.proposal, false, ctx.actor, ctx.now()),
        true,
      ),
    };
  },
});

export const evalProposals = defineCommand({
  name: "eval proposals",
  summary: "A goal's evaluator proposals and their status",
  effect: "read",
  positional: ["goal"],
  input: z.object({ goal: z.string().describe("goal id") }),
  output: z.object({ proposals: z.array(Proposal) }),
  async handler(input, ctx) {
    const proposals = await ctx.store.read((tx) => tx.goals.proposals(input.goal));
    return { proposals: proposals.map((p) => proposalView(p, ctx.actor.isOwner)) };
  },
});

export const evalList = defineCommand({
  name: "eval list",
  summary: "Every evaluator in the built-in, CAIRN_HOME and workspace packs",
  effect: "read",
  input: z.object({}),
  output: z.object({
    evaluators: z.array(
      z.object({
        name: z.string(),
        proof: z.string(),
        source: z.string(),
        read: z.string(),
        hidden: z.boolean(),
        template: z.boolean(),
        argv: z.array(z.string()).nullable(),
      }),
    ),
  }),
  async handler(_input, ctx) {
    const owner = ctx.actor.isOwner;
    return {
      evaluators: [...loadCatalog(dirs(ctx)).values()].map(({ definition, source }) => ({
        name: definition.name,
        proof: definition.proof,
        source: definition.hidden && !owner ? "(hidden)" : source,
        read: definition.read,
        hidden: definition.hidden,
        template: definition.template,
        argv: definition.hidden && !owner ? null : definition.argv,
      })),
    };
  },
  render: (out) =>
    out.evaluators
      .map(
        (e) =>
          `${e.name.padEnd(18)} ${e.proof.padEnd(11)} ${e.read.padEnd(9)} ${e.source}${e.template ? " (template)" : ""}${e.hidden ? " (hidden)" : ""}`,
      )
      .join("\n"),
});
