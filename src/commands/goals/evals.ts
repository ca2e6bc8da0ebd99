import { z } from "zod";
import { readsHoldouts } from "../../domains/goals/authority.js";
import { type DryRun, dryRunText } from "../../domains/goals/dry-run.js";
import { loadCatalog } from "../../domains/goals/evaluators/catalog.js";
import { EvaluatorDefinition, matchOf } from "../../domains/goals/evaluators/definition.js";
import { decideProposal, describeProposal, proposeEvaluator } from "../../domains/goals/proposals.js";
import { catalogDirectories, selectionFor } from "../../domains/goals/runs.js";
import type { ProposalRecord } from "../../store/store.js";
import type { CommandContext } from "../context.js";
import { defineCommand } from "../define.js";
import { shortId } from "../ids.js";

const Proposal = z.object({
  id: z.string(),
  goal_id: z.string(),
  proof: z.string(),
  status: z.enum(["proposed", "approved", "rejected"]),
  name: z.string(),
  argv: z.array(z.string()).nullable(),
  read: z.string(),
  pattern: z.string().nullable(),
  match: z.enum(["last", "only"]).nullable().describe("which regex matches count; null unless read = regex"),
  json_path: z.string().nullable(),
  proposed_by: z.string(),
  decided_by: z.string().nullable(),
});

const DryRunView = z
  .object({
    source: z.enum(["command", "sample_output", "none"]),
    read: z.string(),
    rule: z.string().nullable(),
    exit_code: z.number().nullable(),
    value: z.number().nullable().describe("what the rule extracted; null: nothing"),
    error: z.string().nullable(),
    output_tail: z.string().nullable(),
    note: z.string(),
  })
  .describe("what the pattern or JSON path extracts, before the evaluator may judge anything");

const dryRunView = (dry: DryRun): z.infer<typeof DryRunView> => ({ ...dry });

function proposalView(proposal: ProposalRecord, owner: boolean): z.infer<typeof Proposal> {
  const hidden = proposal.definition.hidden === true;
  return {
    id: proposal.id,
    goal_id: proposal.goalId,
    proof: proposal.proof,
    status: proposal.status,
    name: String(proposal.definition.name),
    argv: hidden && !owner ? null : (proposal.definition.argv as string[]),
    read: String(proposal.definition.read ?? "exit_code"),
    pattern: hidden && !owner ? null : ((proposal.definition.pattern as string | undefined) ?? null),
    match: hidden && !owner ? null : matchOf(proposal.definition),
    json_path: hidden && !owner ? null : ((proposal.definition.json_path as string | undefined) ?? null),
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
  input: z.object({ goal: shortId("G").describe("goal id") }),
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
    const owner = readsHoldouts(ctx);
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
  flagHelp: {
    name: "the evaluator's name (default: the goal's id and the proof's name, g-1-speed)",
    direction: "whether a higher or a lower number is better",
    threshold: "the number a sample must reach to pass",
    repeats: "samples taken per evaluation (1 to 50)",
  },
  input: z.object({
    goal: shortId("G").describe("goal id"),
    proof: z.string().describe("contract proof it measures"),
    argv: z.array(z.string()).optional().describe("program and arguments (no shell)"),
    template: z.string().optional().describe("pack evaluator to start from"),
    name: z.string().optional(),
    read: z.enum(["exit_code", "regex", "json"]).optional().describe("default exit_code"),
    pattern: z.string().optional().describe("regex whose first group is the number"),
    match: z.enum(["last", "only"]).optional().describe("last, or only: all must agree"),
    json_path: z.string().optional().describe("dotted path into stdout's JSON"),
    direction: z.enum(["higher", "lower"]).optional(),
    threshold: z.number().optional(),
    repeats: z.number().int().optional(),
    timeout_seconds: z.number().optional(),
    hidden: z.boolean().optional().describe("a holdout builders cannot read"),
    inputs: z.array(z.string()).optional().describe("paths or globs it reads, hashed at freeze"),
    noisy: z.boolean().optional().describe("timing-like: measured interleaved with the base"),
    min_effect: z.number().optional().describe("smallest regression worth calling, in its units"),
    ignore_exit_code: z.boolean().optional().describe("read the number even when the command fails"),
    sample_output: z.string().max(100_000).optional().describe("output to try the rule on"),
  }),
  output: z.object({ proposal: Proposal, dry_run: DryRunView }),
  // Agents may tail the audit log: a holdout's command, rule and inputs stay out of it.
  auditInput: (input) =>
    input.hidden ? { goal: input.goal, proof: input.proof, name: input.name, hidden: true } : input,
  async handler(input, ctx) {
    const { goal, sample_output, ...rest } = input;
    const proposal = await proposeEvaluator(
      ctx.store,
      goal,
      rest,
      dirs(ctx),
      ctx.actor,
      ctx.now(),
      readsHoldouts(ctx),
    );
    const dry = await dryRunText(EvaluatorDefinition.parse(proposal.definition), sample_output);
    return { proposal: proposalView(proposal, readsHoldouts(ctx)), dry_run: dryRunView(dry) };
  },
  render: (out) =>
    `Proposed ${out.proposal.id} (${out.proposal.name}) for ${out.proposal.proof}; dry run: ${out.dry_run.note}\nthe owner approves it with \`cairn eval approve ${out.proposal.id}\` (which runs it once and shows what it extracts)`,
});

