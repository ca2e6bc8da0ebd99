import { z } from "zod";
import { usageError } from "../../kernel/outcome.js";
import type { WorkspaceConfig } from "../workspace/config.js";
import { machineConfig } from "../workspace/machine.js";

/**
 * `[skills]` in cairn.toml. `run` is the operator's list of skills whose scripts may run, each
 * bound to the content digest the operator reviewed (`cairn skill digest NAME` prints the line):
 * a skill whose files change needs enabling again. `run` is read from the machine's
 * configuration only (CAIRN_HOME/cairn.toml), which no cairn tool writes and no repository
 * ships, so neither a model nor a cloned project can enable a skill for itself.
 */
export const SkillsConfig = z.object({
  max_tools: z.number().int().min(0).max(1_000).default(40),
  timeout_seconds: z.number().positive().max(3_600).default(120),
  run: z.record(z.string(), z.string()).default({}),
});
export type SkillsConfig = z.infer<typeof SkillsConfig>;

export function skillsConfigOf(config: WorkspaceConfig, source = "cairn.toml"): SkillsConfig {
  const parsed = SkillsConfig.safeParse(config.skills ?? {});
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `skills.${i.path.join(".")}: ${i.message}`).join("; ");
    throw usageError(`${source}: ${issues}`, "fix the [skills] section");
  }
  return parsed.data;
}

/** The skills the machine's operator enabled for running, name → digest. */
export function enabledRuns(env: NodeJS.ProcessEnv): Record<string, string> {
  const machine = machineConfig(env);
  // Without a prototype: a skill folder named `constructor` or `toString` is not enabled by
  // what every object inherits (`enabled[name]` would be a function, `name in enabled` true).
  const enabled = Object.create(null) as Record<string, string>;
  for (const [name, digest] of Object.entries(skillsConfigOf(machine.config, machine.path).run)) {
    enabled[name] = digest;
  }
  return enabled;
}
