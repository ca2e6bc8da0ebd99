import { gitHead } from "../../kernel/git.js";
import { conflict, RefusedError, refuse, usageError } from "../../kernel/outcome.js";
import { quoteValue } from "../../kernel/text.js";
import type { AttemptRecord, AttemptResolution, Store, Tx } from "../../store/store.js";
import { type Actor, requireActiveIn } from "../identity/actor.js";
import { type AttemptScope, changesOutOfScope, workspacePaths } from "./attempt-scope.js";
import { attemptOrThrow, latestRunOf, refuseIfSettled, requiredProofs } from "./attempts.js";
import { requireOwner } from "./authority.js";
import { attemptCheckout } from "./checkout-host.js";
import { holdingCheckout } from "./checkout-lock.js";
import { type Decision, decide } from "./decide.js";
import { changedPaths, checkoutPlaces, checkoutTop, commitMadeSince, hashWorkFile, topOf } from "./git.js";
import { dependents, inputDrift } from "./inputs.js";
import { commitMeasured } from "./measured-commit.js";
import { type MeasuredTree, measureTree, refuseHiddenEdits } from "./measured-tree.js";
import { runOrThrow } from "./runs.js";

export interface KeepOptions {
  /** Run the repository's commit hooks on keep (default: skipped, and said so). */
  runHooks?: boolean;
  /** The caller's cancel: a commit (its hooks) under way is stopped, and nothing is kept. */
  signal?: AbortSignal;
}

export interface DecideOptions extends KeepOptions {
  /** Hold the attempt's changes to the roles of its opener and decider (attempt-scope.ts). */
  scope?: AttemptScope;
  /**
   * Who decides: still active before the keep commits and again as the verdict is recorded, so a
   * caller retired while a commit hook ran records nothing.
   */
  caller?: Actor;
}

/**
 * The attempt's own changes: paths changed now that were clean when it opened, plus paths that
 * were already dirty and whose content it changed.
 */
export async function ownChanges(dir: string, attempt: AttemptRecord): Promise<string[]> {
  const top = (await checkoutTop(dir)) ?? dir;
  return (await changedPaths(dir)).filter(
    (path) => !attempt.baseChanges.includes(path) || hashWorkFile(top, path) !== attempt.baseHashes[path],
  );
}

/** The message of the commit a keep makes. */
const keepMessage = (attempt: AttemptRecord) =>
  `cairn: keep ${attempt.id}${attempt.milestoneId ? ` (${attempt.milestoneId})` : ""}`;

/** The journal event a keep appends just before it has git commit: what a later keep recovers by. */
const KEEP_COMMITTING = "attempt.keep_committing";

/**
 * A kept attempt's changes become a commit, so the next attempt opens on a clean base it can be
 * reverted to. Only the attempt's own paths that were clean at open are committed: edits that
 * predate it stay as they were. Nothing changed: no commit, and none is claimed.
 */
async function commitKept(
  store: Store,
  dir: string,
  attempt: AttemptRecord,
  by: { actor: string; at: string },
  options: KeepOptions,
  measured: MeasuredTree,
) {
  if (!attempt.baseHead) return { keptCommit: null, hooks: null };
  const message = keepMessage(attempt);
  // The paths as measured, not as the checkout lists them now: a file written since is no part of it.
  const own = [...measured.entries.keys()].filter((path) => !attempt.baseChanges.includes(path));
  if (own.length === 0) {
    // A decide of this attempt that committed and then ended before recording its keep (killed,
    // or its evidence changed meanwhile) left that commit on the base: it is this keep's, not a
    // commit no attempt accounts for. Whether its hooks ran is not known. Only a commit a keep
    // said it was making: the message alone is anyone's to write (`git commit -m "cairn: keep
    // AT-3"` in the checkout), and a builder's own commit would have passed for cairn's keep.
    const said = await store.read((tx) =>
      tx.journal.list({ action: KEEP_COMMITTING, subject: attempt.id, limit: 100 }),
    );
    if (!said.some((event) => event.data.base === attempt.baseHead)) return { keptCommit: null, hooks: null };
    const earlier = await commitMadeSince(dir, attempt.baseHead, message);
    return { keptCommit: earlier, hooks: null };
  }
  await store.write((tx) =>
    tx.journal.append({
      at: by.at,
      actor: by.actor,
      action: KEEP_COMMITTING,
      subject: attempt.id,
      data: { base: attempt.baseHead, paths: own.length },
    }),
  );
  const sha = await commitMeasured(
    dir,
    attempt.id,
    measured,
    own,
    message,
    options.runHooks === true,
    options.signal,
  );
  return { keptCommit: sha, hooks: options.runHooks ? ("ran" as const) : ("skipped" as const) };
}

