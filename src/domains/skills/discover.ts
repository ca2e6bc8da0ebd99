import { closeSync, readdirSync, readSync, realpathSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Workspace } from "../workspace/discover.js";
import { asBoolean, asText, cleanDescription, firstParagraph, readFrontMatter } from "./frontmatter.js";
import { openInside } from "./paths.js";
import { type Root, skillRoots } from "./roots.js";

/**
 * Skills as users already keep them (Agent Skills: a folder holding SKILL.md). A skill's
 * identity is its folder name; each root is read one level deep. Faults that do not stop a
 * model from using the skill (a long description, a name unlike its folder, CRLF, a BOM, a
 * broken header) are warnings and the skill is served; a skill is dropped only when its
 * SKILL.md cannot be read or nothing describes it.
 */

export interface Skill {
  name: string;
  /** The folder as found, and its real path (every file check is made against the real one). */
  dir: string;
  realDir: string;
  origin: string;
  description: string;
  /** The front matter's `name`, when it has one (a display label). */
  label?: string;
  body: string;
  bodyBytes: number;
  /** `disable-model-invocation: true`: served to people (prompts), never as a model's tool. */
  modelInvocable: boolean;
  argumentHint?: string;
  warnings: string[];
}

export interface Shadowed {
  name: string;
  dir: string;
  origin: string;
  by: { dir: string; origin: string };
}

export interface Dropped {
  dir: string;
  origin: string;
  reason: string;
}

export interface SkillCatalog {
  skills: Skill[];
  shadowed: Shadowed[];
  dropped: Dropped[];
}

/** Enough of SKILL.md to serve its opening; the rest is paged by skill_read. */
export const READ_BYTES = 1024 * 1024;
/** What a catalog build reads of each SKILL.md: its header and first paragraph. */
const HEAD_BYTES = 64 * 1024;
const SPEC_DESCRIPTION_MAX = 1_024;
const SPEC_NAME = /^[a-z0-9](?:[a-z0-9]|-(?!-))*[a-z0-9]$|^[a-z0-9]$/;

const SKIPPED = new Set(["node_modules", ".git", "__pycache__"]);

function readSkillFile(realDir: string, limit: number): { text: string; bytes: number } {
  const opened = openInside(realDir, "SKILL.md");
  try {
    const length = Math.min(opened.size, limit);
    const buffer = Buffer.alloc(length);
    const read = readSync(opened.fd, buffer, 0, length, 0);
    // A cut multi-byte character at the window's edge is not a decoding fault.
    let end = read;
    if (opened.size > limit) while (end > 0 && ((buffer[end - 1] as number) & 0xc0) === 0x80) end--;
    if (opened.size > limit && end > 0 && (buffer[end - 1] as number) >= 0xc0) end--;
    const text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(buffer.subarray(0, end));
    return { text, bytes: opened.size };
  } finally {
    closeSync(opened.fd);
  }
}

export function loadSkill(
  name: string,
  dir: string,
  realDir: string,
  origin: string,
  limit = HEAD_BYTES,
): Skill | Dropped {
  let file: { text: string; bytes: number };
  try {
    file = readSkillFile(realDir, limit);
  } catch (error) {
    const reason =
      error instanceof TypeError
        ? "SKILL.md is not UTF-8 text"
        : `SKILL.md cannot be read: ${(error as Error).message}`;
    return { dir, origin, reason };
  }
  const front = readFrontMatter(file.text);
  const warnings = [...front.warnings];
  let description = asText(front.data.description);
  if (front.data.description !== undefined && description === undefined) {
    warnings.push("`description` is not text: ignored");
  }
  if (!description?.trim()) {
    description = firstParagraph(front.body);
    if (description) warnings.push("no `description` in the front matter: its first paragraph is used");
  }
  const when = asText(front.data.when_to_use);
  const cleaned = cleanDescription(when ? `${description} ${when}` : description);
  if (!cleaned) return { dir, origin, reason: "nothing describes the skill (no description, empty body)" };
  if (cleaned.length > SPEC_DESCRIPTION_MAX) {
    warnings.push(
      `the description is ${cleaned.length} characters (the spec allows ${SPEC_DESCRIPTION_MAX})`,
    );
  }
  const label = asText(front.data.name);
  if (label !== undefined && label !== name) {
    warnings.push(
      `its front matter names it ${JSON.stringify(label.slice(0, 64))}; its folder name ${name} is used`,
    );
  }
  if (!SPEC_NAME.test(name) || name.length > 64) {
    warnings.push("its folder name is not lowercase letters, digits and single hyphens (≤ 64)");
  }
  return {
    name,
    dir,
    realDir,
    origin,
    description: cleaned,
    label,
    body: front.body,
    bodyBytes: file.bytes,
    modelInvocable: asBoolean(front.data["disable-model-invocation"]) !== true,
    argumentHint: asText(front.data["argument-hint"]),
    warnings,
  };
}

