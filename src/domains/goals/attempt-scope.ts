import { join, relative, sep } from "node:path";
import { realPathOf } from "../../kernel/inside.js";
import type { Tx } from "../../store/store.js";
import { type Actor, actorOf, ancestorsOf, OWNER } from "../identity/actor.js";
import { outOfLineScope } from "../tasks/scope.js";
import type { WorkspaceConfig } from "../workspace/config.js";

/**
 * A role's scope and out_of_scope say which paths its agents may work on. A claim honours them,
 * but a keep is cairn committing the attempt's changes on the agent's behalf: a builder kept out
 * of `src/vendor/**` had its edit there committed by a keep, whatever its task's traces said. So
 * the attempt's own changes must fall inside the scope of the agent that opened it and of the one
 * deciding it (each with its ancestors' roles); any that does not sends the attempt to review,
 * where only the owner can keep it.
 */
export interface AttemptScope {
  config: WorkspaceConfig;
  /** Who decides the attempt now. */
  decider: Actor;
}

/**
 * Repository-relative paths (as git status names them) made relative to the workspace `dir`. Both
 * by their real paths: git reports its top resolved, and a workspace reached through a link
 * (`CAIRN_DIR=/tmp/link`, which any caller sets) made every path `../real/vendor/x.js`, outside
 * every `out_of_scope` glob, so a builder's edit of vendor/ was kept.
 */
export function workspacePaths(top: string, dir: string, paths: readonly string[]): string[] {
  const [realTop, realDir] = [realPathOf(top), realPathOf(dir)];
  return paths.map((path) => relative(realDir, join(realTop, path)).split(sep).join("/"));
}

async function actorById(tx: Tx, id: string): Promise<Actor> {
  if (id === OWNER.id) return OWNER;
  const agent = await tx.agents.byId(id);
  // An opener no longer known has no role to hold it to; its decider still is held to its own.
  return agent ? actorOf(agent, await ancestorsOf(tx, agent)) : OWNER;
}

/** The changed paths outside the scope of the attempt's opener or of its decider, sorted. */
export async function changesOutOfScope(
  tx: Tx,
  scope: AttemptScope,
  openedBy: string,
  changed: readonly string[],
): Promise<string[]> {
  if (changed.length === 0) return [];
  const outside = new Set<string>();
  for (const actor of [await actorById(tx, openedBy), scope.decider]) {
    for (const path of outOfLineScope({ traces: [...changed] }, scope.config, actor)) outside.add(path);
  }
  return [...outside].sort();
}
