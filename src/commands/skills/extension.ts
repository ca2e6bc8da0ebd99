import { z } from "zod";
import {
  folderOfSkillFile,
  parseSkillUri,
  publishable,
  publishedSkill,
  readSkillResource,
  skillEntry,
  skillUri,
} from "../../domains/skills/extension.js";
import type { CommandContext, SessionContext } from "../context.js";
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

/** The skills a caller is shown as resources: a model (through the `cli` tool too) no people-only one. */
function shownSkills(ctx: CommandContext) {
  const forModel = ctx.audience === "model";
  return skillsOf(ctx).skills.filter((skill) => publishable(skill) && (!forModel || skill.modelInvocable));
}

/** Where a page of `count` listed things ends, and the offset of the next page while more remain. */
const Page = {
  offset: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(0).describe("skills to skip"),
  limit: z.number().int().min(1).max(10_000).optional().describe("at most this many; default all"),
};
const pageOf = <T>(items: readonly T[], offset: number, limit = items.length) => {
  const end = offset + limit;
  return { items: items.slice(offset, end), next: end < items.length ? end : null };
};

/**
 * The MCP Skills extension's entries: front matter verbatim, every file with its digest. Every
 * file of every skill listed is hashed (by stamp, once): a client pages through thousands.
 */
export const skillEntries = defineCommand({
  name: "skill entries",
  summary: "Skills as the MCP Skills extension lists them: skill:// URIs, front matter, per-file digests",
  effect: "read",
  input: z.object({ uri: z.string().max(4_096).optional().describe("one skill's SKILL.md URI"), ...Page }),
  output: z.object({ skills: z.array(Entry), next: z.number().nullable().optional() }),
  async handler(input, ctx) {
    if (input.uri) {
      const skill = publishedSkill(skillsOf(ctx), parseSkillUri(input.uri).name);
      // A model (through the `cli` tool) is never shown a people-only skill, here as everywhere.
      if (ctx.audience === "model" && !skill.modelInvocable) refuseForModel(skill);
      return { skills: [skillEntry(skill)] };
    }
    const page = pageOf(shownSkills(ctx), input.offset, input.limit);
    return { skills: page.items.map(skillEntry), next: page.next };
  },
});

/**
 * Each skill's SKILL.md as `resources/list` lists it, a page at a time: from the catalog alone,
 * no file read or hashed. Listing 12,000 skills by their entries hashed every file of each, for
 * seconds in which the server answered nothing else.
 */
export const skillListing = defineCommand({
  name: "skill listing",
  summary: "Skills' SKILL.md files as resources: skill:// URI, name, description, a page at a time",
  effect: "read",
  input: z.object(Page),
  output: z.object({
    resources: z.array(z.object({ uri: z.string(), name: z.string(), description: z.string() })),
    next: z.number().nullable(),
  }),
  async handler(input, ctx) {
    const page = pageOf(shownSkills(ctx), input.offset, input.limit);
    return {
      resources: page.items.map((skill) => ({
        uri: skillUri(skill.name),
        name: skill.name,
        description: skill.description,
      })),
      next: page.next,
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