/**
 * Score the attempt from its evidence and record keep | revert | review; on keep, commit the
 * attempt's changes in its own checkout (`fallbackRoot` serves attempts opened before checkouts
 * were recorded).
 */
export async function decideAttempt(
  store: Store,
  fallbackRoot: string,
  attemptId: string,
  actor: string,
  at: string,
  options: DecideOptions = {},
): Promise<{ attempt: AttemptRecord; decision: Decision }> {
  const found = await store.read((tx) => attemptOrThrow(tx, attemptId));
  refuseIfSettled(found);
  const dir = attemptCheckout(found, fallbackRoot, "decide it");
  return holdingCheckout(
    dir,
    attemptId,
    () => decideHeld(store, dir, attemptId, actor, at, options),
    options.signal,
  );
}

/** `decideAttempt` while no other keep, accept or revert works in the checkout: read afresh. */
async function decideHeld(
  store: Store,
  dir: string,
  attemptId: string,
  actor: string,
  at: string,
  options: DecideOptions,
): Promise<{ attempt: AttemptRecord; decision: Decision }> {
  const first = await store.read((tx) => attemptOrThrow(tx, attemptId));
  refuseIfSettled(first);
  const run = await store.read((tx) => runOrThrow(tx, first.runId));
  // Three reads of the checkout, none waiting on another, all of it where git finds it (asked once).
  const places = checkoutPlaces(dir);
  const top = topOf(places);
  const [, driftNow, measured, changed] = await Promise.all([
    refuseHiddenEdits(dir, attemptId, "a decision", places),
    inputDrift(run.manifest, dir, top),
    measureTree(dir, top),
    options.scope ? ownChanges(dir, first) : Promise.resolve([]),
  ]);
  const tree = measured.fingerprint;
  const changedHere = workspacePaths((await top) ?? dir, dir, changed);
  // A keep of this attempt stopped between its commit and its verdict moved HEAD: said as such.
  const unrecorded = measured.head !== first.baseHead ? await unrecordedKeep(store, dir, first) : null;
  const judge = async (tx: Tx) => {
    if (options.caller) await requireActiveIn(tx, options.caller);
    const attempt = await attemptOrThrow(tx, attemptId);
    refuseIfSettled(attempt);
    const taken = await tx.goals.samples(attemptId);
    const reports = await tx.goals.scoreReports(attemptId);
    if (taken.length === 0 && reports.length === 0) {
      throw refuse(
        "evidence",
        `${attemptId} has no evaluations and no reports: there is nothing to decide on`,
        `run \`cairn attempt eval ${attemptId}\` first`,
      );
    }
    // Keep commits the checkout as it is now: only samples taken of this very tree can judge it.
    const samples = taken.filter((sample) => (sample.tree ?? tree) === tree);
    if (taken.length > 0 && samples.length === 0)
      throw unrecorded ? keptUnrecorded(attemptId, unrecorded) : changedSinceEval(attemptId);
    const touched = [...new Set([...attempt.inputDrift, ...driftNow])].sort();
    const decision = decide({
      attemptId,
      proofs: run.contract.proofs,
      required: await requiredProofs(tx, run.contract.proofs, attempt),
      manifest: run.manifest,
      samples,
      reports,
      touchedInputs: dependents(run.manifest, touched),
      inputsApproved: attempt.inputsApprovedBy !== null,
      run: { id: run.id, latest: await latestRunOf(tx, run) },
      outOfScope: options.scope
        ? await changesOutOfScope(tx, options.scope, attempt.openedBy, changedHere)
        : [],
    });
    decision.tree = tree;
    return { attempt, decision };
  };
  // git commits outside any transaction: a commit (its hooks above all) may take minutes, and
  // the workspace's write lock held meanwhile failed every other writer past its busy timeout.
  const planned = await store.read(judge);
  const kept =
    planned.decision.verdict === "keep"
      ? await commitKept(store, dir, planned.attempt, { actor, at }, options, measured)
      : null;
  return store.write(async (tx) => {
    const { attempt, decision } = await judge(tx).catch((error: unknown) => {
      throw kept?.keptCommit ? saidCommitted(error, kept.keptCommit) : error;
    });
    if (decision.verdict !== planned.decision.verdict) {
      throw conflict(
        `${attemptId}'s evidence changed while it was being decided${kept?.keptCommit ? ` (its changes were already committed as ${kept.keptCommit.slice(0, 12)})` : ""}`,
        `decide again: \`cairn attempt decide ${attemptId}\``,
      );
    }
    if (kept) Object.assign(decision, kept);
    await tx.goals.recordDecision(
      attemptId,
      decision.verdict,
      decision as unknown as Record<string, unknown>,
      at,
    );
    await tx.journal.append({
      at,
      actor,
      action: `attempt.${decision.verdict}`,
      subject: attemptId,
      data: { reasons: decision.reasons, kept_commit: decision.keptCommit ?? null },
    });
    return {
      attempt: {
        ...attempt,
        verdict: decision.verdict,
        decision: decision as unknown as Record<string, unknown>,
        decidedAt: at,
      },
      decision,
    };
  });
}

