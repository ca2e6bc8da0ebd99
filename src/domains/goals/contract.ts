import { z } from "zod";
import { notFound, refuse, usageError } from "../../kernel/outcome.js";
import { shortIdStart } from "../../kernel/short-id.js";
import { quoteValue } from "../../kernel/text.js";
import type { GoalFields, GoalRecord, IdPage, ProofSpec, Store, Tx } from "../../store/store.js";
import { DEFAULT_ITEMS, TOTALS } from "../limits/limits.js";
import { draftContract } from "./draft.js";

export const PROOF_NAME = /^[a-z][a-z0-9_-]{0,47}$/;

export const ProofInput = z.object({
  name: z.string().regex(PROOF_NAME, "proof names are lowercase letters, digits, - and _"),
  direction: z.enum(["higher", "lower"]).optional().describe("which way is better"),
  threshold: z.number().nullable().optional().describe("the bar a measurement must reach"),
  manual: z.boolean().optional().describe("judged by a report, not measured"),
  description: z.string().optional(),
});
export type ProofInput = z.infer<typeof ProofInput>;

/** What the contract still lacks before a run can be frozen (blocking) or that deserves a look. */
export function openQuestions(fields: GoalFields): { blocking: string[]; advisory: string[] } {
  const blocking: string[] = [];
  const advisory: string[] = [];
  if (!fields.outcome) blocking.push("outcome: what is observably true when the goal is met");
  for (const proof of fields.proofs) {
    if (proof.threshold === null)
      blocking.push(`proofs.${proof.name}.threshold (direction: ${proof.direction})`);
  }
  if (fields.proofs.length === 0) blocking.push("proofs: at least one");
  if (fields.constraints.length === 0)
    advisory.push("constraints: limits the work must respect (or confirm none)");
  if (fields.nonGoals.length === 0) advisory.push("non_goals: what is explicitly out of scope");
  return { blocking, advisory };
}

export interface GoalChanges {
  goal?: string;
  outcome?: string | null;
  constraints?: string[];
  non_goals?: string[];
  proofs?: ProofInput[];
  remove_proofs?: string[];
}

/**
 * The most proofs one goal holds. Proofs are upserted over many calls, so no one call's list limit
 * bounds them; a milestone's task names every proof it gates, and past a few thousand that task's
 * context outgrew what a task's context holds, so every import of the workspace's export refused.
 */
export const MAX_PROOFS = DEFAULT_ITEMS;

/** Apply a refinement: proofs are upserted by name; removals name existing proofs. */
export function applyChanges(current: GoalFields, changes: GoalChanges): GoalFields {
  const proofs = current.proofs.map((proof) => ({ ...proof }));
  for (const name of changes.remove_proofs ?? []) {
    const index = proofs.findIndex((proof) => proof.name === name);
    if (index < 0) throw unknownProof(name, current.proofs);
    proofs.splice(index, 1);
  }
  for (const input of changes.proofs ?? []) {
    const existing = proofs.find((proof) => proof.name === input.name);
    if (existing) {
      if (input.direction) existing.direction = input.direction;
      if (input.threshold !== undefined) existing.threshold = input.threshold;
      if (input.manual !== undefined) existing.manual = input.manual;
      if (input.description !== undefined) existing.description = input.description;
    } else {
      proofs.push({
        name: input.name,
        direction: input.direction ?? "higher",
        threshold: input.threshold ?? null,
        manual: input.manual ?? false,
        description: input.description ?? "",
      });
    }
  }
  // Only what grew past the cap is refused: a contract already over it (an older workspace) may
  // still change or shed proofs.
  if (proofs.length > MAX_PROOFS && proofs.length > current.proofs.length) {
    throw refuse(
      "proofs",
      `a goal holds at most ${MAX_PROOFS} proofs; this change would leave it ${proofs.length}`,
      "remove proofs (--remove-proofs) first, or split the work into another goal",
    );
  }
  const goal = changes.goal?.trim() ?? current.goal;
  if (goal === "") throw usageError("goal: must not be empty");
  const next: GoalFields = {
    goal,
    outcome: changes.outcome !== undefined ? changes.outcome || null : current.outcome,
    constraints: changes.constraints ?? current.constraints,
    nonGoals: changes.non_goals ?? current.nonGoals,
    proofs,
  };
  const size = contractChars(next);
  if (size > MAX_CONTRACT_CHARS && size > contractChars(current)) {
    throw refuse(
      "contract",
      `a goal contract holds at most ${MAX_CONTRACT_CHARS} characters (as JSON); this change would make it ${size}`,
      "shorten the outcome, constraints, non-goals or proof descriptions; keep long material in a note (`cairn note add ref`)",
    );
  }
  return next;
}