export const evalApprove = defineCommand({
  name: "eval approve",
  supervises: true,
  // A person approves what will judge: a model approving the evaluator it proposed judges itself.
  judgment: true,
  summary:
    "Approve an evaluator proposal (owner or a planning role): runs it once and refuses a rule that extracts nothing",
  effect: "write",
  positional: ["proposal"],
  input: z.object({
    proposal: shortId("EP").describe("proposal id, e.g. EP-1"),
    force: z.boolean().optional().describe("approve even if the dry run extracts no number"),
  }),
  output: z.object({ proposal: Proposal, dry_run: DryRunView.nullable() }),
  personSees: (input, ctx) => describeProposal(ctx.store, input.proposal),
  async handler(input, ctx) {
    const { proposal, dryRun } = await decideProposal(
      ctx.store,
      input.proposal,
      true,
      ctx.actor,
      ctx.config,
      ctx.now(),
      { root: ctx.workspace.root, force: input.force, signal: ctx.signal },
    );
    return { proposal: proposalView(proposal, true), dry_run: dryRun ? dryRunView(dryRun) : null };
  },
  render: (out) =>
    `Approved ${out.proposal.id} (${out.proposal.name})${out.dry_run ? `; dry run: ${out.dry_run.note}` : ""}`,
});

export const evalReject = defineCommand({
  name: "eval reject",
  summary: "Reject an evaluator proposal (the workspace owner or a role granted planning)",
  effect: "write",
  positional: ["proposal"],
  input: z.object({ proposal: shortId("EP").describe("proposal id") }),
  output: z.object({ proposal: Proposal }),
  async handler(input, ctx) {
    const { proposal } = await decideProposal(
      ctx.store,
      input.proposal,
      false,
      ctx.actor,
      ctx.config,
      ctx.now(),
      { root: ctx.workspace.root },
    );
    return { proposal: proposalView(proposal, true) };
  },
});

export const evalProposals = defineCommand({
  name: "eval proposals",
  summary: "A goal's evaluator proposals and their status",
  effect: "read",
  positional: ["goal"],
  input: z.object({ goal: shortId("G").describe("goal id") }),
  output: z.object({ proposals: z.array(Proposal) }),
  async handler(input, ctx) {
    const proposals = await ctx.store.read((tx) => tx.goals.proposals(input.goal));
    return { proposals: proposals.map((p) => proposalView(p, readsHoldouts(ctx))) };
  },
  render: (out) =>
    out.proposals
      .map(
        (p) =>
          `${p.id.padEnd(6)} ${p.status.padEnd(9)} ${p.name} (${p.proof}) ${p.read}${p.pattern ? ` /${p.pattern}/` : ""}${p.match === "only" ? " only" : ""}${p.json_path ? ` ${p.json_path}` : ""}${p.argv ? `  ${p.argv.join(" ")}` : ""}`,
      )
      .join("\n") || "No proposals.",
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
        pattern: z.string().nullable(),
        match: z
          .enum(["last", "only"])
          .nullable()
          .describe("which regex matches count; null unless read = regex"),
        json_path: z.string().nullable(),
        inputs: z.array(z.string()).describe("declared inputs; freeze adds the defaults"),
        hidden: z.boolean(),
        template: z.boolean(),
        argv: z.array(z.string()).nullable(),
      }),
    ),
  }),
  async handler(_input, ctx) {
    const owner = readsHoldouts(ctx);
    return {
      evaluators: [...loadCatalog(dirs(ctx)).values()].map(({ definition, source }) => ({
        name: definition.name,
        proof: definition.proof,
        source: definition.hidden && !owner ? "(hidden)" : source,
        read: definition.read,
        pattern: definition.hidden && !owner ? null : (definition.pattern ?? null),
        match: definition.hidden && !owner ? null : matchOf(definition),
        json_path: definition.hidden && !owner ? null : (definition.json_path ?? null),
        inputs: definition.hidden && !owner ? [] : definition.inputs,
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
          `${e.name.padEnd(18)} ${e.proof.padEnd(11)} ${e.read.padEnd(9)}${e.pattern ? ` /${e.pattern}/` : ""}${e.match === "only" ? " only" : ""}${e.json_path ? ` ${e.json_path}` : ""} ${e.source}${e.template ? " (template)" : ""}${e.hidden ? " (hidden)" : ""}`,
      )
      .join("\n"),
});
