import { z } from "zod";
import { enabledRuns, skillsConfigOf } from "../../domains/skills/config.js";
import { skillRoots } from "../../domains/skills/roots.js";
import { renderSkillView, type SkillView } from "../../domains/skills/view.js";
import { loadConfig } from "../../domains/workspace/config.js";
import { machineConfig } from "../../domains/workspace/machine.js";
import { cutText } from "../../kernel/text.js";
import { MAX_TOOL_NAME as MAX_CATALOG_NAME, toolName, uniqueNames } from "../../kernel/tool-names.js";
import type { CatalogSource, CatalogTool } from "../catalog.js";
import { skillGet, skillRead, skillRun, skillsOf } from "./commands.js";

/** A skill tool's own line, after the skill's description: what calling it does and does not do. */
export const SKILL_TOOL_NOTE = "Loading returns text to follow, not an action done.";

const shapeOf = (command: { input: z.ZodObject }) => command.input;
const identity = (args: Record<string, unknown>) => args;
/** Every skill tool takes no arguments: one shape, so its schemas are derived once, not per skill. */
const NO_INPUT = z.object({});
/**
 * What a model may pass to skill_get: the name. People-only skills are kept from it by the
 * call's audience (every tool call answers a model), not by an argument.
 */
const GET_INPUT = skillGet.input.pick({ name: true });

/**
 * Skills as tools: `skill-<name>` for each skill a model may invoke, up to `[skills] max_tools`
 * (clients cap their total tool count), and the generic tools that reach every skill, the ones
 * past the cap included. Nothing at all when no skill is installed; `skill_run` only once the
 * operator has enabled some skill's scripts.
 */
export const skillsCatalog: CatalogSource = {
  async build(ctx) {
    // Read fresh: a running server sees an edited cairn.toml without a restart.
    const config = skillsConfigOf(loadConfig(ctx.workspace.configPath));
    const catalog = skillsOf(ctx);
    const warnings = [
      ...catalog.shadowed.map((s) => `skill ${s.name} in ${s.dir} is shadowed by ${s.by.dir}`),
      ...catalog.dropped.map((d) => `skill folder ${d.dir} dropped: ${d.reason}`),
    ];
    if (catalog.skills.length === 0) return { tools: [], warnings };
    const invocable = catalog.skills.filter((skill) => skill.modelInvocable);
    const listed = invocable.slice(0, config.max_tools);
    if (invocable.length > listed.length) {
      warnings.push(
        `${invocable.length} skills, ${config.max_tools} as tools ([skills] max_tools); the rest through skill_list and skill_get`,
      );
    }
    const named = uniqueNames(
      listed,
      (skill) => toolName("skill-", skill.name, MAX_CATALOG_NAME),
      (skill) => skill.realDir,
      MAX_CATALOG_NAME,
    );
    const perSkill: CatalogTool[] = named.map(({ item: skill, name }) => ({
      name,
      title: cutText(`Skill: ${skill.name}`, 80),
      description: `${cutText(skill.description, 1_024)} ${SKILL_TOOL_NOTE}`,
      input: NO_INPUT,
      command: "skill get",
      commandInput: () => ({ name: skill.name }),
      text: (output) => renderSkillView(output as unknown as SkillView),
      idempotent: true,
    }));
    const generic: CatalogTool[] = [
      {
        name: "skill_list",
        title: "List skills",
        description:
          "Every skill installed for this project and user that a model may load, with its description and origin, including those without a tool of their own. Load one with skill_get.",
        input: NO_INPUT,
        command: "skill list",
        commandInput: identity,
        idempotent: true,
      },
      {
        name: "skill_get",
        title: "Load a skill",
        description:
          "Load a skill by name (skill_list names them): returns its instructions to follow and the index of its files. Loading does nothing by itself; read files with skill_read.",
        input: GET_INPUT,
        command: "skill get",
        commandInput: identity,
        text: (output) => renderSkillView(output as unknown as SkillView),
        idempotent: true,
      },
      {
        name: "skill_read",
        title: "Read a skill file",
        description:
          "Read one file of a skill by its path in the skill's file index (relative; `..` and absolute paths are refused). Large files come in pages: pass next_offset back as offset. Binary files are described, not shown.",
        input: shapeOf(skillRead),
        command: "skill read",
        commandInput: identity,
        idempotent: true,
      },
    ];
    if (Object.keys(enabledRuns(ctx.env)).length > 0) {
      generic.push({
        name: "skill_run",
        title: "Run a skill script",
        description:
          "Run a file under a skill's scripts/ folder with arguments (argv, no shell; working folder: a copy of the skill, discarded after). Only skills this machine's operator enabled may run; a refusal says so — do not retry it, tell the user.",
        input: shapeOf(skillRun),
        command: "skill run",
        commandInput: identity,
      });
    }
    return { tools: [...perSkill, ...generic], warnings };
  },
  watched(ctx) {
    return [
      ...skillRoots(ctx.workspace, ctx.env).map((root) => root.path),
      ctx.workspace.configPath,
      machineConfig(ctx.env).path,
    ];
  },
};
