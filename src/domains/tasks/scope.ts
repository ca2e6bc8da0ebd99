import picomatch from "picomatch";
import type { TaskRecord } from "../../store/tasks.js";
import type { Actor } from "../identity/actor.js";
import type { RoleConfig, WorkspaceConfig } from "../workspace/config.js";

const matchers = new Map<string, (path: string) => boolean>();

function matcherFor(globs: readonly string[]): (path: string) => boolean {
  const key = JSON.stringify(globs);
  let matcher = matchers.get(key);
  if (!matcher) {
    matcher = globs.length === 0 ? () => false : picomatch([...globs], { dot: true });
    matchers.set(key, matcher);
  }
  return matcher;
}

export const roleOf = (config: WorkspaceConfig, actor: Actor): RoleConfig | undefined =>
  actor.isOwner ? undefined : config.roles[actor.role];

/**
 * The traces of a task that a role may not touch: any path out_of_scope (which always wins),
 * and, when the role declares a scope, any path outside it. A task without traces is anyone's.
 */
export function outOfScope(task: Pick<TaskRecord, "traces">, role: RoleConfig | undefined): string[] {
  if (!role || task.traces.length === 0) return [];
  const excluded = matcherFor(role.out_of_scope);
  const included = matcherFor(role.scope);
  return task.traces.filter((path) => excluded(path) || (role.scope.length > 0 && !included(path)));
}

/** A role's scope covers a task when it declares one and every trace falls inside it. */
export function covers(role: RoleConfig, task: Pick<TaskRecord, "traces">): boolean {
  return role.scope.length > 0 && task.traces.length > 0 && outOfScope(task, role).length === 0;
}
