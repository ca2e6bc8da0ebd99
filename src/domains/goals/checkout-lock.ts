import { join } from "node:path";
import { holdWhileAsync } from "../../kernel/file-lock.js";
import { refuse } from "../../kernel/outcome.js";
import { gitDirOf } from "./git.js";

/** How long a keep, accept or revert waits for another one in its checkout: a hook may take a while. */
const WAIT_MS = 60_000;

/**
 * Run `work` (a keep's commit, an accept, a revert's restore) as the only such work in the
 * checkout at `dir`. Each checks the attempt, then changes the checkout, then records: run at
 * once, a revert passed its checks before a keep committed and then deleted the committed files
 * from the work tree, or a keep committed files a revert had just restored, and the attempt was
 * recorded both kept and reverted. The lock lives in the checkout's own git folder (a linked
 * worktree has its own), so attempts in other checkouts never wait on it.
 */
export async function holdingCheckout<T>(
  dir: string,
  attemptId: string,
  work: () => Promise<T>,
  signal?: AbortSignal,
): Promise<T> {
  const gitDir = await gitDirOf(dir);
  // Not a checkout git can read: the work refuses that itself, with its own words.
  if (gitDir === null) return work();
  return holdWhileAsync(join(gitDir, "cairn-attempt.lock"), work, {
    waitMs: WAIT_MS,
    signal,
    busy: () =>
      refuse(
        "attempt",
        `another cairn is keeping, accepting or reverting an attempt in ${attemptId}'s checkout and has not finished in ${WAIT_MS / 1000} s`,
        `try again once it ends (\`cairn attempt show ${attemptId}\` tells what it recorded)`,
      ),
  });
}
