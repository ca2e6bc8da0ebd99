import { isUtf8 } from "node:buffer";
import { closeSync, readSync, realpathSync } from "node:fs";
import { extname, join } from "node:path";
import { isInside } from "../../kernel/inside.js";
import { notFound, usageError } from "../../kernel/outcome.js";
import { quoteValue } from "../../kernel/text.js";
import { DIGEST_BYTES_LIMIT, digestSkill } from "./files.js";
import { readFrontMatter } from "./frontmatter.js";
import { checkRelativePath, checkServedPath, openInside } from "./paths.js";
import type { Skill, SkillCatalog } from "./skill.js";

/**
 * The official MCP Skills extension (`io.modelcontextprotocol/skills`): each file of a skill is a
 * resource `skill://<name>/<path>`, and a skill's entry carries its front matter verbatim and
 * every file with its SHA-256 digest and size. Only skills whose front matter names them as
 * their folder are published this way (the extension requires the URI's last segment to equal
 * `name`); the others are still served by the tools.
 */

export interface SkillEntry {
  uri: string;
  frontmatter: Record<string, unknown>;
  resources: { uri: string; digest: string; size: number }[];
}

/**
 * Each segment percent-encoded, as `parseSkillUri` decodes it: a file named `a%20b.md` must not
 * be published under the URI that reads `a b.md` (its digest would name another file's bytes),
 * and a name with a space or `#` must still make one valid URI.
 */
const encodePath = (path: string) => path.split("/").map(encodeURIComponent).join("/");
export const skillUri = (name: string, path = "SKILL.md") =>
  `skill://${encodeURIComponent(name)}/${encodePath(path)}`;

export function publishable(skill: Skill): boolean {
  return skill.label === skill.name;
}

export function skillEntry(skill: Skill): SkillEntry {
  const opened = openInside(skill.realDir, "SKILL.md");
  let text: string;
  try {
    const buffer = Buffer.alloc(Math.min(opened.size, 1024 * 1024));
    readSync(opened.fd, buffer, 0, buffer.length, 0);
    text = buffer.toString("utf8");
  } finally {
    closeSync(opened.fd);
  }
  const frontmatter = { ...readFrontMatter(text).data, name: skill.name, description: skill.description };
  // Published digests may reuse hashes kept by file stamp; running a script never does.
  const digest = digestSkill(skill.realDir, "publish");
  return {
    uri: skillUri(skill.name),
    frontmatter,
    resources: digest.files.map((file) => ({
      uri: skillUri(skill.name, file.path),
      digest: `sha256:${file.sha256}`,
      size: file.size,
    })),
  };
}

/** `skill://<name>/<path>` → its parts; anything else is not one of ours. */
export function parseSkillUri(uri: string): { name: string; path: string } {
  const match = /^skill:\/\/([^/]+)\/(.+)$/.exec(uri);
  if (!match) throw notFound(`${quoteValue(uri)} is not a skill:// resource of this server`);
  try {
    return { name: decodeURIComponent(match[1] as string), path: decodeURIComponent(match[2] as string) };
  } catch {
    throw usageError("the skill:// URI is malformed", "skill URIs look like skill://NAME/SKILL.md");
  }
}

/**
 * The real folder holding a skill file named by URI, when it lies below the skill's own folder:
 * a catalog watches each skill's folder, not the folders under it, so a subscription to such a
 * file adds its folder to what is watched. Nothing for a URI that is not a published skill's
 * file, whose path is refused, or whose folder resolves (through a link) outside the skill.
 */
export function folderOfSkillFile(catalog: SkillCatalog, uri: string): string | undefined {
  try {
    const { name, path } = parseSkillUri(uri);
    const segments = checkRelativePath(path);
    if (segments.length < 2) return undefined;
    const skill = publishedSkill(catalog, name);
    const real = realpathSync.native(join(skill.realDir, ...segments.slice(0, -1)));
    return isInside(skill.realDir, real) ? real : undefined;
  } catch {
    return undefined;
  }
}

export function publishedSkill(catalog: SkillCatalog, name: string): Skill {
  const skill = catalog.skills.find((s) => s.name === name && publishable(s));
  if (!skill) throw notFound(`no published skill named ${JSON.stringify(name.slice(0, 80))}`);
  return skill;
}

const MIME: Record<string, string> = {
  ".md": "text/markdown",
  ".json": "application/json",
  ".py": "text/x-python",
  ".sh": "text/x-shellscript",
};

/** One file's whole content, through the same path checks as skill_read. */
export function readSkillResource(
  skill: Skill,
  path: string,
): { mimeType: string; text?: string; blob?: string } {
  checkServedPath(path);
  const opened = openInside(skill.realDir, path);
  try {
    if (opened.size > DIGEST_BYTES_LIMIT) throw notFound(`${path} is larger than the extension's 16 MiB`);
    const buffer = Buffer.alloc(opened.size);
    readSync(opened.fd, buffer, 0, opened.size, 0);
    // Judged on every byte, not the first few KB as an index sniffs: text with an invalid byte
    // past them would be served with U+FFFD in its place, no longer the bytes its digest names.
    const binary = buffer.includes(0) || !isUtf8(buffer);
    const mimeType =
      MIME[extname(path).toLowerCase()] ?? (binary ? "application/octet-stream" : "text/plain");
    return binary
      ? { mimeType, blob: buffer.toString("base64") }
      : { mimeType, text: buffer.toString("utf8") };
  } finally {
    closeSync(opened.fd);
  }
}
