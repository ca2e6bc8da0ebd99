import { z } from "zod";
import {
  assembleBrief,
  DEFAULT_BRIEF_BUDGET,
  MAX_BRIEF_BUDGET,
} from "../../domains/knowledge/brief/engine.js";
import { gatherBriefInputs, recordBrief } from "../../domains/knowledge/brief/gather.js";
import type { TaskBriefSource } from "../../domains/knowledge/brief/inputs.js";
import { SECTION_ORDER } from "../../domains/knowledge/brief/sections.js";
import { boardBriefSource } from "../../domains/tasks/brief-source.js";
import { refuse } from "../../kernel/outcome.js";
import type { CommandContext } from "../context.js";
import { defineCommand } from "../define.js";
import { verbatim } from "../field-text.js";

const BriefInput = z.object({
  task: z.string().describe("e.g. T-12"),
  // Whole numbers are checked by refine, which the published schema leaves out: the golden schema
  // publishes a `number`, and `.int()` would retype it.
  budget: z
    .number()
    .positive("the budget is a number of tokens above 0")
    .refine(Number.isInteger, "the budget is a whole number of tokens")
    .refine(
      (budget) => budget <= MAX_BRIEF_BUDGET,
      `the budget is at most ${MAX_BRIEF_BUDGET} tokens: a larger result does not reach an MCP client whole; read the rest with note list and recall`,
    )
    .optional()
    .describe(`tokens (chars/4), default ${DEFAULT_BRIEF_BUDGET}`),
});

const BriefOutput = z.object({
  task: z.string(),
  budget: z.number(),
  tokens: z.number(),
  brief: z.string(),
  cuts: z.array(z.string()),
  sections: z.array(
    z.object({ name: z.enum(SECTION_ORDER), items: z.number(), tokens: z.number(), included: z.boolean() }),
  ),
});

async function brief(
  sourceOf: (ctx: CommandContext) => TaskBriefSource,
  input: z.infer<typeof BriefInput>,
  ctx: CommandContext,
): Promise<z.infer<typeof BriefOutput>> {
  const budget = input.budget ?? DEFAULT_BRIEF_BUDGET;
  const inputs = await gatherBriefInputs(ctx.store, sourceOf(ctx), {
    actor: ctx.actor,
    config: ctx.config,
    taskId: input.task,
    now: ctx.now(),
  });
  const result = assembleBrief(inputs, budget);
  if (result.kind === "too_small" && result.needed > MAX_BRIEF_BUDGET) {
    throw refuse(
      "budget",
      `the task section alone needs ${result.needed} tokens, more than the largest brief (${MAX_BRIEF_BUDGET})`,
      `read the task itself with \`cairn task show ${inputs.task.id}\``,
    );
  }
  if (result.kind === "too_small") {
    throw refuse(
      "budget",
      `the task section alone needs ${result.needed} tokens; the budget is ${budget}`,
      `ask again with budget ${result.needed} or more`,
    );
  }
  return {
    task: inputs.task.id,
    budget,
    tokens: result.tokens,
    brief: result.text,
    cuts: result.cuts,
    sections: result.sections,
  };
}

const renderBrief = (out: z.infer<typeof BriefOutput> & { recorded?: { id: string; hash: string } }) =>
  `${verbatim(out.brief)}\n\n(${out.tokens}/${out.budget} tokens${out.recorded ? `; recorded ${out.recorded.id} ${out.recorded.hash}` : ""})`;

/**
 * The brief comes in two commands so that reading it stays a read: `context` (tool `get_context`,
 * read-only) and `brief record`, which also freezes what the agent was told, with a hash.
 * `sourceOf` is the task seam; the board fills it, tests may fill it by hand.
 */
export function briefCommands(sourceOf: (ctx: CommandContext) => TaskBriefSource) {
  const context = defineCommand({
    name: "context",
    summary:
      "The brief for a task within a token budget: task, role, why, decisions, risks, findings, memory",
    effect: "read",
    positional: ["task"],
    input: BriefInput,
    output: BriefOutput,
    handler: (input, ctx) => brief(sourceOf, input, ctx),
    render: renderBrief,
  });
  const record = defineCommand({
    name: "brief record",
    summary:
      "Build a task's brief (like `context`) and freeze it with a hash, so later readers see what was said",
    effect: "write",
    // Recording what an agent was told is not a change to the work; a read-only agent may do it.
    allowReadOnly: true,
    positional: ["task"],
    input: BriefInput,
    output: BriefOutput.extend({ recorded: z.object({ id: z.string(), hash: z.string() }) }),
    async handler(input, ctx) {
      const out = await brief(sourceOf, input, ctx);
      const recorded = await recordBrief(
        ctx.store,
        ctx.actor,
        { taskId: out.task, budget: out.budget, text: out.brief },
        ctx.now(),
      );
      return { ...out, recorded };
    },
    render: renderBrief,
  });
  return { context, record };
}

export const { context: contextCommand, record: briefRecord } = briefCommands((ctx) =>
  boardBriefSource(ctx.config),
);
