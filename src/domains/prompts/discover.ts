import { isUtf8 } from "node:buffer";
import {
  closeSync,
  constants,
  fstatSync,
  openSync,
  readSync,
  realpathSync,
  type Stats,
  statSync,
} from "node:fs";
import { basename, join } from "node:path";
import { isInside } from "../../kernel/inside.js";
import { isRacy, type Stamp, type StampCache, stampOf } from "../../kernel/stamp-cache.js";
import { StampStore } from "../../kernel/stamp-store.js";
import { childPath, type Entry, listEntries } from "../skills/entries.js";
import {
  asBoolean,
  asText,
  cleanDescription,
  readFrontMatter,
  showPath,
  unshowableName,
} from "../skills/frontmatter.js";
import { cairnHome, commandRoots, type Dialect, type Root } from "../skills/roots.js";
import type { Workspace } from "../workspace/discover.js";

/**
 * Slash commands as users already keep them: one markdown file per command, named by its path
 * below its folder with sub-folders joined by `:` (`git/commit.md` → `git:commit`). Each file
 * keeps the dialect of the folder it came from, which decides how its arguments are filled.
 */

export interface SlashCommand {
  name: string;
  path: string;
  origin: string;
  dialect: Dialect;
  description: string;
  argumentHint?: string;
  /** Claude Code's named arguments (`arguments:`), in order. */
  argumentNames: string[];
  /** `disable-model-invocation: true`: offered to people (as an MCP prompt), never to a model. */
  modelInvocable: boolean;
  body: string;
  warnings: string[];
}

export interface CommandCatalog {
  commands: SlashCommand[];
  shadowed: { name: string; path: string; origin: string; by: string }[];
  dropped: { path: string; origin: string; reason: string }[];
}

const MAX_FILE_BYTES = 256 * 1024;
const MAX_DEPTH = 3;
const SKIPPED = new Set(["node_modules", ".git", "__pycache__", ".venv", "target"]);

/** O_NONBLOCK: a FIFO named like a command cannot stall the walk (it is then no regular file). */
const PROBE = constants.O_RDONLY | constants.O_NONBLOCK;

/** The text of `size` bytes read from `fd`, or why it is not served. */
function readOpen(fd: number, size: number): string {
  if (size > MAX_FILE_BYTES) throw new Error(`over ${MAX_FILE_BYTES} bytes`);
  const buffer = Buffer.allocUnsafe(size);
  const read = readSync(fd, buffer, 0, size, 0);
  const bytes = buffer.subarray(0, read);
  if (!isUtf8(bytes)) throw new TypeError("not UTF-8");
  return bytes.toString("utf8");
}

/** The file's text, `size` bytes as the listing stat'ed it (a file grown since has a new stamp). */
function readText(path: string, size: number): string {
  const fd = openSync(path, PROBE);
  try {
    return readOpen(fd, size);
  } finally {
    closeSync(fd);
  }
}

interface Found {
  name: string;
  path: string;
  /** The file's real path: the same file reached twice (two links) is one command. */
  real: string;
  /** Where the cache keeps what this file parsed to. */
  key: string;
  stamp: Stamp;
  racy: boolean;
  size: number;
  /** The text, or why it cannot be served, when the walk already read it (at `stamp`). */
  text?: string | Error;
}

/**
 * A command file the cache has never seen, in one look: opened, stat'ed from the descriptor
 * and read (four system calls, the stamp the one of the bytes read). One that cannot be opened
 * is stat'ed by path, as a known file is, and its read later reports the fault. Null when it
 * is no regular file (skipped).
 */
function probe(real: string): Pick<Found, "stamp" | "racy" | "size" | "text"> | null {
  const now = Date.now();
  let fd: number;
  try {
    fd = openSync(real, PROBE);
  } catch {
    return stampByPath(real);
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) return null;
    let text: string | Error;
    try {
      text = readOpen(fd, stats.size);
    } catch (error) {
      text = error as Error;
    }
    return { stamp: stampOf(stats), racy: isRacy(stats, now), size: stats.size, text };
  } finally {
    closeSync(fd);
  }
}

