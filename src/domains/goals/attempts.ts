import { gitHead } from "../../kernel/git.js";
import { notFound, refuse, usageError } from "../../kernel/outcome.js";
import { quoteValue } from "../../kernel/text.js";
import type { AttemptRecord, MilestoneRecord, RunRecord, Store, Tx } from "../../store/store.js";
import type { Actor } from "../identity/actor.js";
import type { WorkspaceConfig } from "../workspace/config.js";
import { requirePlanning } from "./authority.js";
import { openAttemptHere, thisMachine } from "./checkout-host.js";
import { unknownProof } from "./contract.js";
import { changedPaths, checkoutFor, checkoutTop, hashWorkFile, isGitRepo } from "./git.js";
import { notGit } from "./refusals.js";
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
  if (!attempt)
    throw notFound(`no attempt ${quoteValue(id)}`, "`cairn run status RUN` lists a run's attempts");
  return attempt;
}

export function refuseIfSettled(attempt: AttemptRecord): void {
  if (attempt.revertedAt)
    throw refuse("attempt", `${attempt.id} was reverted at ${attempt.revertedAt}`, "open a new attempt");
  if (attempt.verdict)
    throw refuse(
      "attempt",
      `${attempt.id} was already decided: ${attempt.verdict}`,
      "open a new attempt for new work",
    );
}

export interface OpenOptions {
  /** The owner (or a planner) allows this attempt to change frozen inputs; it can then reach review. */
  allowInputChanges?: boolean;
}

/**
 * Open an attempt on a frozen run in the checkout `cwd` belongs to (a linked worktree is its own
 * checkout), recording its git base: HEAD, and the paths already dirty with their content hash.
 * One open attempt per checkout: two attempts sharing a work tree could not tell their changes
 * apart.
 */
export async function openAttempt(
  store: Store,
  workspaceRoot: string,
  cwd: string,
  runId: string,
  milestoneId: string | undefined,
  actor: Actor,
  config: WorkspaceConfig,
  options: OpenOptions,
  at: string,
) {
  if (!(await isGitRepo(workspaceRoot))) throw notGit(workspaceRoot, "open an attempt");
  if (options.allowInputChanges) requirePlanning(actor, config, "allow an attempt to change frozen inputs");
  const checkout = await checkoutFor(cwd, workspaceRoot);
  const baseHead = await gitHead(checkout);
  const baseChanges = await changedPaths(checkout);
  const top = (await checkoutTop(checkout)) ?? checkout;
  const baseHashes = Object.fromEntries(baseChanges.map((path) => [path, hashWorkFile(top, path)]));
  return store.write(async (tx) => {
    const run = await runOrThrow(tx, runId);
    await refuseSupersededRun(tx, run);
    if (milestoneId) {
      const milestone = await tx.goals.milestone(milestoneId);
      if (!milestone || milestone.goalId !== run.goalId) {
        throw notFound(
          `no milestone ${quoteValue(milestoneId)} in goal ${run.goalId}`,
          `\`cairn goal show ${run.goalId}\` lists its milestones`,
        );
      }
      refuseUnmeasuredMilestone(run, milestone);
    }
    const open = await openAttemptHere(tx, checkout);
    if (open) {
      throw refuse(
        "one-attempt",
        `${open.id} is still open in ${checkout} (${open.verdict ?? "not decided"}); one attempt per checkout`,
        open.verdict === "review"
          ? `the owner settles it first (\`cairn attempt accept|reject ${open.id}\`), or open the attempt in another worktree (\`git worktree add\`)`
          : `decide or revert ${open.id} first (\`cairn attempt decide ${open.id}\`, \`attempt revert ${open.id} --confirm\`), or work in another worktree`,
      );
    }
    const attempt = await tx.goals.insertAttempt({
      runId,
      milestoneId: milestoneId ?? null,
      baseHead,
      baseDirty: baseChanges.length > 0,
      baseChanges,
      baseHashes,
      checkout,
      // Only a shared store holds other machines' attempts: a file store's checkout is its own,
      // whatever name a container gives its machine from one start to the next.
      checkoutHost: store.shared ? thisMachine() : null,
      inputsApprovedBy: options.allowInputChanges ? actor.id : null,
      openedBy: actor.id,
      openedAt: at,
    });
    await tx.journal.append({
      at,
      actor: actor.id,
      action: "attempt.open",
      subject: attempt.id,
      data: {
        run: runId,
        milestone: milestoneId ?? null,
        base: baseHead,
        checkout,
        dirty: baseChanges.length > 0,
        inputs_approved: options.allowInputChanges === true,
      },
    });
    return attempt;
  });
}

