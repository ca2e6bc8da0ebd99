import { type Dirent, existsSync, lstatSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { parse as parseToml } from "smol-toml";
import { os, sha256Hex } from "../../kernel/builtins.js";
import { readRegularFileStated } from "../../kernel/regular-file.js";
import { isRacy, StampCache, stampOf } from "../../kernel/stamp-cache.js";
import { inCodeUnitOrder } from "../../kernel/text.js";
import { homeWorkspace, type Workspace } from "../workspace/discover.js";
import { type Manifest, manifestSchemas, type Schedule, unknownKeys } from "./manifest-schema.js";

export const MANIFEST_FILE = "agent.toml";

/** One schedule with its policy resolved: the schedule's override, then `[defaults]`, then built-in. */
export interface ScheduleSpec {
  id: string;
  kind: "cron" | "interval" | "expression" | "trigger";
  /** A croner pattern (cron and expression schedules). */
  pattern?: string;
  intervalMinutes?: number;
  args: string[];
  maxRetries: number;
  backoffMinutes: number[];
  staleAfterMinutes: number;
  timezone?: string;
}

export interface LoadedAgent {
  name: string;
  dir: string;
  path: string;
  /** sha256 of the manifest's bytes: every run records which manifest it ran. */
  hash: string;
  manifest: Manifest;
  /** Scheduled windows; a trigger-only agent has none (it runs as schedule `trigger`). */
  schedules: ScheduleSpec[];
  unknownKeys: string[];
  foreignSections: string[];
}

export interface ManifestProblem {
  file: string;
  reason: string;
}

export interface Discovery {
  agents: LoadedAgent[];
  problems: ManifestProblem[];
  /** The same `agent.name` found twice: the first (`kept`) wins. */
  duplicates: { name: string; kept: string; dropped: string }[];
  roots: string[];
}

/** Where manifests are read from, in order: the workspace, `CAIRN_HOME`, then dotagent's folder. */
export function manifestRoots(workspace: Workspace, env: NodeJS.ProcessEnv): string[] {
  const dotagentHome = env.DOTAGENT_HOME || join(env.HOME || os().homedir(), ".config", "dotagent");
  const roots = [
    join(workspace.stateDir, "agents"),
    join(homeWorkspace(env).stateDir, "agents"),
    join(dotagentHome, "agents"),
  ];
  return [...new Set(roots.map((root) => resolve(root)))];
}

const croner = (schedule: Schedule): string | undefined => {
  if (schedule.type === "cron") {
    const hours = [...new Set(schedule.hours)].sort((a, b) => a - b).join(",");
    const days = [...new Set(schedule.weekdays)].sort((a, b) => a - b).join(",");
    return `${schedule.minute} ${hours} * * ${days}`;
  }
  return schedule.type === "expression" ? schedule.expression.trim() : undefined;
};

function resolveSchedules(manifest: Manifest): ScheduleSpec[] {
  return manifest.schedules.map((schedule) => ({
    id: schedule.id,
    kind: schedule.type,
    pattern: croner(schedule),
    intervalMinutes: schedule.type === "interval" ? schedule.interval_minutes : undefined,
    args: schedule.args,
    maxRetries: schedule.max_retries ?? manifest.defaults.max_retries,
    backoffMinutes: schedule.retry_backoff_minutes ?? manifest.defaults.retry_backoff_minutes,
    staleAfterMinutes: schedule.stale_after_minutes ?? manifest.defaults.stale_after_minutes,
    timezone: schedule.timezone,
  }));
}

/** The schedule a triggered run borrows args from: the named one, else the first, else `trigger`. */
export function triggerSchedule(agent: LoadedAgent, id?: string): ScheduleSpec | undefined {
  if (id !== undefined) return agent.schedules.find((schedule) => schedule.id === id);
  return (
    agent.schedules[0] ?? {
      id: "trigger",
      kind: "trigger",
      args: [],
      maxRetries: 1,
      backoffMinutes: [],
      staleAfterMinutes: agent.manifest.defaults.stale_after_minutes,
    }
  );
}

/** Parse one manifest's text; a problem names what is wrong and where. */
export function parseManifest(text: string, path: string): LoadedAgent | ManifestProblem {
  let raw: Record<string, unknown>;
  try {
    raw = parseToml(text) as Record<string, unknown>;
  } catch (error) {
    return { file: path, reason: `not valid TOML: ${(error as Error).message.split("\n")[0]}` };
  }
  const parsed = manifestSchemas().Manifest.safeParse(raw);
  if (!parsed.success) {
    const reason = parsed.error.issues
      .slice(0, 5)
      .map((issue) => `${issue.path.length ? issue.path.join(".") : "(file)"}: ${issue.message}`)
      .join("; ");
    return { file: path, reason };
  }
  const manifest = parsed.data;
  const ids = new Set<string>();
  for (const schedule of manifest.schedules) {
    if (ids.has(schedule.id)) return { file: path, reason: `duplicate schedule id: ${schedule.id}` };
    ids.add(schedule.id);
  }
  const keys = unknownKeys(raw);
  const dir = resolve(path, "..");
  return {
    name: manifest.agent.name,
    dir,
    path,
    hash: sha256Hex(text),
    manifest,
    schedules: resolveSchedules(manifest),
    unknownKeys: keys.unknown,
    foreignSections: keys.foreign,
  };
}

/**
 * Parsed manifests by path, kept while the file's stamp holds (kernel/stamp-cache.ts says what a
 * stamp guarantees): the catalog is rebuilt on every `tools/list` and call, and re-parsing 500
 * unchanged files each time is most of its cost.
 */
const PARSED = new StampCache<LoadedAgent | ManifestProblem>();

export function loadManifest(path: string): LoadedAgent | ManifestProblem {
  return manifestAt(path) ?? { file: path, reason: "cannot read: ENOENT" };
}

/**
 * `loadManifest`, or undefined when nothing at all is at `path`. A manifest linked to nowhere is
 * a broken one, reported by name; a folder with no manifest is no agent. Told apart only when the
 * file cannot be read: discovery stats each manifest once, not once to find it and again to read
 * it. A manifest never parsed is not stated at all: its stamp is the stat of the file read.
 */
function manifestAt(path: string): LoadedAgent | ManifestProblem | undefined {
  let text: string;
  let stamp: string;
  let racy: boolean;
  try {
    if (PARSED.has(path)) {
      const cached = PARSED.get(path, stampOf(statSync(path)));
      if (cached) return cached;
    }
    const read = readRegularFileStated(path);
    text = read.text;
    stamp = stampOf(read.stats);
    racy = isRacy(read.stats, Date.now());
  } catch (error) {
    try {
      lstatSync(path);
    } catch {
      return undefined;
    }
    const code = (error as NodeJS.ErrnoException).code;
    return {
      file: path,
      reason: `cannot read: ${code === "ENOTREG" ? "not a regular file" : (code ?? (error as Error).message)}`,
    };
  }
  let result: LoadedAgent | ManifestProblem;
  try {
    result = parseManifest(text, path);
  } catch (error) {
    // Whatever a file's content trips in the parser is that file's problem, named as such: thrown,
    // it failed every catalog read, and with it the daemon's passes and every MCP call.
    result = { file: path, reason: `cairn could not read it: ${(error as Error).message}` };
  }
  PARSED.set(path, stamp, racy, result);
  return result;
}

/** Whether `path` leads to a folder, following links. */
function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

export const isProblem = (value: LoadedAgent | ManifestProblem): value is ManifestProblem =>
  "reason" in value;

/**
 * Every agent directory under the roots, in a fixed order (roots in order, directories sorted by
 * name) so "the first found wins" means the same thing on every machine and every call.
 */
export function discoverAgents(roots: readonly string[]): Discovery {
  const agents: LoadedAgent[] = [];
  const problems: ManifestProblem[] = [];
  const duplicates: Discovery["duplicates"] = [];
  const byName = new Map<string, LoadedAgent>();
  for (const root of roots) {
    if (!existsSync(root)) continue;
    let entries: Dirent[];
    try {
      entries = readdirSync(root, { withFileTypes: true }).sort((a, b) => inCodeUnitOrder(a.name, b.name));
    } catch {
      continue;
    }
    for (const entry of entries) {
      if (!entry.isDirectory() && !(entry.isSymbolicLink() && isFolder(join(root, entry.name)))) continue;
      const loaded = manifestAt(join(root, entry.name, MANIFEST_FILE));
      if (!loaded) continue;
      if (isProblem(loaded)) {
        problems.push(loaded);
        continue;
      }
      const earlier = byName.get(loaded.name);
      if (earlier) {
        duplicates.push({ name: loaded.name, kept: earlier.path, dropped: loaded.path });
        continue;
      }
      byName.set(loaded.name, loaded);
      agents.push(loaded);
    }
  }
  return { agents, problems, duplicates, roots: [...roots] };
}