/** A file's stamp by path (a known file whose stamp may still match needs no read), null if none. */
function stampByPath(real: string): Pick<Found, "stamp" | "racy" | "size"> | null {
  let stats: Stats;
  try {
    stats = statSync(real);
  } catch {
    return null;
  }
  if (!stats.isFile()) return null;
  return { stamp: stampOf(stats), racy: isRacy(stats, Date.now()), size: stats.size };
}

const LINK_OUT = "a link out of the project: a repository's command files are read only from inside it";
const LINK_TO_OTHER =
  "a link to a file that is no Markdown command file (hidden, or not .md): a command's text is served to agents";
const TOO_DEEP = `a folder deeper than command files are read (${MAX_DEPTH - 1} folders, as in a/b/x.md): its files are not served`;
/**
 * What a link among the command files may lead to: a visible Markdown file. Any writer of the
 * checkout can add a link; `env.md` pointing at the project's `.env` (or `.git/config`, which may
 * hold a token in a remote's URL) served the secrets to every agent as a command's text and
 * description. A shared prompt linked in (`.github/prompts/review.md`) is still read.
 */
const COMMAND_FILE_NAME = /^[^.].*\.md$/i;

/**
 * The command files under one root, sorted, noise skipped. Real paths are known from the
 * root's for everything reached through real folders; only links are resolved one by one.
 */
function walk(
  root: Root,
  cache: StampCache<SlashCommand | string>,
  each: (found: Found) => void,
  /** A link (or the root itself, or a folder too deep) left out, and why. */
  out: (path: string, reason: string) => void,
): void {
  let realWithin: string | undefined;
  const visit = (dir: string, realDir: string, prefix: string[], depth: number) => {
    let entries: Entry[];
    try {
      entries = listEntries(dir);
    } catch {
      return;
    }
    // `git/commit.md` is `git:commit`: the folders' part is the same for every file here.
    const namePrefix = prefix.length > 0 ? `${prefix.join(":")}:` : "";
    for (const { name: entry, kind } of entries) {
      if (entry.startsWith(".") || SKIPPED.has(entry) || entry === "SKILL.md") continue;
      const path = childPath(dir, entry);
      let real = childPath(realDir, entry);
      try {
        if (kind === "link") {
          real = realpathSync.native(path);
          if (realWithin !== undefined && !isInside(realWithin, real)) {
            out(path, LINK_OUT);
            continue;
          }
          if (!statSync(real).isDirectory() && !COMMAND_FILE_NAME.test(basename(real))) {
            out(path, LINK_TO_OTHER);
            continue;
          }
        } else if (kind === "other") continue;
        if (kind === "dir" || (kind === "link" && statSync(real).isDirectory())) {
          if (root.recursive && depth < MAX_DEPTH) visit(path, real, [...prefix, entry], depth + 1);
          // Not left out unsaid: `team/web/react/x.md` would otherwise just be missing from the list.
          else if (root.recursive) out(path, TOO_DEEP);
          continue;
        }
      } catch {
        continue;
      }
      if (!/\.md$/i.test(entry)) continue;
      const name = `${namePrefix}${entry.slice(0, -3)}`;
      const key = `${root.origin}\0${name}\0${path}\0${real}`;
      const look = cache.has(key) ? stampByPath(real) : probe(real);
      // Handed on at once: a text read is parsed and dropped, never kept for the whole walk.
      if (look) each({ name, path, real, key, ...look });
    }
  };
  let realRoot: string;
  try {
    realRoot = realpathSync.native(root.path);
    if (root.within !== undefined) realWithin = realpathSync.native(root.within);
  } catch {
    return;
  }
  if (realWithin !== undefined && !isInside(realWithin, realRoot)) {
    out(root.path, LINK_OUT);
    return;
  }
  visit(root.path, realRoot, [], 1);
}

/** An argument hint as a model reads it in a list: one clean line, like a description. */
function hintOf(value: unknown): string | undefined {
  const text = asText(value);
  return text === undefined ? undefined : cleanDescription(text);
}

function argumentNames(value: unknown): string[] {
  const list = Array.isArray(value) ? value.map(String) : typeof value === "string" ? value.split(/\s+/) : [];
  // Numeric names would collide with positional `$0`.
  return list.filter((name) => /^[A-Za-z_]\w*$/.test(name));
}

