import { lstatSync, realpathSync, statSync } from "node:fs";
import { join } from "node:path";
import { isInside } from "../../kernel/inside.js";
import { isRacy, type Stamp, type StampCache, stampOf } from "../../kernel/stamp-cache.js";
import { StampStore } from "../../kernel/stamp-store.js";
import type { Workspace } from "../workspace/discover.js";
import { childPath, type Entry, listEntries } from "./entries.js";
import {
  asBoolean,
  asText,
  cleanDescription,
  firstParagraph,
  readFrontMatter,
  showPath,
  unshowableName,
} from "./frontmatter.js";
import { cairnHome, type Root, skillRoots } from "./roots.js";
import type { Dropped, LoadedSkill, Shadowed, Skill, SkillCatalog } from "./skill.js";
import {
  NotUtf8Error,
  probeSkillFile,
  readSkillText,
  type SkillProbe,
  type SkillText,
} from "./skill-file.js";

/**
 * Skills as users already keep them (Agent Skills: a folder holding SKILL.md). A skill's
 * identity is its folder name; each root is read one level deep. Faults that do not stop a
 * model from using the skill (a long description, a name unlike its folder, CRLF, a BOM, a
 * broken header) are warnings and the skill is served; a skill is dropped only when its
 * SKILL.md cannot be read or nothing describes it.
 */

/** Enough of SKILL.md to serve its opening; the rest is paged by skill_read. */
export const READ_BYTES = 1024 * 1024;
/**
 * What a catalog build reads of each SKILL.md: enough for the front matter of nearly every
 * real skill. A header not closed within it, or a skill with no description (whose first
 * paragraph stands in), is read again up to `HEAD_MAX_BYTES`, the largest header read at all.
 */
const HEAD_BYTES = 4 * 1024;
const HEAD_MAX_BYTES = 64 * 1024;
const SPEC_DESCRIPTION_MAX = 1_024;
const SPEC_NAME = /^[a-z0-9](?:[a-z0-9]|-(?!-))*[a-z0-9]$|^[a-z0-9]$/;

const SKIPPED = new Set(["node_modules", ".git", "__pycache__"]);

type Expected = { ino: number; dev: number };

function describe(
  name: string,
  dir: string,
  realDir: string,
  origin: string,
  file: SkillText,
): { skill?: Skill; body: string; reason?: string; headShort: boolean } {
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
  const cut = file.text.length < file.bytes;
  // The head ended inside the header, or the first paragraph standing in may run past it.
  const headShort = cut && (!front.present || !asText(front.data.description)?.trim());
  const when = asText(front.data.when_to_use);
  const cleaned = cleanDescription(when ? `${description} ${when}` : description);
  if (!cleaned) {
    return {
      reason: "nothing describes the skill (no description, empty body)",
      body: front.body,
      headShort,
    };
  }
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
  const hint = asText(front.data["argument-hint"]);
  // Built without its body: a catalog keeps none, and only loading adds it back.
  const skill: Skill = {
    name,
    dir,
    realDir,
    origin,
    description: cleaned,
    label,
    bodyBytes: file.bytes,
    modelInvocable: asBoolean(front.data["disable-model-invocation"]) !== true,
    argumentHint: hint === undefined ? undefined : cleanDescription(hint),
    warnings,
  };
  return { skill, body: front.body, headShort };
}

/** A skill described with the body its head held, or why it was dropped. */
type Described = { skill: Skill; body: string } | Dropped;

function unreadable(dir: string, origin: string, error: unknown): Dropped {
  const reason =
    error instanceof NotUtf8Error
      ? "SKILL.md is not UTF-8 text"
      : `SKILL.md cannot be read: ${(error as Error).message}`;
  return { dir, origin, reason };
}

/**
 * One skill described from `head`, read `limit` bytes long; a head that fell short of the front
 * matter (or of the first paragraph standing in for a description) is read again up to
 * `HEAD_MAX_BYTES`, when it was shorter than that.
 */
function describeHead(
  found: Pick<Found, "name" | "dir" | "realDir" | "expected">,
  origin: string,
  head: SkillText,
  limit: number,
): Described {
  const { name, dir, realDir, expected } = found;
  let described: ReturnType<typeof describe>;
  try {
    described = describe(name, dir, realDir, origin, head);
    if (described.headShort && limit < HEAD_MAX_BYTES) {
      described = describe(name, dir, realDir, origin, readSkillText(realDir, HEAD_MAX_BYTES, expected));
    }
  } catch (error) {
    return unreadable(dir, origin, error);
  }
  const { skill, body, reason } = described;
  return skill ? { skill, body } : { dir, origin, reason: reason ?? "unreadable" };
}

