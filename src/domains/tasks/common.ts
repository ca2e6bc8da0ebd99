import { notFound, refuse, usageError } from "../../kernel/outcome.js";
import { quoteValue } from "../../kernel/text.js";
import type { Tx } from "../../store/store.js";
import type { Estimate, TaskRecord } from "../../store/tasks.js";
import { type Actor, OWNER } from "../identity/actor.js";

/** `T-12`, `t-12` and `12` all name task T-12. */
export function taskId(raw: string): string {
  const trimmed = raw.trim();
  if (/^\d+$/.test(trimmed)) return `T-${trimmed}`;
  if (/^t-\d+$/i.test(trimmed)) return `T-${trimmed.slice(2)}`;
  throw usageError(`${quoteValue(raw)} is not a task id`, "task ids look like T-12");
}

export async function loadTask(tx: Tx, raw: string): Promise<TaskRecord> {
  const id = taskId(raw);
  const task = await tx.tasks.byId(id);
  if (!task) throw notFound(`no task ${id}`, "see `cairn task list`");
  return task;
}

/** `A-3 (alice)` for an agent id, `owner` for the workspace owner. */
export async function who(tx: Tx, id: string | null): Promise<string> {
  if (!id) return "nobody";
  if (id === "owner") return "owner";
  const agent = await tx.agents.byId(id);
  return agent ? `${id} (${agent.name})` : id;
}

/** An agent retired after its server started must not act on the board any more. */
export async function requireActiveAgent(tx: Tx, actor: Actor): Promise<void> {
  if (actor.isOwner) return;
  const agent = await tx.agents.byId(actor.id);
  if (!agent || agent.retiredAt) {
    throw refuse(
      "identity",
      `agent ${actor.name} (${actor.id}) was retired${agent?.retiredAt ? ` at ${agent.retiredAt}` : ""}`,
      "ask the owner for a new agent token",
    );
  }
}

/** Only whoever holds a task (or the workspace owner) changes it; an unheld task is anyone's. */
export async function requireHolder(tx: Tx, task: TaskRecord, actor: Actor, what: string): Promise<void> {
  if (!task.owner || task.owner === actor.id || actor.isOwner) return;
  throw refuse(
    "ownership",
    `${task.id} is held by ${await who(tx, task.owner)}; only its holder may ${what} it`,
    // "ask" is also a tool's name: followed by an agent id it would read as a call to it.
    `ask its holder, ${await who(tx, task.owner)}, with \`cairn ask ${task.id} "your question"\`, or take another task (\`cairn task ready\`)`,
  );
}

/**
 * A part asks more of its epic, as a dependency does: an open part keeps an epic its holder is
 * working on (active or blocked) from finishing, so only that holder (or the owner) puts one
 * there. A finished or dropped epic holds no one back.
 */
export async function requireEpicHolder(tx: Tx, epic: TaskRecord, actor: Actor): Promise<void> {
  if (epic.status === "active" || epic.status === "blocked")
    await requireHolder(tx, epic, actor, "add a part to");
}

/**
 * Whether what `task` waits for is `actor`'s to decide as the task's own plan: its holder's, or,
 * while no one holds it, its author's or the workspace owner's. `task block` and `reopen` also
 * let the owner act on a task an agent holds (requireHolder), as an override of its holder; a
 * question (`ask`) blocks a task only when its asker decides this.
 */
export function decidesPlan(
  task: Pick<TaskRecord, "owner" | "createdBy">,
  actor: Pick<Actor, "id" | "isOwner">,
): boolean {
  return task.owner ? task.owner === actor.id : actor.isOwner || task.createdBy === actor.id;
}

/**
 * What a task waits for, and whether it is wanted at all, are its author's plan. A held task is
 * its holder's (requireHolder); an unheld one may be cleared of a dependency or dropped only by
 * its author or the workspace owner: anyone else doing it would be lifting the very gate a
 * claim was refused on (remove T-34 from T-35's dependencies, or drop T-34, then claim T-35).
 */
export async function requirePlanAuthority(
  tx: Tx,
  task: TaskRecord,
  actor: Actor,
  what: string,
): Promise<void> {
  if (decidesPlan(task, actor)) return;
  // The workspace owner may still act on a task an agent holds: an override, refused to the rest.
  if (task.owner) return requireHolder(tx, task, actor, what);
  const author = await who(tx, task.createdBy);
  throw refuse(
    "ownership",
    `${task.id} was written by ${author}; only its author or the workspace owner may ${what} it while no one holds it`,
    `ask ${task.createdBy === OWNER.id ? "the owner" : `its author, ${author}, or the owner`} with \`cairn ask ${task.id} "your reason"\`, or take another task (\`cairn task ready\`)`,
  );
}