/**
 * The commit a keep of `attempt` made on its base and then ended (killed) before recording its
 * verdict: only one a keep said it was making (see commitKept), still HEAD.
 */
async function unrecordedKeep(store: Store, dir: string, attempt: AttemptRecord): Promise<string | null> {
  if (!attempt.baseHead) return null;
  const said = await store.read((tx) =>
    tx.journal.list({ action: KEEP_COMMITTING, subject: attempt.id, limit: 100 }),
  );
  if (!said.some((event) => event.data.base === attempt.baseHead)) return null;
  const message = keepMessage(attempt);
  return commitMadeSince(dir, attempt.baseHead, message);
}

const keptUnrecorded = (attemptId: string, commit: string) =>
  refuse(
    "evidence",
    `an earlier keep of ${attemptId} committed its changes as ${commit.slice(0, 12)} and was stopped before it recorded its verdict: its samples measured the tree before that commit`,
    `run \`cairn attempt eval ${attemptId}\` again, then decide: the keep records that commit as its own`,
  );

/** A refusal that came after the keep's commit says that commit stands, recorded nowhere. */
function saidCommitted(error: unknown, commit: string): unknown {
  if (!(error instanceof RefusedError)) return error;
  const { policy, reason, next } = error.refusal;
  return refuse(
    policy,
    `${reason}; the attempt's changes were already committed as ${commit.slice(0, 12)}, and no verdict was recorded`,
    next,
  );
}

const changedSinceEval = (attemptId: string) =>
  refuse(
    "evidence",
    `${attemptId}'s checkout changed since it was evaluated: its samples measured another tree, and a keep would commit this one unmeasured`,
    `run \`cairn attempt eval ${attemptId}\` again, then decide (if the evaluation itself writes files into the checkout, have git ignore them)`,
  );

function refuseUnlessInReview(attempt: AttemptRecord): void {
  if (attempt.revertedAt) throw refuse("attempt", `${attempt.id} was reverted`, "open a new attempt");
  if (attempt.resolution)
    throw refuse(
      "attempt",
      `${attempt.id} was already ${attempt.resolution.outcome} by ${attempt.resolution.by}`,
      "open a new attempt for new work",
    );
  if (attempt.verdict !== "review")
    throw refuse(
      "attempt",
      `${attempt.id} is ${attempt.verdict ?? "not decided"}, not in review: only a review is settled by the owner`,
      attempt.verdict === null
        ? `run \`cairn attempt eval ${attempt.id}\` and \`attempt decide ${attempt.id}\``
        : "a keep or revert verdict stands; open a new attempt",
    );
}

