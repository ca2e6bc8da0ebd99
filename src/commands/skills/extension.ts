import { z } from "zod";
import {
  folderOfSkillFile,
  parseSkillUri,
  publishable,
  publishedSkill,
  readSkillResource,
  skillEntry,
} from "../../domains/skills/extension.js";
import type { SessionContext } from "../context.js";
import { defineCommand } from "../define.js";
import { refuseForModel, skillsOf } from "./commands.js";

/** The folders below skill folders that hold these subscribed `skill://` files (for the watcher). */
export function subscribedSkillFolders(ctx: SessionContext, uris: readonly string[]): string[] {
  const skillUris = uris.filter((uri) => uri.startsWith("skill://"));
  if (skillUris.length === 0) return [];
  const catalog = skillsOf(ctx);
  return [...new Set(skillUris.flatMap((uri) => folderOfSkillFile(catalog, uri) ?? []))];
}

const Entry = z.object({
  uri: z.string(),
  frontmatter: z.record(z.string(), z.unknown()),
  resources: z.array(z.object({ uri: z.string(), digest: z.string(), size: z.number() })),
});

/** The MCP Skills extension's entries: front matter verbatim, every file with its digest. */
export const skillEntries = defineCommand({
  name: "skill entries",
  summary: "Skills as the MCP Skills extension lists them: skill:// URIs, front matter, per-file digests",
  effect: "read",
  input: z.object({ uri: z.string().max(4_096).optional().describe("one skill's SKILL.md URI") }),
  output: z.object({ skills: z.array(Entry) }),
  async handler(input, ctx) {
    const catalog = skillsOf(ctx);
    // A model (through the `cli` tool) is never shown a people-only skill, here as everywhere.
    const forModel = ctx.audience === "model";
    if (input.uri) {
      const skill = publishedSkill(catalog, parseSkillUri(input.uri).name);
      if (forModel && !skill.modelInvocable) refuseForModel(skill);
      return { skills: [skillEntry(skill)] };
    }
    return {
      skills: catalog.skills
        .filter((skill) => publishable(skill) && (!forModel || skill.modelInvocable))
        .map(skillEntry),
    };
  },
});

export const skillResource = defineCommand({
  name: "skill resource",
  summary: "One skill file by its skill:// URI (whole content; binary as base64)",
  effect: "read",
  positional: ["uri"],
  input: z.object({ uri: z.string().max(4_096) }),
  output: z.object({
    uri: z.string(),
    mimeType: z.string(),
    text: z.string().optional(),
    blob: z.string().optional(),
  }),
  async handler(input, ctx) {
    const { name, path } = parseSkillUri(input.uri);
    const skill = publishedSkill(skillsOf(ctx), name);
    if (ctx.audience === "model" && !skill.modelInvocable) refuseForModel(skill);
    return { uri: input.uri, ...readSkillResource(skill, path) };
  },
});
