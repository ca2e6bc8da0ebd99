import { refuse, usageError } from "../../kernel/outcome.js";
import { runProgress } from "../../kernel/progress.js";
import { quoteValue } from "../../kernel/text.js";
import type { Store, Tx } from "../../store/store.js";
import type { CriterionRecord, Evidence, TaskRecord } from "../../store/tasks.js";
import { milestoneGateIn } from "../goals/task-link.js";
import type { Actor } from "../identity/actor.js";
import { taskScope } from "../knowledge/text.js";
import { ownerSetting } from "../workspace/owner-setting.js";
import { journal, loadTask, requireActiveAgent, who } from "./common.js";
import { setsVerifiedDone } from "./criteria.js";
import { verify, whyFailed } from "./criterion-run.js";
import { passed } from "./runner.js";
import {
  checkOnlyAdded,
  doneRanOn,
  hasCommand,
  staleTick,
  stopIfCancelled,
  treeNamer,
  type Verifier,
} from "./verifier.js";

async function requireOwnerOf(tx: Tx, task: TaskRecord, actor: Actor, what: string): Promise<void> {
  if (task.owner === actor.id && (task.status === "active" || task.status === "blocked")) return;
  if (!task.owner) {
    throw refuse(
      "ownership",
      `${task.id} is not claimed; only its owner may ${what}`,
      `claim it first: claim_task ${task.id}`,
    );
  }
  throw refuse(
    "ownership",
    `${task.id} is held by ${await who(tx, task.owner)}; only its owner may ${what}`,
    "take a task of your own (next_task)",
  );
}

export interface CheckResult {
  n: number;
  text: string;
  checked: boolean;
  why: string | null;
  evidence: Evidence | null;
}

/**
 * Tick criteria. Only the owner may. A criterion with a verify command is ticked only when
 * cairn runs the command itself and it exits 0; the evidence is kept either way. Commands run
 * outside any transaction (they may take minutes); the result is written only if the caller
 * still owns the task then.
 */