/** A body's first non-empty line, headings unmarked, as a description of last resort (100 characters). */
function firstLine(body: string): string | undefined {
  for (const line of body.split("\n")) {
    const text = line.replace(/^#+\s*/, "").trim();
    if (text !== "") return text.slice(0, 100);
  }
  return undefined;
}

function load(found: Found, root: Root): SlashCommand | string {
  const { name, real, path } = found;
  let text: string;
  try {
    if (found.text instanceof Error) throw found.text;
    text = found.text ?? readText(real, found.size);
  } catch (error) {
    return error instanceof TypeError ? "not UTF-8 text" : `cannot be read: ${(error as Error).message}`;
  }
  // Cursor files carry no header; Codex reads only two keys; both parse as lenient YAML here.
  const front = readFrontMatter(text);
  const description = cleanDescription(asText(front.data.description) ?? firstLine(front.body) ?? "");
  return {
    name,
    path,
    origin: root.origin,
    dialect: root.dialect,
    description,
    argumentHint: hintOf(front.data["argument-hint"] ?? front.data.argument_hint),
    argumentNames: root.dialect === "claude" ? argumentNames(front.data.arguments) : [],
    modelInvocable: asBoolean(front.data["disable-model-invocation"]) !== true,
    body: front.body,
    warnings: front.warnings,
  };
}

/** Command files parsed earlier in this process, by path and stamp (kernel/stamp-cache.ts). */
const PARSED = new StampStore<SlashCommand | string>(
  "commands-2",
  (value): value is SlashCommand | string => {
    if (typeof value === "string") return true;
    const v = value as Partial<SlashCommand> | null;
    return (
      typeof v === "object" &&
      v !== null &&
      typeof v.name === "string" &&
      typeof v.path === "string" &&
      typeof v.body === "string" &&
      typeof v.description === "string" &&
      typeof v.modelInvocable === "boolean" &&
      Array.isArray(v.argumentNames) &&
      Array.isArray(v.warnings)
    );
  },
);
/** The machine's copy of what command builds parsed (a repository cannot bring one along). */
const cacheFile = (env: NodeJS.ProcessEnv) => join(cairnHome(env), "cache", "commands.json");

function loadCached(
  cache: StampCache<SlashCommand | string>,
  found: Found,
  root: Root,
): SlashCommand | string {
  const hit = cache.get(found.key, found.stamp);
  if (hit !== undefined) return hit;
  const loaded = load(found, root);
  cache.set(found.key, found.stamp, found.racy, loaded);
  return loaded;
}

export function discoverCommands(workspace: Workspace, env: NodeJS.ProcessEnv): CommandCatalog {
  const catalog: CommandCatalog = { commands: [], shadowed: [], dropped: [] };
  const byName = new Map<string, SlashCommand>();
  const seen = new Set<string>();
  const file = cacheFile(env);
  const cache = PARSED.cache(file);
  for (const root of commandRoots(workspace, env)) {
    walk(
      root,
      cache,
      (found) => {
        const { name, path, real } = found;
        if (unshowableName(name)) {
          catalog.dropped.push({
            path: showPath(path),
            origin: root.origin,
            reason: "its name holds a control or hidden character (shown as [U+XXXX])",
          });
          return;
        }
        if (seen.has(real)) return;
        seen.add(real);
        const winner = byName.get(name.toLowerCase());
        if (winner) {
          catalog.shadowed.push({ name, path, origin: root.origin, by: winner.path });
          return;
        }
        const loaded = loadCached(cache, found, root);
        if (typeof loaded === "string") {
          catalog.dropped.push({ path, origin: root.origin, reason: loaded });
          return;
        }
        byName.set(name.toLowerCase(), loaded);
        catalog.commands.push(loaded);
      },
      (path, reason) => catalog.dropped.push({ path: showPath(path), origin: root.origin, reason }),
    );
  }
  PARSED.save(file);
  return catalog;
}

/** By exact name, or with `/` for `:` (`git/commit`), or with a leading `/`. */
export function findCommand(catalog: CommandCatalog, name: string): SlashCommand | undefined {
  const wanted = name.replace(/^\//, "").replaceAll("/", ":");
  return catalog.commands.find((command) => command.name === wanted);
}