/**
 * The owner settles a review: accept keeps the attempt (committing its own changes, like keep),
 * reject sends it to revert. Both are recorded with who decided and why.
 */
export async function settleReview(
  store: Store,
  fallbackRoot: string,
  attemptId: string,
  actor: Actor,
  outcome: AttemptResolution["outcome"],
  reason: string | undefined,
  at: string,
  options: KeepOptions = {},
) {
  requireOwner(actor, `${outcome === "accepted" ? "accept" : "reject"} an attempt in review`);
  if (outcome === "rejected" && !reason?.trim()) throw usageError("reason: say why the attempt is rejected");
  const found = await store.read((tx) => attemptOrThrow(tx, attemptId));
  refuseUnlessInReview(found);
  const dir = attemptCheckout(found, fallbackRoot, `${outcome === "accepted" ? "accept" : "reject"} it`);
  return holdingCheckout(
    dir,
    attemptId,
    () => settleHeld(store, dir, attemptId, actor, outcome, reason, at, options),
    options.signal,
  );
}

/**
 * What the person is asked to own when a model settles a review (judgedByPerson): the attempt,
 * who opened it, and why it is in review. One refused anyway is refused here, before anyone is asked.
 */
export async function describeReview(
  store: Store,
  attemptId: string,
  outcome: AttemptResolution["outcome"],
): Promise<string> {
  const attempt = await store.read((tx) => attemptOrThrow(tx, attemptId));
  refuseUnlessInReview(attempt);
  const reasons = ((attempt.decision as { reasons?: string[] } | null)?.reasons ?? []).join("; ");
  const act = outcome === "accepted" ? "keep (commit its changes)" : "reject (to revert)";
  return `${act} ${attempt.id}, opened by ${attempt.openedBy}, in review because: ${quoteValue(reasons || "(no reason recorded)", 600)}`;
}

/** `settleReview` while no other keep, accept or revert works in the checkout: read afresh. */
async function settleHeld(
  store: Store,
  dir: string,
  attemptId: string,
  actor: Actor,
  outcome: AttemptResolution["outcome"],
  reason: string | undefined,
  at: string,
  options: KeepOptions,
) {
  // Checked and committed outside any transaction, as a keep is: a commit's hooks may take
  // minutes, and no other writer of the workspace waits on them.
  const before = await store.read((tx) => attemptOrThrow(tx, attemptId));
  refuseUnlessInReview(before);
  const decided = (before.decision as { tree?: string } | null)?.tree;
  const places = outcome === "accepted" ? checkoutPlaces(dir) : null;
  if (places) await refuseHiddenEdits(dir, attemptId, "accepting it", places);
  const measured = places ? await measureTree(dir, topOf(places)) : null;
  if (measured && decided && measured.fingerprint !== decided)
    throw refuse(
      "evidence",
      `${attemptId}'s checkout changed since it was decided: accepting it would commit a tree nobody reviewed`,
      `put the checkout back as it was decided, or reject ${attemptId} and have a new attempt evaluated`,
    );
  const kept = measured
    ? await commitKept(store, dir, before, { actor: actor.id, at }, options, measured)
    : { keptCommit: null, hooks: null };
  const head = await gitHead(dir);
  return store.write(async (tx) => {
    const attempt = await attemptOrThrow(tx, attemptId);
    refuseUnlessInReview(attempt);
    const resolution: AttemptResolution = {
      outcome,
      by: actor.id,
      at,
      reason: reason?.trim() || null,
      keptCommit: kept.keptCommit,
    };
    const verdict: AttemptRecord["verdict"] = outcome === "accepted" ? "keep" : "revert";
    await tx.goals.resolveAttempt(attemptId, verdict as "keep" | "revert", resolution);
    await tx.journal.append({
      at,
      actor: actor.id,
      action: `attempt.${outcome === "accepted" ? "accept" : "reject"}`,
      subject: attemptId,
      data: { reason: resolution.reason, kept_commit: kept.keptCommit, head },
    });
    return {
      attempt: { ...attempt, verdict, resolution },
      hooks: kept.hooks,
      next:
        verdict === "keep"
          ? null
          : `undo its changes with \`cairn attempt revert ${attemptId} --confirm\`, then open a new attempt`,
    };
  });
}
