/**
 * Who checks a task's criteria, where their commands run, and the tree a tick holds for: the
 * caller's checkout, named as git would record it (goals/work-tree-id.ts).
 */
import { operational } from "../../kernel/outcome.js";
import type { ProgressSink } from "../../kernel/progress.js";
import type { CriterionRecord } from "../../store/tasks.js";
import { checkoutFor } from "../goals/git.js";
import { treeOnlyGrew, workTreeNamer } from "../goals/work-tree-id.js";
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
 * Why a ticked criterion's command does not hold for `tree`, the tree the checkout holds now (null
 * outside a git work tree), or null when it does. A test passing before one more change says
 * nothing of the change; committing the work changes nothing, the id being of the content. A
 * tick is not let off for a tree that was not named: moving `.git` aside while checking, or while
 * finishing, would otherwise switch the rule off.
 */
export function staleTick(criterion: CriterionRecord, tree: string | null): string | null {
  if (!criterion.checked || !hasCommand(criterion)) return null;
  const judged = criterion.evidence?.tree;
  if (tree === null) return judged ? "was checked in a git checkout, and the checkout is not one now" : null;
  if (!judged) return "was checked where no tree was named (outside git, or by an older cairn)";
  // A tree its check only added files to holds it alone: the files may have been added (a
  // conftest.py, a module found before the one there) before the command read them, and taken
  // away after it.
  const after = criterion.evidence?.tree_after;
  if (tree === (after ?? judged)) return null;
  return "was checked on another tree (the checkout changed since: an edit, yours or another agent's, or a switch)";
}

/**
 * Why each ticked criterion no longer holds for the checkout as it is now, by number: what a
 * `finish` would refuse, shown where the tick is read (`task show`) rather than as met. Git is
 * asked only when a tick was earned by a command. Where git cannot name the tree now, each such
 * tick says it cannot be told.
 */
export async function ticksNotHolding(
  verifier: Verifier,
  criteria: readonly CriterionRecord[],
): Promise<Map<number, string>> {
  const ticked = criteria.filter((criterion) => criterion.checked && hasCommand(criterion));
  if (ticked.length === 0) return new Map();
  let tree: string | null;
  try {
    const nameTree = await treeNamer(verifier);
    tree = nameTree ? await nameTree() : null;
  } catch (error) {
    const why = `cannot be told to hold for the checkout now: git could not name its tree (${(error as Error).message.split("\n")[0]})`;
    return new Map(ticked.map((criterion) => [criterion.n, why]));
  }
  return new Map(
    ticked.flatMap((criterion) => {
      const why = staleTick(criterion, tree);
      return why ? [[criterion.n, why] as const] : [];
    }),
  );
}

/**
 * Did a check's commands only add files to the checkout (a build's output), between the tree
 * before they ran and the one they left? A file that was there before them and changed or went
 * while they ran may be an edit made meanwhile, by the agent being checked among others.
 */
export async function checkOnlyAdded(verifier: Verifier, before: string, after: string): Promise<boolean> {
  return treeOnlyGrew(await checkoutOf(verifier), before, after, verifier.signal);
}

/**
 * The tree the definition of done's shortcuts passed, run on `tree`, the tree being finished: that
 * tree, or the one they left when all they did was add files (a build's output, which may have been
 * added before they read it: a module found first, a conftest.py, taken away after the finish), or
 * why they passed neither. A file there before them that changed or went while they ran may be an
 * edit made meanwhile: the tests gutted for the run and put back after it, or left, on a checkout
 * no tick was earned on.
 */
export async function doneRanOn(
  verifier: Verifier,
  nameTree: () => Promise<string>,
  tree: string,
): Promise<{ tree: string } | { failure: string }> {
  let left: string;
  try {
    left = await nameTree();
  } catch (error) {
    stopIfCancelled(verifier);
    return { failure: `the tree its shortcuts left cannot be named: ${(error as Error).message}` };
  }
  if (left === tree || (await checkOnlyAdded(verifier, tree, left))) return { tree: left };
  return {
    failure:
      "the checkout changed while its shortcuts ran (a file there before them was edited or removed): finish again on a checkout left as it is",
  };
}