export async function checkTask(
  store: Store,
  verifier: Verifier,
  raw: string,
  which: { n?: number; all?: boolean },
): Promise<{ task: TaskRecord; results: CheckResult[]; unchecked: number[] }> {
  if (which.n === undefined && !which.all)
    throw usageError("name a criterion (--n N) or check them all (--all)");
  const { actor } = verifier;
  const { task, criteria } = await store.read(async (tx) => {
    await requireActiveAgent(tx, actor);
    const found = await loadTask(tx, raw);
    await requireOwnerOf(tx, found, actor, "check its criteria");
    return { task: found, criteria: await tx.tasks.criteria(found.id) };
  });
  if (criteria.length === 0) {
    throw usageError(
      `${task.id} has no acceptance criteria`,
      `add one: cairn task criterion ${task.id} --text ...`,
    );
  }
  const one = which.n === undefined ? undefined : criteria.find((c) => c.n === which.n);
  if (which.n !== undefined && !one)
    throw usageError(`${task.id} has criteria 1..${criteria.length}, not ${which.n}`);
  // Git is asked only when a command will judge the tree (or, for --all, may have judged another).
  const nameTree = (one ? [one] : criteria).some(hasCommand) ? await treeNamer(verifier) : null;
  let tree = nameTree ? await nameTree() : null;
  const before = tree;
  const targets = one ? [one] : criteria.filter((c) => !c.checked || staleTick(c, tree) !== null);
  const results: CheckResult[] = [];
  const progress = runProgress(verifier.progress);
  // Whether the commands so far only added files to the tree the check began on (checkOnlyAdded),
  // asked of git once for each tree: the last command's answer is the whole check's too.
  const grown = new Map<string, Promise<boolean>>();
  const onlyAddedTo = (after: string) => {
    let known = grown.get(after);
    if (!known) {
      known = checkOnlyAdded(verifier, before as string, after);
      grown.set(after, known);
    }
    return known;
  };
  // The caller's leases are kept while these run by the call around them (commands/hooks.ts).
  try {
    for (const criterion of targets) {
      if (!hasCommand(criterion)) {
        results.push({ n: criterion.n, text: criterion.text, checked: true, why: null, evidence: null });
        continue;
      }
      const judged = tree;
      const ran = await verify(verifier, criterion, store, progress, `criterion ${criterion.n}`);
      stopIfCancelled(verifier);
      // What it left: a command may change the tree itself (a build's output).
      tree = nameTree ? await nameTree() : null;
      const evidence: Evidence = judged === null ? ran : { ...ran, tree: judged };
      // While it ran, a file there before the check began changed or went: what it read may be
      // either tree. The agent made its code pass once the tree was named, then put the broken code
      // back, and the pass was held to the broken tree. Such a run is evidence for neither.
      const moved =
        passed(evidence) &&
        before !== null &&
        judged !== null &&
        tree !== null &&
        tree !== judged &&
        !(await onlyAddedTo(tree));
      const ok = passed(evidence) && !moved;
      results.push({
        n: criterion.n,
        text: criterion.text,
        checked: ok,
        why: moved
          ? "the checkout changed while it ran (a file there before it was edited or removed): check again on a checkout left as it is"
          : ok
            ? null
            : whyFailed(evidence),
        evidence,
      });
    }
  } finally {
    progress.stop();
  }
  // Each tick holds for the tree it judged, and for the tree this call's commands left when all
  // they did to the checkout was add files (a build's output, which each may rewrite: a stamp of
  // the time). A file there before they ran that changed or went meanwhile may be an edit made
  // while they ran: an agent that put its broken code back as a passing check ran, and finished
  // on a tree no command had passed. Then a tick holds for the tree it judged alone.
  const onlyAdded = before && tree && tree !== before ? await onlyAddedTo(tree) : true;
  for (const result of results) {
    const judged = result.evidence?.tree;
    if (result.evidence && judged && tree && tree !== judged && onlyAdded)
      result.evidence = { ...result.evidence, tree_after: tree };
  }
  return store.write(async (tx) => {
    const now = verifier.now();
    // Retired while its commands ran: what they showed is no longer this agent's to record.
    await requireActiveAgent(tx, actor);
    const current = await loadTask(tx, task.id);
    await requireOwnerOf(tx, current, actor, "check its criteria");
    for (const result of results) {
      await tx.tasks.setCriterion(task.id, result.n, {
        checked: result.checked,
        by: actor.id,
        at: now,
        evidence: result.evidence,
      });
    }
    await journal(tx, actor, now, "task.check", task.id, {
      results: results.map((r) => ({
        n: r.n,
        checked: r.checked,
        why: r.why,
        exit_code: r.evidence?.exit_code ?? null,
      })),
    });
    const unchecked = (await tx.tasks.criteria(task.id)).filter((c) => !c.checked).map((c) => c.n);
    return { task: current, results, unchecked };
  });
}

/**
 * Only an active task its caller holds is finished. Asked before anything runs (a blocked task
 * must not run its definition of done only to be refused), and again in the final write: the
 * task may have been blocked, released or taken meanwhile.
 */
async function requireFinishable(tx: Tx, task: TaskRecord, actor: Actor): Promise<void> {
  if (task.owner === actor.id && task.status === "active") return;
  if (task.owner === actor.id && task.status === "blocked") {
    throw refuse(
      "status",
      `${task.id} is blocked${task.blockedReason ? ` (${quoteValue(task.blockedReason, 120)})` : ""}; a blocked task is not finished`,
      `once what blocks it is resolved, reopen it (\`cairn task reopen ${task.id}\`), then finish it`,
    );
  }
  throw refuse(
    "ownership",
    `${task.id} is no longer yours to finish: it is ${task.status}${task.owner ? `, held by ${await who(tx, task.owner)}` : ""}`,
    `claim it again (claim_task ${task.id}) or take another task (next_task)`,
  );
}

/** Unmet conditions a finish refusal lists: a task may carry thousands of criteria. */
const UNMET_SHOWN = 20;

export type FinishOutcome =
  | { kind: "done"; task: TaskRecord; unverified: boolean }
  | { kind: "proposed"; task: TaskRecord; to: string };

