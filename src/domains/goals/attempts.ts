import { notFound, refuse, usageError } from "../../kernel/outcome.js";
import type { AttemptRecord, RunRecord, SampleRecord, Store, Tx } from "../../store/store.js";
import { unknownProof } from "./contract.js";
import { type Decision, decide, keptMeasurements } from "./decide.js";
import type { EvaluatorDefinition } from "./evaluators/definition.js";
import { changedPaths, commitPaths, gitHead, isGitRepo, restoreBase } from "./git.js";
import { sampleEvaluator } from "./runner.js";
import { runOrThrow } from "./runs.js";

export interface ProgressUpdate {
  progress: number;
  total?: number;
  message?: string;
}

/** How a long command reports progress and learns it was cancelled; faces supply both. */
export interface Interaction {
  signal: AbortSignal;
  progress(update: ProgressUpdate): void;
}

export async function attemptOrThrow(tx: Tx, id: string): Promise<AttemptRecord> {
  const attempt = await tx.goals.attempt(id);
  if (!attempt) throw notFound(`no attempt ${id}`, "`cairn run status RUN` lists a run's attempts");
  return attempt;
}

function refuseIfSettled(attempt: AttemptRecord): void {
  if (attempt.revertedAt)
    throw refuse("attempt", `${attempt.id} was reverted at ${attempt.revertedAt}`, "open a new attempt");
  if (attempt.verdict)
    throw refuse(
      "attempt",
      `${attempt.id} was already decided: ${attempt.verdict}`,
      "open a new attempt for new work",
    );
}

/** Open an attempt on a frozen run, recording the git base it starts from. */
export async function openAttempt(
  store: Store,
  root: string,
  runId: string,
  milestoneId: string | undefined,
  actor: string,
  at: string,
) {
  if (!isGitRepo(root)) {
    throw refuse(
      "git",
      `${root} is not a git repository: an attempt needs a base to measure against and revert to`,
      "run `git init` and commit, then open the attempt",
    );
  }
  const baseHead = gitHead(root);
  const baseChanges = changedPaths(root);
  return store.write(async (tx) => {
    const run = await runOrThrow(tx, runId);
    if (milestoneId) {
      const milestone = await tx.goals.milestone(milestoneId);
      if (!milestone || milestone.goalId !== run.goalId) {
        throw notFound(
          `no milestone ${milestoneId} in goal ${run.goalId}`,
          `\`cairn goal show ${run.goalId}\` lists its milestones`,
        );
      }
    }
    const attempt = await tx.goals.insertAttempt({
      runId,
      milestoneId: milestoneId ?? null,
      baseHead,
      baseDirty: baseChanges.length > 0,
      baseChanges,
      openedBy: actor,
      openedAt: at,
    });
    await tx.journal.append({
      at,
      actor,
      action: "attempt.open",
      subject: attempt.id,
      data: { run: runId, milestone: milestoneId ?? null, base: baseHead, dirty: baseChanges.length > 0 },
    });
    return attempt;
  });
}

/**
 * Run every frozen evaluator of the attempt's run, each with its repeats, storing each sample as
 * evidence as soon as it is taken (a cancelled evaluation keeps what it measured).
 */
export async function evalAttempt(
  store: Store,
  root: string,
  attemptId: string,
  actor: string,
  now: () => string,
  interaction?: Interaction,
) {
  const { attempt, run } = await store.read(async (tx) => {
    const attempt = await attemptOrThrow(tx, attemptId);
    return { attempt, run: await runOrThrow(tx, attempt.runId) };
  });
  refuseIfSettled(attempt);
  const total = run.manifest.reduce(
    (sum, frozen) => sum + (frozen.definition as unknown as EvaluatorDefinition).repeats,
    0,
  );
  const taken: SampleRecord[] = [];
  let cancelled = false;
  for (const frozen of run.manifest) {
    const definition = frozen.definition as unknown as EvaluatorDefinition;
    for (let repeat = 0; repeat < definition.repeats; repeat++) {
      if (interaction?.signal.aborted) {
        cancelled = true;
        break;
      }
      const label = definition.hidden ? "hidden evaluator" : frozen.name;
      interaction?.progress({
        progress: taken.length,
        total,
        message: `${label} (${repeat + 1}/${definition.repeats})`,
      });
      const outcome = await sampleEvaluator(definition, root, interaction?.signal);
      const sample: SampleRecord = {
        attemptId,
        evaluator: frozen.name,
        proof: frozen.proof,
        repeatIndex: repeat,
        ...outcome,
        gitHead: gitHead(root),
        at: now(),
      };
      await store.write(async (tx) => {
        // Decided or reverted meanwhile (another process): evidence must not change under a decision.
        refuseIfSettled(await attemptOrThrow(tx, attemptId));
        await tx.goals.insertSample(sample);
        await tx.journal.append({
          at: sample.at,
          actor,
          action: "attempt.sample",
          subject: attemptId,
          data: { evaluator: frozen.name, value: sample.value, error: sample.error },
        });
      });
      taken.push(sample);
      if (interaction?.signal.aborted) cancelled = true;
    }
    if (cancelled) break;
  }
  interaction?.progress({ progress: taken.length, total, message: cancelled ? "cancelled" : "done" });
  return { attempt, run, samples: taken, cancelled };
}

