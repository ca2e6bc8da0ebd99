import { gitHead } from "../../kernel/git.js";
import type { FrozenEvaluatorRecord, SampleRecord, Store } from "../../store/store.js";
import { type Actor, requireActiveIn } from "../identity/actor.js";
import { attemptOrThrow, type Interaction, refuseIfSettled } from "./attempts.js";
import { baseTree } from "./base-tree.js";
import { attemptCheckout } from "./checkout-host.js";
import type { EvaluatorDefinition } from "./evaluators/definition.js";
import { checkoutPlaces, topOf } from "./git.js";
import { watchFrozenInputs } from "./input-watch.js";
import { inputDrift } from "./inputs.js";
import { fingerprintsOf, refuseHiddenEdits } from "./measured-tree.js";
import { sampleEvaluator } from "./runner.js";
import { runOrThrow } from "./runs.js";
import { compareToBase, nextRound, ROUND_PAIRS } from "./stats.js";
import { treeChangeTimes, treeFiles } from "./tree-times.js";

type Side = SampleRecord["side"];

const valuesOf = (samples: readonly SampleRecord[], side: Side) =>
  samples.filter((s) => s.side === side && s.value !== null).map((s) => s.value as number);
const spread = (values: readonly number[]) => new Set(values).size > 1;

/** The tree of a sample taken while the checkout changed: no decision's tree is ever this. */
const CHANGED_UNDER = "changed while measured";
/** A base sample's error when the base's checkout no longer held its commit around it. */
const BASE_CHANGED =
  "the base's checkout was changed around this sample (by the code under test, or another process): its number does not stand for the base";

/**
 * Run every frozen evaluator of the attempt's run in the attempt's own checkout, storing each
 * sample as evidence as soon as it is taken (a cancelled evaluation keeps what it measured).
 *
 * Pass/fail evaluators run their repeats and need no baseline. An evaluator that reads a number
 * is also measured on the attempt's base, in a worktree of the base commit, in the same session:
 * once when its numbers do not move; interleaved pair by pair (base, attempt, attempt, base…)
 * when it is declared noisy or its repeats disagree, round after round until the rank test is
 * settled (see stats.ts). Frozen inputs are hashed before and after, and watched in between (see
 * input-watch.ts), so an attempt that changes what judges it is caught even if it puts the file back. Each sample records the tree it was
 * taken for (see measured-tree.ts), so edits made after the evaluation are never decided on it.
 *
 * Evaluators run in the live checkout, not in a copy holding the frozen inputs: an attempt that
 * touched an input is never kept whatever it measured, so a copy would only measure a tree
 * nobody will commit, and it would lack the checkout's untracked build state (dependencies,
 * generated files) that real commands need.
 */
