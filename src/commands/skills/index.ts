import type { CommandDomain } from "../domain.js";
import { skillsCatalog } from "./catalog.js";
import { SKILL_COMMANDS } from "./commands.js";
import { skillDoctor } from "./doctor.js";
import { skillEntries, skillListing, skillResource } from "./extension.js";
import { skillPrompt } from "./prompt.js";

/** Agent Skills users already keep, served to every client: load, read, and (when enabled) run. */
export const skillsDomain: CommandDomain = {
  name: "skills",
  commands: [...SKILL_COMMANDS, skillEntries, skillListing, skillResource, skillDoctor, skillPrompt],
  tools: [],
  groups: { skill: "Skills found in .cairn/skills, .claude/skills and your home folders" },
  catalog: skillsCatalog,
};