/**
 * The most hours one point of an estimate may hold (over a century of work): past it, the PERT
 * mean of three such points is no number at all, and a task carrying it could not be shown.
 */
export const MAX_ESTIMATE_HOURS = 1_000_000;

/** A three-point estimate, "optimistic,probable,pessimistic"; one number alone is not an estimate. */
export function parseEstimate(text: string | undefined): Estimate | null {
  if (text === undefined || text.trim() === "") return null;
  const parts = text.split(/[,/ ]+/).filter((part) => part !== "");
  const numbers = parts.map(Number);
  if (parts.length !== 3 || numbers.some((n) => !Number.isFinite(n) || n < 0)) {
    throw usageError(
      `estimate ${quoteValue(text)} is not a three-point estimate`,
      'give optimistic,probable,pessimistic hours, e.g. "1,2,5"',
    );
  }
  if (numbers.some((n) => n > MAX_ESTIMATE_HOURS)) {
    throw usageError(
      `estimate ${quoteValue(text)} is out of range: each point is at most ${MAX_ESTIMATE_HOURS} hours`,
      'give optimistic,probable,pessimistic hours, e.g. "1,2,5"',
    );
  }
  const [optimistic, probable, pessimistic] = numbers as [number, number, number];
  if (!(optimistic <= probable && probable <= pessimistic)) {
    throw usageError(
      `estimate ${quoteValue(text)} is out of order`,
      "optimistic ≤ probable ≤ pessimistic, e.g. 1,2,5",
    );
  }
  return { optimistic, probable, pessimistic };
}

/** The PERT mean of a three-point estimate. */
export const expected = (e: Estimate) =>
  Math.round(((e.optimistic + 4 * e.probable + e.pessimistic) / 6) * 100) / 100;

export async function journal(
  tx: Tx,
  actor: Actor,
  at: string,
  action: string,
  subject: string,
  data: Record<string, unknown> = {},
): Promise<void> {
  await tx.journal.append({ at, actor: actor.id, action, subject, data });
}

/**
 * Whether the stop a task is under is one the workspace owner put: blocked with `task block` (the
 * latest block journaled for it is the owner's and gave the reason it carries now; a block a
 * question, its holder or a full WIP cap put since carries another), or dropped by the owner. An
 * override of the agents it stops: lifted by the owner alone.
 */
async function stoppedByOwner(
  tx: Tx,
  task: Pick<TaskRecord, "id" | "status" | "blockedReason">,
): Promise<boolean> {
  const action = task.status === "blocked" ? "task.block" : task.status === "dropped" ? "task.drop" : null;
  if (!action) return false;
  const [latest] = await tx.journal.list({ subject: task.id, action, limit: 1 });
  if (latest?.actor !== OWNER.id) return false;
  return action === "task.drop" || latest.data.reason === task.blockedReason;
}

/**
 * Give a held task back to the board without its holder (a release, a sweep): open, or still
 * blocked when the block is the owner's; given back open, any agent claimed it past the block.
 */
export async function giveBackToBoard(
  tx: Tx,
  task: Pick<TaskRecord, "id" | "status" | "blockedReason">,
  now: string,
): Promise<void> {
  const stays = (await stoppedByOwner(tx, task)) ? task.blockedReason : null;
  const freed = { owner: null, claimedAt: null, leaseAt: null };
  await tx.tasks.update(task.id, { ...freed, status: stays ? "blocked" : "open", blockedReason: stays }, now);
}

/** Refused unless the caller is the owner or the task is under no stop the owner put. */
export async function requireOwnersStopKept(
  tx: Tx,
  task: TaskRecord,
  actor: Actor,
  what: string,
): Promise<void> {
  if (actor.isOwner || !(await stoppedByOwner(tx, task))) return;
  const why = task.blockedReason ? ` (${quoteValue(task.blockedReason, 200)})` : "";
  throw refuse(
    "ownership",
    `${task.id} was ${task.status} by the workspace owner${why}; only the owner may ${what} it while that stands`,
    `ask the owner with \`cairn ask ${task.id} "your question"\`, or take another task (\`cairn task ready\`)`,
  );
}