/**
 * The most characters a contract holds, as JSON. Each field has its own limit, but a list of a
 * thousand texts of 256 KiB does too: every `now` and `goal list` reads each goal's contract, and
 * a few updates carrying long proof descriptions made those answers take seconds and hundreds of
 * megabytes for everyone. Three texts at their limit fit, with room for the rest.
 */
export const MAX_CONTRACT_CHARS = TOTALS.chars["goal contract, as JSON"];

const contractChars = ({ goal, outcome, constraints, nonGoals, proofs }: GoalFields) =>
  JSON.stringify({ goal, outcome, constraints, nonGoals, proofs }).length;

export function unknownProof(name: string, proofs: readonly ProofSpec[]) {
  const valid = proofs.map((proof) => proof.name).join(", ") || "(none)";
  return refuse(
    "proofs",
    `"${name}" is not a proof of this contract; its proofs are: ${valid}`,
    "use one of the contract's proof names, or add the proof with `goal update`",
  );
}

/**
 * A goal's aim, outcome, proofs and plan are its author's, as a task's plan is (SPEC §3: only an
 * owner mutates what it owns), or the workspace owner's and a planning role's: another agent
 * rewrote the outcome of a draft it did not write, and the draft's author froze what it had not read.
 */
export function requireGoalAuthor(goal: GoalRecord, actor: string, mayPlan: boolean, what: string): void {
  if (mayPlan || goal.createdBy === actor) return;
  throw refuse(
    "ownership",
    `${goal.id} was written by ${goal.createdBy}; only its author, the workspace owner or a role granted planning may ${what} it`,
    'ask the owner to change it (a question on a task: `cairn ask T-n "…"`), or draft a goal of your own (`cairn goal create`)',
  );
}

export async function goalOrThrow(tx: Tx, id: string): Promise<GoalRecord> {
  const goal = await tx.goals.goal(id);
  if (!goal) throw notFound(`no goal ${quoteValue(id)}`, "`cairn goal list` shows the goals");
  return goal;
}

/**
 * Goal ids that start with what was typed, lowest number first, with how many there are: `G-1`,
 * `g-1` and `1` each offer G-1 and G-10…, as each of them names a goal wherever an id is read.
 */
export async function goalIdsStartingWith(store: Store, typed: string, limit: number): Promise<IdPage> {
  const prefix = shortIdStart(typed, "G");
  if (prefix === undefined) return { ids: [], total: 0 };
  return store.read((tx) => tx.goals.idsStartingWith(prefix, limit));
}

export async function createGoal(store: Store, vague: string, actor: string, at: string) {
  if (vague.trim() === "") throw usageError("goal: describe the goal in a few words");
  const draft = draftContract(vague);
  const goal = await store.write(async (tx) => {
    const goal = await tx.goals.insertGoal(draft.fields, actor, at);
    await tx.journal.append({
      at,
      actor,
      action: "goal.create",
      subject: goal.id,
      data: { goal: goal.goal },
    });
    return goal;
  });
  return { goal, matched: draft.matched };
}

/** The parts of a contract that define success: changing them after a freeze needs planning authority. */
const SUCCESS_FIELDS = ["proofs"] as const;
/** What the contract is for and how it is judged: its author's (requireGoalAuthor). */
const AUTHORS_FIELDS = ["goal", "outcome", "proofs"] as const;

/** Which top-level contract fields differ. */
export function changedFields(before: GoalFields, after: GoalFields): string[] {
  const fields: (keyof GoalFields)[] = ["goal", "outcome", "constraints", "nonGoals", "proofs"];
  return fields.filter((field) => JSON.stringify(before[field]) !== JSON.stringify(after[field]));
}

