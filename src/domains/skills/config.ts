import { z } from "zod";
import { usageError } from "../../kernel/outcome.js";
import type { WorkspaceConfig } from "../workspace/config.js";

/**
 * `[skills]` in cairn.toml. `run` is the operator's list of skills whose scripts may run, each
 * bound to the content digest the operator reviewed (`cairn skill digest NAME` prints the line):
 * a skill whose files change needs enabling again. It lives in the configuration file, which no
 * cairn tool writes, so no model can enable a skill for itself.
 */
export const SkillsConfig = z.object({
  max_tools: z.number().int().min(0).max(1_000).default(40),
  timeout_seconds: z.number().positive().max(3_600).default(120),
  run: z.record(z.string(), z.string()).default({}),
});
export type SkillsConfig = z.infer<typeof SkillsConfig>;

export function skillsConfigOf(config: WorkspaceConfig): SkillsConfig {
  const parsed = SkillsConfig.safeParse(config.skills ?? {});
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `skills.${i.path.join(".")}: ${i.message}`).join("; ");
    throw usageError(`cairn.toml: ${issues}`, "fix the [skills] section");
  }
  return parsed.data;
}