async function requiredProofs(tx: Tx, run: RunRecord, attempt: AttemptRecord): Promise<Set<string>> {
  const all = run.contract.proofs.map((proof) => proof.name);
  if (!attempt.milestoneId) return new Set(all);
  const milestone = await tx.goals.milestone(attempt.milestoneId);
  return new Set(milestone && milestone.proofs.length > 0 ? milestone.proofs : all);
}

/**
 * A kept attempt's changes become a commit, so the next attempt opens on a clean base it can be
 * reverted to. Only the attempt's own paths are committed: changes that predate it stay as they
 * were. With no git base (or nothing changed) the kept state is simply the current HEAD.
 */
function commitKept(root: string | null, attempt: AttemptRecord): string | null {
  if (!root || !attempt.baseHead) return null;
  const own = changedPaths(root).filter((path) => !attempt.baseChanges.includes(path));
  if (own.length === 0) return gitHead(root);
  const milestone = attempt.milestoneId ? ` (${attempt.milestoneId})` : "";
  return commitPaths(root, own, `cairn: keep ${attempt.id}${milestone}`);
}

/**
 * Score the attempt from its evidence and record keep | revert | review; on keep, commit the
 * attempt's changes in `root` (null: leave git alone).
 */
export async function decideAttempt(
  store: Store,
  root: string | null,
  attemptId: string,
  actor: string,
  at: string,
): Promise<{ attempt: AttemptRecord; decision: Decision }> {
  return store.write(async (tx) => {
    const attempt = await attemptOrThrow(tx, attemptId);
    refuseIfSettled(attempt);
    const run = await runOrThrow(tx, attempt.runId);
    const samples = await tx.goals.samples(attemptId);
    const reports = await tx.goals.scoreReports(attemptId);
    if (samples.length === 0 && reports.length === 0) {
      throw refuse(
        "evidence",
        `${attemptId} has no evaluations and no reports: there is nothing to decide on`,
        `run \`cairn attempt eval ${attemptId}\` first`,
      );
    }
    const baselines = new Map((await tx.goals.baselines(run.id)).map((b) => [b.evaluator, b]));
    const decision: Decision = decide({
      proofs: run.contract.proofs,
      required: await requiredProofs(tx, run, attempt),
      manifest: run.manifest,
      samples,
      reports,
      baselines,
    });
    // Inside the write: if the commit fails, no keep is recorded and decide can be run again.
    if (decision.verdict === "keep") decision.keptCommit = commitKept(root, attempt);
    await tx.goals.recordDecision(
      attemptId,
      decision.verdict,
      decision as unknown as Record<string, unknown>,
      at,
    );
    if (decision.verdict === "keep") {
      for (const kept of keptMeasurements(attemptId, decision))
        await tx.goals.raiseBaseline({ ...kept, runId: run.id });
    }
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
 * Self-reported scores: only for proofs the contract marks manual, only under its own proof
 * names, each in [0,1]. They are recorded as what they are and can at most reach review.
 */
export async function reportScores(
  store: Store,
  attemptId: string,
  scores: Record<string, number>,
  actor: string,
  at: string,
) {
  const entries = Object.entries(scores);
  if (entries.length === 0) throw usageError("scores: give at least one proof name and score");
  return store.write(async (tx) => {
    const attempt = await attemptOrThrow(tx, attemptId);
    refuseIfSettled(attempt);
    const run = await runOrThrow(tx, attempt.runId);
    const proofs = run.contract.proofs;
    for (const [name, score] of entries) {
      const proof = proofs.find((item) => item.name === name);
      if (!proof) throw unknownProof(name, proofs);
      if (!proof.manual) {
        const manual =
          proofs
            .filter((item) => item.manual)
            .map((item) => item.name)
            .join(", ") || "(none)";
        throw refuse(
          "self-report",
          `${name} is measured by cairn's evaluators; a score for it cannot be reported`,
          `run \`cairn attempt eval ${attemptId}\`; reports are accepted for manual proofs only: ${manual}`,
        );
      }
      if (!Number.isFinite(score) || score < 0 || score > 1)
        throw usageError(`scores.${name}: ${score} is outside [0,1]`);
    }
    for (const [proof, score] of entries)
      await tx.goals.insertScoreReport({ attemptId, proof, score, reportedBy: actor, at });
    await tx.journal.append({ at, actor, action: "attempt.report", subject: attemptId, data: { scores } });
    return { attempt, scores };
  });
}

/** Put the work tree back at the attempt's base; never over changes that predate the attempt. */
export async function revertAttempt(
  store: Store,
  root: string,
  attemptId: string,
  actor: string,
  at: string,
) {
  return store.write(async (tx) => {
    const attempt = await attemptOrThrow(tx, attemptId);
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
    const foreign = changedPaths(root).filter((path) => attempt.baseChanges.includes(path));
    if (foreign.length > 0) {
      throw refuse(
        "foreign-changes",
        `the tree has changes that are not ${attemptId}'s (they predate it): ${foreign.join(", ")}`,
        "commit or stash them, then revert again",
      );
    }
    const discarded = changedPaths(root);
    restoreBase(root, attempt.baseHead);
    await tx.goals.markReverted(attemptId, at);
    await tx.journal.append({
      at,
      actor,
      action: "attempt.revert",
      subject: attemptId,
      data: { base: attempt.baseHead, discarded },
    });
    return { attempt: { ...attempt, revertedAt: at }, base: attempt.baseHead, discarded };
  });
}
