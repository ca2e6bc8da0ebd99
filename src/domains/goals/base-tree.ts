import { existsSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { os } from "../../kernel/builtins.js";
import { removeLeftoversOfDeadProcesses } from "../../kernel/leftovers.js";
import { addWorktree, checkoutTop, placeInCheckout, pruneWorktrees, removeWorktree } from "./git.js";
import { treeFingerprint } from "./measured-tree.js";
import { type ChangeTimes, treeChangeTimes, treeFiles } from "./tree-times.js";

/**
 * The attempt's base, checked out beside it for the length of one evaluation, so noisy
 * evaluators measure base and attempt interleaved under the same load instead of against a
 * number remembered from another day. Created on first use, always removed.
 */
export interface BaseTree {
  /** The directory to run an evaluator in, as `dir` is in the attempt's checkout; null without a base. */
  cwd(): Promise<string | null>;
  /**
   * Whether the base's checkout still holds just its commit, as it was made. The attempt's code
   * runs between the base's samples, as the same user, and can find the base (`git worktree
   * list`) and rewrite it: a base made slower hides a regression.
   */
  intact(): Promise<boolean>;
  /**
   * The change times of the base's files, taken before a sample: `moved()` after it tells whether
   * any was written meanwhile. `intact()` around a sample misses a file made worse while the
   * evaluator reads it and put back before it ends; its change time cannot be put back.
   */
  changeTimes(): ChangeTimes;
  dispose(): Promise<void>;
}

/** The start of a base checkout's folder name in the temporary folder; its creator's pid follows. */
const BASE_PREFIX = "cairn-base-";

/** Dependency folders git ignores but evaluators need: shared read-only with the base tree. */
const SHARED_FOLDERS = ["node_modules", ".venv", "venv"];

export function baseTree(dir: string, baseHead: string | null): BaseTree {
  let made: { path: string; cwd: string; pristine: string; files: string[] } | null = null;
  const fingerprint = (path: string) => treeFingerprint(path, Promise.resolve(path));
  let forget = () => {};
  return {
    async cwd() {
      if (!baseHead) return null;
      if (made) return made.cwd;
      const top = (await checkoutTop(dir)) ?? dir;
      // Named with this process's pid: an evaluation killed outright (kill -9) cannot dispose
      // of its base, a whole checkout, so the next one removes every base whose process is
      // gone, and git forgets those worktrees.
      if (removeLeftoversOfDeadProcesses(os().tmpdir(), BASE_PREFIX, /^-/) > 0) await pruneWorktrees(dir);
      const path = mkdtempSync(join(os().tmpdir(), `${BASE_PREFIX}${process.pid}-`));
      // Stopped mid-evaluation (SIGTERM, SIGHUP), the process exits without disposing: the copy
      // goes anyway, and git forgets the worktree at its next prune.
      const removeOnExit = () => rmSync(path, { recursive: true, force: true });
      process.once("exit", removeOnExit);
      forget = () => process.removeListener("exit", removeOnExit);
      await addWorktree(dir, path, baseHead);
      // Its files as checked out, before the shared folders are linked in: the base's own.
      const files = await treeFiles(path, new Set());
      for (const folder of SHARED_FOLDERS) {
        const source = join(top, folder);
        if (existsSync(source) && !existsSync(join(path, folder))) symlinkSync(source, join(path, folder));
      }
      // By real paths (placeInCheckout): a workspace reached through a link (`CAIRN_DIR`) put
      // the base's samples in `../link` beside the base's copy, a folder anyone can make.
      const place = placeInCheckout(top, dir);
      made = { path, cwd: join(path, place), pristine: await fingerprint(path), files };
      return made.cwd;
    },
    async intact() {
      return made === null || (await fingerprint(made.path)) === made.pristine;
    },
    changeTimes() {
      return made ? treeChangeTimes(made.path, made.files) : { moved: () => false };
    },
    async dispose() {
      if (made) await removeWorktree(dir, made.path);
      made = null;
      forget();
    },
  };
}