/**
 * Skills parsed earlier in this process, by folder: a long-running server rebuilds its catalog
 * on every list and call, and re-reads only the SKILL.md files whose size or time changed.
 */
const PARSED = new Map<string, { stamp: string; loaded: Skill | Dropped }>();

function loadCached(
  name: string,
  dir: string,
  realDir: string,
  origin: string,
  stamp: string,
): Skill | Dropped {
  const key = `${origin}\0${dir}\0${realDir}`;
  const hit = PARSED.get(key);
  if (hit && hit.stamp === stamp) return hit.loaded;
  const loaded = loadSkill(name, dir, realDir, origin);
  PARSED.set(key, { stamp, loaded });
  return loaded;
}

function scanRoot(root: Root): { name: string; dir: string; realDir: string; stamp: string }[] {
  let names: string[];
  try {
    names = readdirSync(root.path).sort();
  } catch {
    return [];
  }
  const found: { name: string; dir: string; realDir: string; stamp: string }[] = [];
  for (const name of names) {
    if (name.startsWith(".") || SKIPPED.has(name)) continue;
    const dir = join(root.path, name);
    try {
      // stat, not Dirent: a symlinked skill folder is a folder too.
      if (!statSync(dir).isDirectory()) continue;
      const realDir = realpathSync(dir);
      const file = statSync(join(dir, "SKILL.md"));
      found.push({ name, dir, realDir, stamp: `${file.ino}:${file.size}:${file.mtimeMs}:${file.ctimeMs}` });
    } catch {
      // Dangling links and folders without SKILL.md are not skills.
    }
  }
  return found;
}

/** Every skill this workspace sees, in precedence order, with what was shadowed or dropped. */
export function discoverSkills(workspace: Workspace, env: NodeJS.ProcessEnv): SkillCatalog {
  const skills: Skill[] = [];
  const shadowed: Shadowed[] = [];
  const dropped: Dropped[] = [];
  const byKey = new Map<string, Skill>();
  const seenReal = new Set<string>();
  for (const root of skillRoots(workspace, env)) {
    for (const { name, dir, realDir, stamp } of scanRoot(root)) {
      // One folder reached through two links is one skill.
      if (seenReal.has(realDir)) continue;
      seenReal.add(realDir);
      // Names differing only in case collide (case-insensitive file systems, look-alike risk).
      const key = name.toLowerCase();
      const winner = byKey.get(key);
      if (winner) {
        shadowed.push({ name, dir, origin: root.origin, by: { dir: winner.dir, origin: winner.origin } });
        continue;
      }
      const loaded = loadCached(name, dir, realDir, root.origin, stamp);
      if ("reason" in loaded) {
        dropped.push(loaded);
        continue;
      }
      byKey.set(key, loaded);
      skills.push(loaded);
    }
  }
  return { skills, shadowed, dropped };
}

/** A skill by its exact folder name, its body read in full (up to `READ_BYTES`). */
export function findSkill(catalog: SkillCatalog, name: string): Skill | undefined {
  const found = catalog.skills.find((skill) => skill.name === name);
  if (!found || found.bodyBytes <= HEAD_BYTES) return found;
  const full = loadSkill(found.name, found.dir, found.realDir, found.origin, READ_BYTES);
  return "reason" in full ? undefined : full;
}
