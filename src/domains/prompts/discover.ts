import { closeSync, openSync, readdirSync, readSync, realpathSync, statSync } from "node:fs";
import { join } from "node:path";
import { asBoolean, asText, cleanDescription, readFrontMatter } from "../skills/frontmatter.js";
import { commandRoots, type Dialect, type Root } from "../skills/roots.js";
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

function readText(path: string): string {
  const fd = openSync(path, "r");
  try {
    const size = statSync(path).size;
    if (size > MAX_FILE_BYTES) throw new Error(`over ${MAX_FILE_BYTES} bytes`);
    const buffer = Buffer.alloc(size);
    readSync(fd, buffer, 0, size, 0);
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(buffer);
  } finally {
    closeSync(fd);
  }
}

function walk(root: Root): { name: string; path: string; stamp: string }[] {
  const found: { name: string; path: string; stamp: string }[] = [];
  const visit = (dir: string, prefix: string[], depth: number) => {
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch {
      return;
    }
    for (const entry of names) {
      if (entry.startsWith(".") || SKIPPED.has(entry) || entry === "SKILL.md") continue;
      const full = join(dir, entry);
      let stats: ReturnType<typeof statSync>;
      try {
        stats = statSync(full);
      } catch {
        continue;
      }
      if (stats.isDirectory()) {
        if (root.recursive && depth < MAX_DEPTH) visit(full, [...prefix, entry], depth + 1);
        continue;
      }
      if (!stats.isFile() || !/\.md$/i.test(entry)) continue;
      found.push({
        name: [...prefix, entry.replace(/\.md$/i, "")].join(":"),
        path: full,
        stamp: `${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}`,
      });
    }
  };
  visit(root.path, [], 1);
  return found;
}

function argumentNames(value: unknown): string[] {
  const list = Array.isArray(value) ? value.map(String) : typeof value === "string" ? value.split(/\s+/) : [];
  // Numeric names would collide with positional `$0`.
  return list.filter((name) => /^[A-Za-z_]\w*$/.test(name));
}

function load(name: string, path: string, root: Root): SlashCommand | string {
  let text: string;
  try {
    text = readText(path);
  } catch (error) {
    return error instanceof TypeError ? "not UTF-8 text" : `cannot be read: ${(error as Error).message}`;
  }
  // Cursor files carry no header; Codex reads only two keys; both parse as lenient YAML here.
  const front = readFrontMatter(text);
  const firstLine = front.body
    .split("\n")
    .map((line) => line.replace(/^#+\s*/, "").trim())
    .find((line) => line !== "");
  const description = cleanDescription(asText(front.data.description) ?? firstLine?.slice(0, 100) ?? "");
  return {
    name,
    path,
    origin: root.origin,
    dialect: root.dialect,
    description,
    argumentHint: asText(front.data["argument-hint"] ?? front.data.argument_hint),
    argumentNames: root.dialect === "claude" ? argumentNames(front.data.arguments) : [],
    modelInvocable: asBoolean(front.data["disable-model-invocation"]) !== true,
    body: front.body,
    warnings: front.warnings,
  };
}

/** Command files parsed earlier in this process, by path and stamp (see skills/discover.ts). */
const PARSED = new Map<string, { stamp: string; loaded: SlashCommand | string }>();

function loadCached(name: string, path: string, root: Root, stamp: string): SlashCommand | string {
  const key = `${root.origin}\0${name}\0${path}`;
  const hit = PARSED.get(key);
  if (hit && hit.stamp === stamp) return hit.loaded;
  const loaded = load(name, path, root);
  PARSED.set(key, { stamp, loaded });
  return loaded;
}

export function discoverCommands(workspace: Workspace, env: NodeJS.ProcessEnv): CommandCatalog {
  const catalog: CommandCatalog = { commands: [], shadowed: [], dropped: [] };
  const byName = new Map<string, SlashCommand>();
  const seen = new Set<string>();
  for (const root of commandRoots(workspace, env)) {
    for (const { name, path, stamp } of walk(root)) {
      let real = path;
      try {
        real = realpathSync(path);
      } catch {
        continue;
      }
      if (seen.has(real)) continue;
      seen.add(real);
      const winner = byName.get(name.toLowerCase());
      if (winner) {
        catalog.shadowed.push({ name, path, origin: root.origin, by: winner.path });
        continue;
      }
      const loaded = loadCached(name, path, root, stamp);
      if (typeof loaded === "string") {
        catalog.dropped.push({ path, origin: root.origin, reason: loaded });
        continue;
      }
      byName.set(name.toLowerCase(), loaded);
      catalog.commands.push(loaded);
    }
  }
  return catalog;
}

/** By exact name, or with `/` for `:` (`git/commit`), or with a leading `/`. */
export function findCommand(catalog: CommandCatalog, name: string): SlashCommand | undefined {
  const wanted = name.replace(/^\//, "").replaceAll("/", ":");
  return catalog.commands.find((command) => command.name === wanted);
}
