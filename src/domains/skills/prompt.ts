import type { SlashCommand } from "../prompts/discover.js";
import { renderCommand } from "../prompts/render.js";
import type { LoadedSkill } from "./skill.js";
import { BODY_CAP_BYTES, renderSkillView, skillView, withSkillVariables } from "./view.js";

/**
 * A skill as a person's prompt (the way people-only skills are served): its view, with the
 * arguments typed after it filled in as Claude Code fills a skill's (`$ARGUMENTS`, `$0`…, or
 * appended when the body has no placeholder), one pass, `!` lines left inert.
 */
export function skillPromptText(skill: LoadedSkill, projectDir: string, args: string): string {
  const asCommand: SlashCommand = {
    name: skill.name,
    path: skill.dir,
    origin: skill.origin,
    dialect: "claude",
    description: skill.description,
    argumentHint: skill.argumentHint,
    argumentNames: [],
    modelInvocable: skill.modelInvocable,
    // The skill's own variables are filled before the arguments go in, in one pass each: text a
    // person typed (`$\{CLAUDE_PROJECT_DIR}`, `$1`) stays as typed.
    body: withSkillVariables(skill.body, skill, projectDir),
    warnings: skill.warnings,
  };
  const body = renderCommand(asCommand, args).text;
  return renderSkillView(skillView({ ...skill, body }, projectDir, BODY_CAP_BYTES, true));
}