/** SKILL.md read up to `limit` bytes and described. */
function readAndDescribe(
  found: Pick<Found, "name" | "dir" | "realDir" | "expected">,
  origin: string,
  limit: number,
): Described {
  let head: SkillText;
  try {
    head = readSkillText(found.realDir, limit, found.expected);
  } catch (error) {
    return unreadable(found.dir, origin, error);
  }
  return describeHead(found, origin, head, limit);
}

/** One skill read from its SKILL.md, with its body: the head (for a catalog) or up to `limit` bytes. */
export function loadSkill(
  name: string,
  dir: string,
  realDir: string,
  origin: string,
  limit = HEAD_BYTES,
  expected?: Expected,
): LoadedSkill | Dropped {
  const described = readAndDescribe({ name, dir, realDir, expected }, origin, limit);
  return "reason" in described ? described : { ...described.skill, body: described.body };
}

/**
 * Skills parsed earlier in this process, by folder and SKILL.md stamp: a long-running server
 * rebuilds its catalog on every list and call, and re-reads only what changed (kernel/stamp-cache.ts
 * says what a stamp guarantees). A catalog entry keeps no body: loading a skill reads it anew.
 */
const PARSED = new StampStore<Skill | Dropped>("skills-2", (value): value is Skill | Dropped => {
  const v = value as Partial<Skill & Dropped> | null;
  if (typeof v !== "object" || v === null || typeof v.dir !== "string" || typeof v.origin !== "string")
    return false;
  if (typeof v.reason === "string") return true;
  return (
    typeof v.name === "string" &&
    typeof v.realDir === "string" &&
    typeof v.description === "string" &&
    typeof v.bodyBytes === "number" &&
    typeof v.modelInvocable === "boolean" &&
    Array.isArray(v.warnings)
  );
});
/** The machine's copy of what skill builds parsed (a repository cannot bring one along). */
const cacheFile = (env: NodeJS.ProcessEnv) => join(cairnHome(env), "cache", "skills.json");

interface Found {
  name: string;
  dir: string;
  realDir: string;
  /** Where the cache keeps what this folder's SKILL.md parsed to. */
  key: string;
  /** SKILL.md's stamp (link and target, when it is a link), taken before it is read. */
  stamp: Stamp;
  racy: boolean;
  /** The regular file the listing saw, which the read must open (none for a link). */
  expected?: Expected;
  /** The head, when the scan already read it (at `stamp`, from the same descriptor). */
  head?: SkillProbe["head"];
}

function loadCached(cache: StampCache<Skill | Dropped>, found: Found, origin: string): Skill | Dropped {
  const hit = cache.get(found.key, found.stamp);
  if (hit) return hit;
  const { head } = found;
  let described: Described;
  if (!head) described = readAndDescribe(found, origin, HEAD_BYTES);
  else if ("error" in head) described = unreadable(found.dir, origin, head.error);
  else described = describeHead(found, origin, head, HEAD_BYTES);
  // A catalog entry keeps no body.
  const kept = "reason" in described ? described : described.skill;
  cache.set(found.key, found.stamp, found.racy, kept);
  return kept;
}

/** SKILL.md's stamp; for a link, the link's own joins its target's, so retargeting it is a change. */
function skillFileStamp(realDir: string): Pick<Found, "stamp" | "racy" | "expected"> {
  const now = Date.now();
  const path = childPath(realDir, "SKILL.md");
  const own = lstatSync(path);
  if (!own.isSymbolicLink()) {
    return { stamp: stampOf(own), racy: isRacy(own, now), expected: own.isFile() ? own : undefined };
  }
  const target = statSync(path);
  return {
    stamp: `${stampOf(own)}>${stampOf(target)}`,
    racy: isRacy(own, now) || isRacy(target, now),
  };
}

/**
 * SKILL.md's stamp, and its head when it must be read anyway. A file the cache has never seen
 * is opened, stat'ed and read in one look (`probeSkillFile`); one it has seen is only lstat'ed,
 * since a matching stamp needs no read at all. Whatever the probe declines (a link, a folder,
 * no file) takes the general path. Throws when the folder holds no SKILL.md.
 */
