import { gitHead } from "../../kernel/git.js";
import { refuse } from "../../kernel/outcome.js";
import { quoteValue } from "../../kernel/text.js";
import type { Store } from "../../store/store.js";
import { type Actor, sameLine } from "../identity/actor.js";
import { attemptOrThrow } from "./attempts.js";
import { attemptCheckout } from "./checkout-host.js";
import { holdingCheckout } from "./checkout-lock.js";
import { checkoutTop, commitsSince, hashWorkFile } from "./git.js";
import { quotedFew } from "./refusals.js";
import { restorePaths } from "./restore-paths.js";
import { ownChanges } from "./verdict.js";

/**
 * Undo the attempt's own changes in its own checkout, and nothing else. Revert never discards a
 * commit: if HEAD moved since the attempt opened it is refused, naming the commits. Paths that
 * were already dirty when it opened are left alone; if the attempt edited one of them, cairn
 * cannot tell its edit from the earlier one and refuses, naming it. Only the agent that opened
 * the attempt (its parent or child) or the owner may: the work discarded is that agent's, in the
 * checkout it works in.
 */
export async function revertAttempt(
  store: Store,
  fallbackRoot: string,
  attemptId: string,
  actor: Actor,
  at: string,
) {
  const planned = await planRevert(store, fallbackRoot, attemptId, actor);
  return holdingCheckout(planned.dir, attemptId, () => revertHeld(store, fallbackRoot, attemptId, actor, at));
}

/** A revert of an attempt begun: journaled before git restores anything (see revertHeld). */
const REVERT_STARTED = "attempt.revert.start";

/** `revertAttempt` while no other keep, accept or revert works in the checkout: planned afresh. */
async function revertHeld(store: Store, fallbackRoot: string, attemptId: string, actor: Actor, at: string) {
  const { attempt, dir, own, leftAlone } = await planRevert(store, fallbackRoot, attemptId, actor);
  // Said before git touches a file: a revert killed after git restored files and before it was
  // recorded left no word of them, and the next revert, finding them restored already, recorded
  // `discarded: []`. The next one now names what each such revert was discarding.
  const started = await store.write((tx) =>
    tx.journal.append({
      at,
      actor: actor.id,
      action: REVERT_STARTED,
      subject: attemptId,
      data: { checkout: dir, discarding: own },
    }),
  );
  // git restores outside any transaction: a smudge filter (LFS) or a big tree may take minutes,
  // and the workspace's write lock held meanwhile failed every other writer past its busy timeout.
  const kept = await restorePaths(dir, attempt.baseHead as string, own);
  const hidden = kept.ignored;
  const discarded = own.filter((path) => !hidden.includes(path) && !kept.repositories.includes(path));
  return store.write(async (tx) => {
    const current = await attemptOrThrow(tx, attemptId);
    if (current.revertedAt) throw refuse("attempt", `${attemptId} was already reverted`, "nothing to do");
    // Every revert of it started before this one stopped unrecorded: a recorded one marks it reverted.
    const interrupted = (
      await tx.journal.list({ subject: attemptId, action: REVERT_STARTED, beforeId: started, limit: 20 })
    ).map((event) => ({ at: event.at, discarding: (event.data.discarding as string[] | undefined) ?? [] }));
    await tx.goals.markReverted(attemptId, at);
    await tx.journal.append({
      at,
      actor: actor.id,
      action: "attempt.revert",
      subject: attemptId,
      data: {
        base: attempt.baseHead,
        checkout: dir,
        discarded,
        left_alone: [...leftAlone, ...hidden],
        repositories: kept.repositories,
        ...(interrupted.length > 0 ? { interrupted } : {}),
      },
    });
    return {
      attempt: { ...current, revertedAt: at },
      base: attempt.baseHead as string,
      checkout: dir,
      discarded,
      leftAlone: [...leftAlone, ...hidden],
      repositories: kept.repositories,
      commits: [] as string[],
      interrupted,
    };
  });
}

/**
 * Everything revert checks before it touches a file, and what it would discard: the attempt (the
 * caller's to revert, not reverted, not kept, with a base), its checkout (HEAD still at the base)
 * and its own changes (none mixed with changes from before it opened). No write: the person asked
 * to agree to a revert reads this, and the revert plans again when it runs.
 */
export async function planRevert(store: Store, fallbackRoot: string, attemptId: string, actor: Actor) {
  const attempt = await store.read(async (tx) => {
    const attempt = await attemptOrThrow(tx, attemptId);
    if (!actor.isOwner && !(await sameLine(tx, actor, attempt.openedBy)))
      throw refuse(
        "ownership",
        `${attemptId} was opened by ${attempt.openedBy}; only it (or its parent or child) or the owner may revert it`,
        `if the attempt is wrong for the goal, ask ${attempt.openedBy} or the owner to revert it`,
      );
    return attempt;
  });
  if (attempt.revertedAt)
    throw refuse("attempt", `${attemptId} was already reverted at ${attempt.revertedAt}`, "nothing to do");
  if (!attempt.baseHead)
    throw refuse("git", `${attemptId} has no base commit to return to`, "revert by hand");
  if (attempt.verdict === "keep")
    throw refuse(
      "attempt",
      `${attemptId} was kept`,
      "a kept attempt is the new baseline; open a new attempt to change it",
    );
  const dir = attemptCheckout(attempt, fallbackRoot, "revert it");
  const head = await gitHead(dir);
  if (head !== attempt.baseHead) {
    const commits = await commitsSince(dir, attempt.baseHead);
    throw refuse(
      "commits",
      `HEAD moved since ${attemptId} opened at ${attempt.baseHead.slice(0, 12)}: ${quotedFew(commits) || `now at ${head?.slice(0, 12) ?? "no commit"}`}. Revert never discards a commit`,
      "undo those commits yourself if they are the attempt's (`git revert`), or leave them and open a new attempt; cairn will not rewrite history",
    );
  }
  const top = (await checkoutTop(dir)) ?? dir;
  const own = await ownChanges(dir, attempt);
  const mixed = own.filter((path) => attempt.baseChanges.includes(path));
  if (mixed.length > 0) {
    throw refuse(
      "foreign-changes",
      `${attemptId} edited paths that already had changes before it opened (they are not only its own): ${quotedFew(mixed)}`,
      "sort those files out by hand (their earlier edits are not in git), then revert again",
    );
  }
  const leftAlone = attempt.baseChanges.filter(
    (path) => hashWorkFile(top, path) === attempt.baseHashes[path],
  );
  return { attempt, dir, own, leftAlone };
}

/** A planned revert as the person asked to agree reads it: where, back to what, which files go. */
export const revertSummary = ({ attempt, dir, own }: Awaited<ReturnType<typeof planRevert>>) =>
  `${attempt.id}, opened by ${attempt.openedBy}, in ${quoteValue(dir, 300)}: back to ${attempt.baseHead?.slice(0, 12)}, discarding ${own.length === 0 ? "no file" : `${own.length} file${own.length === 1 ? "" : "s"}: ${quotedFew(own)}`}`;
