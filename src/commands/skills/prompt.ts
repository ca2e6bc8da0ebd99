import { z } from "zod";
import { skillPromptText } from "../../domains/skills/prompt.js";
import { defineCommand } from "../define.js";
import { verbatim } from "../field-text.js";
import { PromptArgs } from "../prompt-args.js";
import { mustFind } from "./commands.js";

/** For the MCP face's prompts: any skill (people-only ones included) as a person picks it. */
export const skillPrompt = defineCommand({
  name: "skill prompt",
  summary: "Render a skill (people-only ones too) with arguments, for a person's prompt menu",
  effect: "read",
  positional: ["name", "args"],
  restOfLine: true,
  input: z.object({
    name: z.string().max(256),
    args: PromptArgs,
  }),
  output: z.object({ name: z.string(), text: z.string() }),
  async handler(input, ctx) {
    const skill = mustFind(ctx, input.name, true);
    return { name: skill.name, text: skillPromptText(skill, ctx.workspace.root, input.args) };
  },
  render: (out) => verbatim(out.text),
});