function lookAt(realDir: string, known: boolean): Pick<Found, "stamp" | "racy" | "expected" | "head"> {
  const now = Date.now();
  const probe = known ? undefined : probeSkillFile(realDir, HEAD_BYTES);
  if (!probe) return skillFileStamp(realDir);
  const { stats, head } = probe;
  return { stamp: stampOf(stats), racy: isRacy(stats, now), expected: stats, head };
}

/**
 * Each skill folder of a root that holds a SKILL.md, in name order, handed to `each` as soon
 * as it is looked at: a head read is parsed and dropped at once, never kept for the whole root.
 */
function scanRoot(
  root: Root,
  cache: StampCache<Skill | Dropped>,
  dropped: Dropped[],
  each: (found: Found) => void,
): void {
  const linkedOut = (dir: string) =>
    dropped.push({
      dir: showPath(dir),
      origin: root.origin,
      reason: "a link out of the project: a repository's skills are read only from inside it",
    });
  let entries: Entry[];
  let realRoot: string;
  let realWithin: string | undefined;
  try {
    realRoot = realpathSync.native(root.path);
    if (root.within !== undefined) realWithin = realpathSync.native(root.within);
    entries = listEntries(root.path);
  } catch {
    return;
  }
  // As command files are: a linked skill folder would serve whatever lies beside the SKILL.md it
  // leads to (a private repository's `.env`) to skill_read, past what keeps agents to the project.
  if (realWithin !== undefined && !isInside(realWithin, realRoot)) {
    linkedOut(root.path);
    return;
  }
  for (const { name, kind } of entries) {
    if (name.startsWith(".") || SKIPPED.has(name)) continue;
    const dir = childPath(root.path, name);
    let found: Found;
    try {
      let realDir: string;
      if (kind === "dir") realDir = childPath(realRoot, name);
      else if (kind === "link" && statSync(dir).isDirectory()) realDir = realpathSync.native(dir);
      else continue; // a file, or a link to one: not a skill
      if (realWithin !== undefined && !isInside(realWithin, realDir)) {
        linkedOut(dir);
        continue;
      }
      const key = `${root.origin}\0${dir}\0${realDir}`;
      found = { name, dir, realDir, key, ...lookAt(realDir, cache.has(key)) };
    } catch {
      // Dangling links and folders without SKILL.md are not skills.
      continue;
    }
    each(found);
  }
}

/** Every skill this workspace sees, in precedence order, with what was shadowed or dropped. */
export function discoverSkills(workspace: Workspace, env: NodeJS.ProcessEnv): SkillCatalog {
  const skills: Skill[] = [];
  const shadowed: Shadowed[] = [];
  const dropped: Dropped[] = [];
  const byKey = new Map<string, Skill>();
  const seenReal = new Set<string>();
  const file = cacheFile(env);
  const cache = PARSED.cache(file);
  for (const root of skillRoots(workspace, env)) {
    scanRoot(root, cache, dropped, (found) => {
      const { name, dir, realDir } = found;
      // The real folder too: a link with a plain name may lead to `evil\nSYSTEM: …/`, and the
      // loaded text names the folder it reads from.
      if (unshowableName(name) || unshowableName(realDir)) {
        dropped.push({
          dir: showPath(unshowableName(name) ? dir : `${dir} -> ${realDir}`),
          origin: root.origin,
          reason: "its folder name holds a control or hidden character (shown as [U+XXXX])",
        });
        return;
      }
      // One folder reached through two links is one skill.
      if (seenReal.has(realDir)) return;
      seenReal.add(realDir);
      // Names differing only in case collide (case-insensitive file systems, look-alike risk).
      const key = name.toLowerCase();
      const winner = byKey.get(key);
      if (winner) {
        shadowed.push({ name, dir, origin: root.origin, by: { dir: winner.dir, origin: winner.origin } });
        return;
      }
      const loaded = loadCached(cache, found, root.origin);
      if ("reason" in loaded) {
        dropped.push(loaded);
        return;
      }
      byKey.set(key, loaded);
      skills.push(loaded);
    });
  }
  PARSED.save(file);
  return { skills, shadowed, dropped };
}

/** A skill by its exact folder name, its body read afresh and in full (up to `READ_BYTES`). */
export function findSkill(catalog: SkillCatalog, name: string): LoadedSkill | undefined {
  const found = catalog.skills.find((skill) => skill.name === name);
  if (!found) return undefined;
  const full = loadSkill(found.name, found.dir, found.realDir, found.origin, READ_BYTES);
  return "reason" in full ? undefined : full;
}
