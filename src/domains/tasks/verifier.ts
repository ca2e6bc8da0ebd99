/**
 * Who checks a task's criteria, where their commands run, and the tree a tick holds for: the
 * caller's checkout, named as git would record it (goals/work-tree-id.ts).
 */
import { operational } from "../../kernel/outcome.js";
import type { ProgressSink } from "../../kernel/progress.js";
import type { CriterionRecord } from "../../store/tasks.js";
import { checkoutFor } from "../goals/git.js";
import { workTreeNamer } from "../goals/work-tree-id.js";
import type { Actor } from "../identity/actor.js";
import type { WorkspaceConfig } from "../workspace/config.js";

export interface Verifier {
  config: WorkspaceConfig;
  actor: Actor;
  /** The workspace root. */
  root: string;
  /**
   * Where the caller works. A linked worktree of the workspace's repository is its own checkout:
   * commands run there, on the work being checked, not on the main checkout's tree.
   */
  cwd?: string;
  now: () => string;
  /** The caller's cancel: the running command is killed and nothing is recorded. */
  signal?: AbortSignal;
  /** Where a running command's progress goes: what runs, its output, a heartbeat while silent. */
  progress?: ProgressSink;
}

/** A cancelled check records nothing: half a run is not evidence. */
export function stopIfCancelled(verifier: Verifier): void {
  if (verifier.signal?.aborted)
    throw operational("cancelled: the command was stopped and nothing was recorded");
}

/** Where a verifier's commands run: the caller's checkout of the workspace (see `Verifier.cwd`). */
const checkouts = new WeakMap<Verifier, Promise<string>>();
export function checkoutOf(verifier: Verifier): Promise<string> {
  let found = checkouts.get(verifier);
  if (!found) {
    found = verifier.cwd ? checkoutFor(verifier.cwd, verifier.root) : Promise.resolve(verifier.root);
    checkouts.set(verifier, found);
  }
  return found;
}

/**
 * How to name the tree a check judges (its content's git tree id, `workTreeNamer`), or null
 * outside a git checkout, where no tree can be named.
 */
export async function treeNamer(verifier: Verifier): Promise<(() => Promise<string>) | null> {
  const name = await workTreeNamer(await checkoutOf(verifier), verifier.signal);
  if (!name) return null;
  return async () => {
    try {
      return await name();
    } catch (error) {
      // Stopped on purpose, it is a cancel, not git's failure.
      stopIfCancelled(verifier);
      throw error;
    }
  };
}

export const hasCommand = (criterion: CriterionRecord) => Boolean(criterion.verify || criterion.shortcut);

/**
 * Whether a ticked criterion's command judged a tree other than `tree`: the work was edited or
 * switched since (a test passing before one more change says nothing of the change). Committing
 * it changes nothing: the id is of the content.
 */
export function checkedOnAnotherTree(criterion: CriterionRecord, tree: string | null): boolean {
  const judged = criterion.evidence?.tree;
  if (!criterion.checked || tree === null || !judged) return false;
  return tree !== judged && tree !== criterion.evidence?.tree_after;
}