/**
 * A later freeze of the goal is what success means now (a raised threshold, a changed evaluator):
 * an attempt on an earlier run would be judged, and could finish a milestone, by the bar the
 * owner replaced.
 */
async function refuseSupersededRun(tx: Tx, run: RunRecord) {
  const latest = await latestRunOf(tx, run);
  if (latest === run.id) return;
  throw refuse(
    "superseded",
    `${run.id} was superseded by ${latest}, frozen later for ${run.goalId}: attempts are judged by the goal's latest run`,
    `open the attempt on the latest run: \`cairn attempt open ${latest}\``,
  );
}

/** The id of the goal's latest frozen run (the run itself when it is the latest). */
export async function latestRunOf(tx: Tx, run: RunRecord): Promise<string> {
  return (await tx.goals.runs(run.goalId)).at(-1)?.id ?? run.id;
}

/**
 * A milestone planned after the run froze may require proofs the run's contract never had: the
 * run cannot measure them, so an attempt on it would pass the milestone with nothing measured.
 */
function refuseUnmeasuredMilestone(run: RunRecord, milestone: MilestoneRecord) {
  const known = new Set(run.contract.proofs.map((proof) => proof.name));
  const unknown = milestone.proofs.filter((name) => !known.has(name));
  if (unknown.length === 0) return;
  throw refuse(
    "proof-gate",
    `${milestone.id} requires ${unknown.join(", ")}, which ${run.id} does not measure (it was frozen before ${unknown.length === 1 ? "that proof was" : "those proofs were"} added)`,
    `ask the owner to freeze a run that measures them (\`cairn run freeze ${run.goalId}\`)`,
  );
}

/** The proofs an attempt must pass: its milestone's, else the whole contract's. */
export async function requiredProofs(tx: Tx, proofs: readonly { name: string }[], attempt: AttemptRecord) {
  const all = proofs.map((proof) => proof.name);
  if (!attempt.milestoneId) return new Set(all);
  const milestone = await tx.goals.milestone(attempt.milestoneId);
  return new Set(milestone && milestone.proofs.length > 0 ? milestone.proofs : all);
}

/**
 * Reported scores: only for proofs the contract marks manual, only under its own proof names,
 * each in [0,1]. An agent's report is a self-report and can at most reach review; the workspace
 * owner's report is a human judgment and decides the proof.
 */
export async function reportScores(
  store: Store,
  attemptId: string,
  scores: Record<string, number>,
  actor: string,
  at: string,
) {
  return store.write(async (tx) => {
    const { attempt } = await reportable(tx, attemptId, scores);
    const entries = Object.entries(scores);
    for (const [proof, score] of entries)
      await tx.goals.insertScoreReport({ attemptId, proof, score, reportedBy: actor, at });
    await tx.journal.append({ at, actor, action: "attempt.report", subject: attemptId, data: { scores } });
    return { attempt, scores };
  });
}

/**
 * What the person is asked to own when a model reports the owner's scores (judgedByPerson): the
 * scores, the attempt and its goal. A report refused anyway is refused here, before anyone is asked.
 */
export async function describeReport(
  store: Store,
  attemptId: string,
  scores: Record<string, number>,
): Promise<string> {
  return store.read(async (tx) => {
    const { attempt, run } = await reportable(tx, attemptId, scores);
    const given = Object.entries(scores)
      .map(([proof, score]) => `${proof} ${score}`)
      .join(", ");
    return `score ${given} for ${attempt.id}, opened by ${attempt.openedBy} on goal ${run.goalId} (${quoteValue(run.contract.goal, 200)})`;
  });
}

/** The attempt and run a report of `scores` may be recorded on, or the refusal it meets. */
async function reportable(tx: Tx, attemptId: string, scores: Record<string, number>) {
  const entries = Object.entries(scores);
  if (entries.length === 0) throw usageError("scores: give at least one proof name and score");
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
  return { attempt, run };
}
