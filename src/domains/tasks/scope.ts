import { statSync } from "node:fs";
import { join, posix } from "node:path";
import picomatch from "picomatch";
import { globMatcher, type PathMatcher } from "../../kernel/glob.js";
import type { TaskRecord } from "../../store/tasks.js";
import { type Actor, lineageOf } from "../identity/actor.js";
import type { RoleConfig, WorkspaceConfig } from "../workspace/config.js";

const matchers = new Map<string, PathMatcher>();

/**
 * `out_of_scope` matches whatever the letters' case (on a case-insensitive disk `src/Vendor` is
 * `src/vendor`), and what it names holds what is inside it, as a .gitignore line does: `secret`
 * and `secret/` keep `secret/key.pem` out, where as globs they named only the folder itself and
 * guarded nothing. It only ever keeps more out. `scope` matches exactly: read that way, it would
 * let more in.
 */
function matcherFor(globs: readonly string[], excluding = false): PathMatcher {
  const key = JSON.stringify([excluding, globs]);
  let matcher = matchers.get(key);
  if (!matcher) {
    const named = excluding ? globs.flatMap((glob) => [glob, `${glob.replace(/\/+$/, "")}/**`]) : globs;
    matcher = globMatcher(named, { nocase: excluding });
    matchers.set(key, matcher);
  }
  return matcher;
}

/** The path a trace names: `./src//vendor/../vendor/x.ts` is `src/vendor/x.ts`. */
function pathOf(trace: string): string {
  return posix.normalize(trace).replace(/^(\.\/)+/, "");
}

/**
 * The globs of a role's `scope` that name a folder of the workspace as it is (`src`, `src/`): they
 * match that folder alone, not what is inside it, so a role scoped to them may claim nothing there.
 */
export function foldersNamedExactly(root: string, globs: readonly string[]): string[] {
  return globs.filter((glob) => {
    if (picomatch.scan(glob).isGlob) return false;
    try {
      return statSync(join(root, pathOf(glob))).isDirectory();
    } catch {
      return false;
    }
  });
}

/** The longest file name a filesystem holds (NAME_MAX, in bytes: at least as many characters). */
const NAME_MAX = 255;

/** A trace with a longer name in it names no file, so it is in no role's scope. */
const namesNoFile = (path: string) => path.split("/").some((name) => name.length > NAME_MAX);

/**
 * The roles a caller acts under: its own and every ancestor's. A child never exceeds its parent,
 * so each rule (scope, WIP cap, shortcuts) must pass for every one of them.
 */
export function rolesOf(config: WorkspaceConfig, actor: Actor): { name: string; role: RoleConfig }[] {
  if (actor.isOwner) return [];
  const seen = new Set<string>();
  const found: { name: string; role: RoleConfig }[] = [];
  for (const member of lineageOf(actor)) {
    const role = config.roles[member.role];
    if (!role || seen.has(member.role)) continue;
    seen.add(member.role);
    found.push({ name: member.role, role });
  }
  return found;
}

/** The traces outside any of the caller's roles (its own and its ancestors'). */
export function outOfLineScope(
  task: Pick<TaskRecord, "traces">,
  config: WorkspaceConfig,
  actor: Actor,
): string[] {
  const outside = new Set<string>();
  for (const { role } of rolesOf(config, actor)) for (const path of outOfScope(task, role)) outside.add(path);
  return [...outside];
}

/**
 * The members of the caller's line (itself, then each ancestor, nearest first) whose role sets a
 * WIP cap. A member's cap bounds the active tasks of its whole line below it: a child never
 * exceeds its parent, so minting children must not widen what the parent may hold.
 */
export function wipCapsOf(
  config: WorkspaceConfig,
  actor: Actor,
): { id: string; role: string; cap: number }[] {
  if (actor.isOwner) return [];
  const found: { id: string; role: string; cap: number }[] = [];
  for (const member of lineageOf(actor)) {
    const cap = config.roles[member.role]?.wip_cap;
    if (cap !== undefined) found.push({ id: member.id, role: member.role, cap });
  }
  return found;
}

/**
 * The traces of a task that a role may not touch: any path out_of_scope (which always wins),
 * and, when the role declares a scope, any path outside it. A task without traces is anyone's.
 */
export function outOfScope(task: Pick<TaskRecord, "traces">, role: RoleConfig | undefined): string[] {
  if (!role || task.traces.length === 0) return [];
  const excluded = matcherFor(role.out_of_scope, true);
  const included = matcherFor(role.scope);
  return task.traces.filter((trace) => {
    const path = pathOf(trace);
    return namesNoFile(path) || excluded(path) || (role.scope.length > 0 && !included(path));
  });
}

/** A role's scope covers a task when it declares one and every trace falls inside it. */
export function covers(role: RoleConfig, task: Pick<TaskRecord, "traces">): boolean {
  return role.scope.length > 0 && task.traces.length > 0 && outOfScope(task, role).length === 0;
}