export async function evalAttempt(
  store: Store,
  fallbackRoot: string,
  attemptId: string,
  actor: Actor,
  now: () => string,
  interaction?: Interaction,
) {
  const { attempt, run } = await store.read(async (tx) => {
    const attempt = await attemptOrThrow(tx, attemptId);
    return { attempt, run: await runOrThrow(tx, attempt.runId) };
  });
  refuseIfSettled(attempt);
  const dir = attemptCheckout(attempt, fallbackRoot, "evaluate it");
  // Every sample, base ones too, names the tree it judges: a decision counts only the tree it keeps.
  // Where git finds the checkout, asked once for every check below.
  const places = checkoutPlaces(dir);
  const top = topOf(places);
  const fingerprint = fingerprintsOf(dir, top);
  const frozenInputs = new Set(run.manifest.flatMap((entry) => Object.keys(entry.inputs?.files ?? {})));
  // The tree's files are listed beside each fingerprint, never kept for a later one (tree-times.ts).
  const listFiles = async () => treeFiles(await top, frozenInputs);
  const [, driftBefore, tree, listed] = await Promise.all([
    refuseHiddenEdits(dir, attemptId, "an evaluation", places),
    inputDrift(run.manifest, dir, top),
    fingerprint(),
    listFiles(),
  ]);
  const base = baseTree(dir, attempt.baseHead);
  const watching = watchFrozenInputs(run.manifest, await top);
  let writtenMeanwhile: string[] = [];
  const taken: SampleRecord[] = [];
  const estimate = run.manifest.reduce((sum, frozen) => {
    const definition = frozen.definition as unknown as EvaluatorDefinition;
    if (definition.read === "exit_code") return sum + definition.repeats;
    return sum + (definition.noisy ? 2 * Math.max(definition.repeats, ROUND_PAIRS) : definition.repeats + 1);
  }, 0);
  const cancelled = () => interaction?.signal.aborted === true;
  // The tree is fingerprinted again after each sample of the attempt: a sample the tree changed
  // under (a passing tree swapped in for the evaluators, the broken one put back before the
  // decision; or a file the evaluator itself wrote) judged no one tree, and is recorded as such.
  let current = tree;
  let files = listed;
  // Whether the base was found as made by a check after which nothing of the attempt ran: its
  // next sample needs no check before it (one git fewer each time two base samples follow).
  let baseCheckedSince = false;
  // One git call per side, not per sample: HEAD does not move under an evaluation.
  const heads = new Map<string, Promise<string | null>>();
  const headOf = (cwd: string) => {
    if (!heads.has(cwd)) heads.set(cwd, gitHead(cwd));
    return heads.get(cwd) as Promise<string | null>;
  };

  const take = async (
    frozen: FrozenEvaluatorRecord,
    side: Side,
    index: number,
  ): Promise<SampleRecord | null> => {
    const definition = frozen.definition as unknown as EvaluatorDefinition;
    const cwd = side === "base" ? await base.cwd() : dir;
    if (cwd === null || cancelled()) return null;
    const label = definition.hidden ? "hidden evaluator" : frozen.name;
    interaction?.progress({
      progress: taken.length,
      total: Math.max(estimate, taken.length + 1),
      message: `${label} ${side === "base" ? "on the base" : ""} (#${index + 1})`.replace("  ", " "),
    });
    const before = current;
    // The base is checked before and after its sample: the attempt's samples run in between. Its
    // files' change times are watched over the sample, as the attempt's are: a base file made
    // worse while the evaluator reads it and put back before it ends leaves the base as made.
    const baseChangedBefore = side === "base" && !baseCheckedSince && !(await base.intact());
    if (side === "attempt") baseCheckedSince = false;
    const times = side === "attempt" ? treeChangeTimes(await top, files) : base.changeTimes();
    const measured = await sampleEvaluator(definition, cwd, interaction?.signal, frozen);
    if (side === "attempt") [current, files] = await Promise.all([fingerprint(), listFiles()]);
    // A file of the tree written while the sample ran, whatever it holds now: no one tree judged.
    const rewritten = side === "attempt" && times.moved();
    const baseChanged = side === "base" && (baseChangedBefore || times.moved() || !(await base.intact()));
    if (side === "base") baseCheckedSince = !baseChanged;
    const outcome = baseChanged ? { ...measured, value: null, error: BASE_CHANGED } : measured;
    const sample: SampleRecord = {
      attemptId,
      evaluator: frozen.name,
      proof: frozen.proof,
      repeatIndex: index,
      ...outcome,
      gitHead: await headOf(cwd),
      at: now(),
      side,
      tree: before === current && !rewritten ? current : CHANGED_UNDER,
    };
    taken.push(sample);
    return sample;
  };

  try {
    for (const frozen of run.manifest) {
      if (cancelled()) break;
      await measure(frozen, take, () => taken.filter((s) => s.evaluator === frozen.name));
    }
  } finally {
    await base.dispose();
    writtenMeanwhile = await watching.stop();
  }
  // Against the top found before the samples: asking git again costs a process, and a top the
  // evaluated code moved (a `.git` it made in a subfolder) would only misplace the frozen paths.
  const driftAfter = await inputDrift(run.manifest, dir, top);
  const drift = [...new Set([...driftBefore, ...writtenMeanwhile, ...driftAfter])].sort();
  // The evaluation is recorded whole, with the input drift seen around it, or not at all: a
  // process killed part way must not leave samples whose drift check never ran (a builder could
  // put a frozen input back afterwards), nor some repeats standing for all of them.
  if (taken.length > 0 || drift.length > 0) {
    await store.write(async (tx) => {
      // A caller retired while its evaluators ran records none of their evidence (the call is
      // refused, as a check's ticks are).
      await requireActiveIn(tx, actor);
      // Decided or reverted meanwhile (another process): evidence must not change under a decision.
      refuseIfSettled(await attemptOrThrow(tx, attemptId));
      for (const sample of taken) {
        await tx.goals.insertSample(sample);
        await tx.journal.append({
          at: sample.at,
          actor: actor.id,
          action: "attempt.sample",
          subject: attemptId,
          data: { evaluator: sample.evaluator, side: sample.side, value: sample.value, error: sample.error },
        });
      }
      if (drift.length > 0) {
        await tx.goals.recordInputDrift(attemptId, drift);
        await tx.journal.append({
          at: now(),
          actor: actor.id,
          action: "attempt.input_drift",
          subject: attemptId,
          data: { paths: drift },
        });
      }
    });
  }
  const stopped = cancelled();
  interaction?.progress({
    progress: taken.length,
    total: taken.length,
    message: stopped ? "cancelled" : "done",
  });
  return { attempt, run, samples: taken, cancelled: stopped, inputDrift: drift };
}