/**
 * What a change did to a contract: each field it changed, before and after, and of the proofs only
 * those it added, changed or removed (a proof only before was removed, only after was added). The
 * whole contract twice per change made a one-threshold tweak of a contract holding long proof
 * descriptions store 26 MB, and `goal show`, which lists the history, grew past what it can answer.
 */
export function contractDelta(
  before: GoalFields,
  after: GoalFields,
): { before: Partial<GoalFields>; after: Partial<GoalFields> } {
  const delta = { before: {} as Record<string, unknown>, after: {} as Record<string, unknown> };
  for (const field of changedFields(before, after) as (keyof GoalFields)[]) {
    if (field === "proofs") continue;
    delta.before[field] = before[field];
    delta.after[field] = after[field];
  }
  const byName = (proofs: readonly ProofSpec[]) =>
    new Map(proofs.map((proof) => [proof.name, JSON.stringify(proof)]));
  const [was, is] = [byName(before.proofs), byName(after.proofs)];
  const proofsBefore = before.proofs.filter((proof) => is.get(proof.name) !== was.get(proof.name));
  const proofsAfter = after.proofs.filter((proof) => was.get(proof.name) !== is.get(proof.name));
  if (proofsBefore.length + proofsAfter.length > 0) {
    delta.before.proofs = proofsBefore;
    delta.after.proofs = proofsAfter;
  }
  return delta as { before: Partial<GoalFields>; after: Partial<GoalFields> };
}

/**
 * Refine a contract. Once the goal has a frozen run, changing its proofs (thresholds,
 * directions, manual flags, adding or removing one) needs `mayPlan` (the owner, or a role granted
 * planning): a builder must not lower the bar it is judged by. Every change is kept as history.
 */
export async function updateGoal(
  store: Store,
  id: string,
  changes: GoalChanges,
  actor: string,
  at: string,
  mayPlan: boolean,
) {
  return store.write(async (tx) => {
    const current = await goalOrThrow(tx, id);
    const next = applyChanges(current, changes);
    const fields = changedFields(current, next);
    const frozen = (await tx.goals.runs(id)).at(-1);
    if (frozen && !mayPlan && fields.some((field) => (SUCCESS_FIELDS as readonly string[]).includes(field))) {
      throw refuse(
        "planning",
        `${id} has a frozen run (${frozen.id}): changing its proofs changes what success means, which only the workspace owner or a role granted planning may do`,
        "ask the owner to change the contract, or to set `planning = true` on your role in cairn.toml",
      );
    }
    // Constraints and non-goals are not the bar: any writer may note them, attributed in briefs.
    if (fields.some((field) => (AUTHORS_FIELDS as readonly string[]).includes(field)))
      requireGoalAuthor(current, actor, mayPlan, "change the goal, outcome or proofs of");
    for (const milestone of await tx.goals.milestones(id)) {
      const lost = milestone.proofs.filter((name) => !next.proofs.some((proof) => proof.name === name));
      if (lost.length > 0) {
        throw refuse(
          "plan",
          `milestone ${milestone.key} (${milestone.id}) owns ${lost.join(", ")}`,
          `re-plan without it first (\`cairn goal plan ${id}\`), then remove the proof`,
        );
      }
    }
    const goal = await tx.goals.updateGoal(id, next, at);
    if (fields.length > 0) {
      await tx.goals.insertContractChange({
        goalId: id,
        changedBy: actor,
        at,
        fields,
        ...contractDelta(current, next),
      });
    }
    await tx.journal.append({
      at,
      actor,
      action: "goal.update",
      subject: id,
      // Names, not texts: the contract's history keeps what changed, and `activity` and `now` hand
      // the journal's recent lines to every agent. The whole input here let one update of a few
      // hundred long proof descriptions make each of those answers over 100 MB.
      data: {
        fields,
        proofs: (changes.proofs ?? []).map((proof) => proof.name),
        remove_proofs: changes.remove_proofs ?? [],
      },
    });
    return goal;
  });
}
