import { z } from "zod";
import { DEFAULT_BRIEF_BUDGET } from "../domains/knowledge/brief/engine.js";
import { buildBrief, recordBrief } from "../domains/knowledge/brief/gather.js";
import type { TaskBriefSource } from "../domains/knowledge/brief/inputs.js";
import { SECTION_ORDER } from "../domains/knowledge/brief/sections.js";
import { refuse } from "../kernel/outcome.js";
import type { CommandContext } from "./context.js";
import { defineCommand } from "./define.js";

/**
 * `context TASK [--budget N] [--record]`, built around the task seam. It is not in the command
 * table yet: only the task board can fill a `TaskBriefSource`. Wiring it is one line in
 * registry.ts — `contextCommand((ctx) => <the board's source over ctx.store>)` — plus the
 * `get_context` tool spec.
 */
export function contextCommand(sourceOf: (ctx: CommandContext) => TaskBriefSource) {
  return defineCommand({
    name: "context",
    summary:
      "The brief for a task within a token budget: task, role, why, decisions, risks, findings, memory",
    // Recording a brief appends what an agent was told; a read-only agent may still do that.
    effect: "write",
    allowReadOnly: true,
    positional: ["task"],
    input: z.object({
      task: z.string().describe("task id"),
      budget: z
        .number()
        .int()
        .positive("the budget is a number of tokens above 0")
        .optional()
        .describe(`tokens (chars/4), default ${DEFAULT_BRIEF_BUDGET}`),
      record: z.boolean().optional().describe("freeze this brief with a hash"),
    }),
    output: z.object({
      task: z.string(),
      budget: z.number(),
      tokens: z.number(),
      brief: z.string(),
      cuts: z.array(z.string()),
      sections: z.array(
        z.object({
          name: z.enum(SECTION_ORDER),
          items: z.number(),
          tokens: z.number(),
          included: z.boolean(),
        }),
      ),
      recorded: z.object({ id: z.string(), hash: z.string() }).nullable(),
    }),
    async handler(input, ctx) {
      const budget = input.budget ?? DEFAULT_BRIEF_BUDGET;
      const result = await buildBrief(ctx.store, sourceOf(ctx), {
        actor: ctx.actor,
        config: ctx.config,
        taskId: input.task,
        now: ctx.now(),
        budget,
      });
      if (result.kind === "too_small") {
        throw refuse(
          "budget",
          `the task section alone needs ${result.needed} tokens; the budget is ${budget}`,
          `ask again with budget ${result.needed} or more`,
        );
      }
      const recorded = input.record
        ? await recordBrief(
            ctx.store,
            ctx.actor,
            { taskId: input.task, budget, text: result.text },
            ctx.now(),
          )
        : null;
      return {
        task: input.task,
        budget,
        tokens: result.tokens,
        brief: result.text,
        cuts: result.cuts,
        sections: result.sections,
        recorded,
      };
    },
    render: (out) =>
      `${out.brief}\n\n(${out.tokens}/${out.budget} tokens${out.recorded ? `; recorded ${out.recorded.id} ${out.recorded.hash}` : ""})`,
  });
}