/** Take one sample of `frozen` on one side; null when it could not (cancelled, no base). */
export type Take = (frozen: FrozenEvaluatorRecord, side: Side, index: number) => Promise<SampleRecord | null>;

/** One evaluator's samples: its repeats, and for a number, its base measured beside it. */
export async function measure(frozen: FrozenEvaluatorRecord, take: Take, mine: () => SampleRecord[]) {
  const definition = frozen.definition as unknown as EvaluatorDefinition;
  const failed = () => mine().some((sample) => sample.value === null);
  const count = (side: Side) => mine().filter((sample) => sample.side === side).length;
  if (!definition.noisy || definition.read === "exit_code") {
    // A sample with no value fails the evaluator whatever the others say (decide.ts): the rest
    // are not run. An output a `read = "regex"` pattern backtracks on holds cairn for the pattern's
    // whole budget (5 s), and fifty repeats of it held it for four minutes.
    for (let repeat = 0; repeat < definition.repeats; repeat++)
      if (!(await take(frozen, "attempt", repeat)) || failed()) return;
    if (definition.read === "exit_code" || failed()) return;
    if (!(await take(frozen, "base", 0)) || failed()) return;
    const attempt = valuesOf(mine(), "attempt");
    const base = valuesOf(mine(), "base");
    if (!spread(attempt) && attempt[0] === base[0]) return;
    // Constant on each side but different: a second pair tells a real change from noise.
    if (!spread(attempt) && attempt.length === 1) {
      if (!(await take(frozen, "attempt", 1)) || !(await take(frozen, "base", 1)) || failed()) return;
      if (!spread(valuesOf(mine(), "attempt")) && !spread(valuesOf(mine(), "base"))) return;
    } else if (!spread(attempt)) return;
  }
  // Noisy: interleave pairs, alternating which side goes first, until the test is settled.
  let pairs = Math.min(count("attempt"), count("base"));
  let want = Math.max(definition.repeats, ROUND_PAIRS) - pairs;
  while (want > 0) {
    for (let i = 0; i < want; i++) {
      const order: Side[] = (pairs + i) % 2 === 0 ? ["base", "attempt"] : ["attempt", "base"];
      for (const side of order) if (!(await take(frozen, side, count(side)))) return;
      if (failed()) return;
    }
    pairs = Math.min(count("attempt"), count("base"));
    const comparison = compareToBase(
      valuesOf(mine(), "attempt"),
      valuesOf(mine(), "base"),
      definition.direction ?? "higher",
      definition.min_effect,
    );
    want = nextRound(comparison, pairs);
  }
}