/**
 * Finish: every box ticked, the workspace definition of done met. A caller who does not own the
 * task (or may only propose) leaves a proposal for the owner instead.
 */
export async function finishTask(
  store: Store,
  verifier: Verifier,
  raw: string,
  options: { unverified?: boolean; note?: string },
): Promise<FinishOutcome> {
  const { actor, config } = verifier;
  const task = await store.read((tx) => loadTask(tx, raw));
  if (task.owner !== actor.id || actor.grant === "ro") {
    if (!task.owner) {
      throw refuse(
        "ownership",
        `${task.id} is not claimed; only its owner finishes it`,
        `claim it first: claim_task ${task.id}`,
      );
    }
    return store.write(async (tx) => {
      await requireActiveAgent(tx, actor);
      const now = verifier.now();
      const current = await loadTask(tx, task.id);
      const to = current.owner ?? task.owner ?? "owner";
      await journal(tx, actor, now, "task.finish_proposed", task.id, { to, note: options.note ?? null });
      return { kind: "proposed", task: current, to };
    });
  }
  // The tree being finished, taken before the definition of done may write to it: each tick a
  // command earned must be of this tree. Named wherever a criterion has a command, ticked yet or
  // not: one ticked while the definition of done ran (with .git moved aside, naming no tree) was
  // otherwise held to no tree at all, and finished a checkout its command had never passed.
  const judged = await store.read(async (tx) => {
    await requireFinishable(tx, await loadTask(tx, task.id), actor);
    return tx.tasks.criteria(task.id);
  });
  const ofDone = config.done.shortcuts.length > 0;
  // The definition of done is held to that tree too (doneRanOn): it is run on the checkout as
  // finished, not on one the agent made pass while it ran.
  const nameTree = judged.some(hasCommand) || ofDone ? await treeNamer(verifier) : null;
  let tree: string | null = null;
  // A tree git cannot name is no tree a tick holds for: refused below, with what git said.
  let unnamed: string | null = null;
  try {
    tree = nameTree ? await nameTree() : null;
  } catch (error) {
    stopIfCancelled(verifier);
    unnamed = (error as Error).message;
  }
  // The definition of done's shortcuts run before the write, like verify commands.
  const doneFailures: string[] = [];
  const doneRan: Evidence["shortcut"][] = [];
  // Read before the progress starts: a read that throws between them left its timer re-arming
  // for good, and the CLI process never exited.
  const setting = config.done.shortcuts.length > 0 ? await store.read(ownerSetting) : null;
  const progress = runProgress(verifier.progress);
  try {
    for (const name of config.done.shortcuts) {
      try {
        const evidence = await verify(
          verifier,
          { verify: null, shortcut: name, params: {}, timeoutSeconds: null, setting } as CriterionRecord,
          store,
          progress,
          `definition of done: shortcut ${name}`,
          true,
        );
        doneRan.push(evidence.shortcut);
        if (!passed(evidence))
          doneFailures.push(`definition of done: shortcut ${name} failed (${whyFailed(evidence)})`);
      } catch (error) {
        doneFailures.push(`definition of done: shortcut ${name} cannot run (${(error as Error).message})`);
      }
    }
  } finally {
    progress.stop();
  }
  stopIfCancelled(verifier);
  if (ofDone && nameTree && tree) {
    const ran = await doneRanOn(verifier, nameTree, tree);
    // Files they added are part of what passed: the ticks are held to the tree with them.
    if ("tree" in ran) tree = ran.tree;
    else doneFailures.push(`definition of done: ${ran.failure}`);
  }
  return store.write(async (tx) => {
    const now = verifier.now();
    await requireActiveAgent(tx, actor);
    const current = await loadTask(tx, task.id);
    await requireFinishable(tx, current, actor);
    // A milestone's task is done when cairn kept an attempt for it, whatever its boxes say.
    if (current.milestoneId) {
      const gate = await milestoneGateIn(tx, current.milestoneId);
      if (!gate.pass)
        throw refuse(gate.refusal.policy, `${task.id}: ${gate.refusal.reason}`, gate.refusal.next);
    }
    const criteria = await tx.tasks.criteria(task.id);
    const stale = criteria.flatMap((c) => {
      const why = unnamed ? null : staleTick(c, tree);
      return why ? [{ n: c.n, text: c.text, why }] : [];
    });
    const unmet: string[] = [
      // A criterion's text is its author's: quoted and cut, as any value in a refusal.
      ...criteria
        .filter((c) => !c.checked)
        .map((c) => `criterion ${c.n} unchecked: ${quoteValue(c.text, 120)}`),
      ...stale.map((c) => `criterion ${c.n} ${c.why}: ${quoteValue(c.text, 120)}`),
    ];
    if (unnamed)
      unmet.push(
        `the ${judged.some(hasCommand) ? "ticks" : "definition of done"} cannot be held to the tree being finished: ${unnamed}`,
      );
    if (criteria.length === 0 && !options.unverified) {
      unmet.push("it has no acceptance criteria (add some, or finish with --unverified, which is recorded)");
    }
    unmet.push(...doneFailures);
    // A task with parts (its children) is done when they are: an epic finished while one of them
    // was still open said "done" of work nobody had done.
    const openParts = (await tx.tasks.children(task.id)).filter(
      (child) => child.status !== "done" && child.status !== "dropped",
    );
    for (const part of openParts)
      unmet.push(`part ${part.id} is ${part.status}: ${quoteValue(part.title, 120)}`);
    const kinds: string[] = await tx.notes.kindsInScope(taskScope(task.id));
    const missingKinds = config.done.note_kinds.filter((kind) => !kinds.includes(kind));
    for (const kind of missingKinds) unmet.push(`definition of done: no ${kind} note on ${task.id}`);
    if (unmet.length > 0) {
      // Only the steps that meet what is unmet: a task missing a note alone was told to tick criteria.
      const steps = [
        ...(criteria.some((c) => !c.checked) || stale.length > 0
          ? [
              `tick what is met with check_task ${task.id}${stale.length > 0 ? " (all set (--all) checks again each tick that does not hold for this tree)" : ""}`,
            ]
          : []),
        ...(openParts.length > 0 ? ["finish (or drop) its open parts"] : []),
        ...(missingKinds.length > 0
          ? [`record a ${missingKinds.join(" and a ")} note scoped to ${task.id}`]
          : []),
      ];
      throw refuse(
        "done",
        `${task.id} cannot finish yet: ${unmet
          .slice(0, UNMET_SHOWN)
          .map((u, i) => `(${i + 1}) ${u}`)
          .join("; ")}${unmet.length > UNMET_SHOWN ? `; and ${unmet.length - UNMET_SHOWN} more` : ""}`,
        `${[...steps, steps.length > 0 ? "fix the rest" : "fix what is listed"].join("; ")}, then finish again`,
      );
    }
    // Done is verified when something cairn ran says so: a criterion's command its task's author
    // set, a shortcut of the definition of done, or a kept attempt for a milestone. Ticks of
    // text-only criteria are the holder's word, and so is a command the holder added itself, so a
    // finish that rests on them alone is recorded unverified, as a finish with no criteria is:
    // adding a criterion and ticking it hides nothing.
    const unverified =
      !criteria.some((c) => setsVerifiedDone(c, current)) && doneRan.length === 0 && !current.milestoneId;
    await tx.tasks.update(task.id, { status: "done", leaseAt: null, blockedReason: null, unverified }, now);
    await journal(tx, actor, now, "task.finish", task.id, {
      unverified,
      note: options.note ?? null,
      // cairn.toml is a file any agent in the checkout can write: what this finish was held to is
      // recorded with it, each shortcut as it ran, so a definition of done weakened before
      // finishing (a shortcut's argv made `true`) shows in the journal.
      // The tree they passed, as a tick names the tree its command passed.
      done: { shortcuts: config.done.shortcuts, note_kinds: config.done.note_kinds, ran: doneRan, tree },
    });
    return {
      kind: "done",
      task: (await tx.tasks.byId(task.id)) as TaskRecord,
      unverified,
    };
  });
}
