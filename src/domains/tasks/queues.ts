import { conflict, notFound, refuse, usageError } from "../../kernel/outcome.js";
import { readsAsShortId } from "../../kernel/short-id.js";
import { quoteValue } from "../../kernel/text.js";
import type { Store, Tx } from "../../store/store.js";
import type { QueueHead, QueueRecord } from "../../store/tasks.js";
import { type Actor, principalOf } from "../identity/actor.js";
import { requireTotalChars, TOTALS } from "../limits/limits.js";
import { journal, who } from "./common.js";

/** Starting with a letter or digit: a queue named "-x" reads as an option to `queue next` and the rest. */
const NAME = /^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,63}$/;

export interface QueuePosition {
  name: string;
  cursor: number;
  total: number;
  step: string | null;
  /** Who wrote the steps: a step is its author's text, not cairn's instruction. */
  added_by: string;
  finished: boolean;
}

/**
 * Who added the queue, from its `queue.add` event (looked up by action: other events may share
 * the subject). A queue whose event is gone (an import that dropped the journal) says so.
 */
async function authorOf(tx: Tx, name: string): Promise<string> {
  const [added] = await tx.journal.list({ subject: name, action: "queue.add", limit: 1 });
  return added ? who(tx, added.actor) : "unknown: the journal holds no queue.add for it";
}

/** A queue as a list shows it: its cursor and the step there. */
const headOf = (queue: QueueRecord): QueueHead => ({
  name: queue.name,
  cursor: queue.cursor,
  steps: queue.steps.length,
  step: queue.steps[queue.cursor] ?? null,
  createdAt: queue.createdAt,
});

const positionOf = async (tx: Tx, head: QueueHead): Promise<QueuePosition> => ({
  name: head.name,
  cursor: head.cursor,
  total: head.steps,
  step: head.step,
  added_by: await authorOf(tx, head.name),
  finished: head.cursor >= head.steps,
});

const position = (tx: Tx, queue: QueueRecord): Promise<QueuePosition> => positionOf(tx, headOf(queue));

async function load(tx: Tx, name: string): Promise<QueueRecord> {
  const queue = await tx.queues.byName(name);
  if (!queue) throw notFound(`no queue ${quoteValue(name)}`, "see `cairn queue list`");
  return queue;
}

/**
 * The most characters a queue's steps hold in all. Each step alone may hold 4 KiB and a queue a
 * thousand of them: a hundred such queues, which any writer may add, made every `queue list`
 * read 400 MB for 4.5 s. A checklist of fifty steps of a paragraph each is 20 KiB.
 */
export const MAX_QUEUE_CHARS = TOTALS.chars["queue steps"];

export async function addQueue(store: Store, actor: Actor, name: string, steps: string[], now: string) {
  if (!NAME.test(name))
    throw usageError(
      `queue name ${quoteValue(name)} must be 1-64 letters, digits, ., - or _, starting with a letter or digit`,
    );
  // Its events are journaled under its name: one named `T-4` wrote events about task T-4.
  if (readsAsShortId(name))
    throw usageError(
      `queue name ${quoteValue(name)} reads as an id`,
      "choose a name that is not an id (T-4, 7)",
    );
  if (steps.length === 0) throw usageError("a queue needs steps (--step, once per step, in order)");
  // An empty step is a slip (`--step "$UNSET"`): it showed as a step to do that says nothing.
  const blank = steps.findIndex((step) => step.trim() === "");
  if (blank >= 0) throw usageError(`step ${blank + 1} of ${steps.length} is empty`, "say what each step is");
  requireTotalChars(
    "a queue's steps",
    steps,
    MAX_QUEUE_CHARS,
    "say each step in a line or two and keep the details in a file a step names",
  );
  return store.write(async (tx) => {
    if (await tx.queues.byName(name)) throw conflict(`a queue named ${name} already exists`);
    await tx.queues.insert(name, steps, now);
    await journal(tx, actor, now, "queue.add", name, { steps: steps.length });
    return position(tx, await load(tx, name));
  });
}

export async function queueNext(store: Store, name: string) {
  return store.read(async (tx) => position(tx, await load(tx, name)));
}

/**
 * A page of the queues, each where its cursor is. Any writer adds queues: every one was read
 * whole to show its current step (100 queues of 60 steps of 4 KB: 0.71 s and 125 MB a list).
 */
export async function listQueues(
  store: Store,
  query: { limit: number; offset: number },
): Promise<{ queues: QueuePosition[]; total: number }> {
  return store.read(async (tx) => {
    const { queues, total } = await tx.queues.page(query);
    const positions: QueuePosition[] = [];
    for (const head of queues) positions.push(await positionOf(tx, head));
    return { queues: positions, total };
  });
}

/**
 * Move the cursor one step, once per key and caller: a retried call with the same key (a lost
 * reply, a restarted agent) finds the key recorded and changes nothing. A key is the caller's
 * own: shared by all, another agent's advance with the key one was about to send used it up, and
 * that agent's advance then answered "replayed" and moved nothing, as though it had.
 *
 * The caller is its principal (principalOf): an agent and the identities minted in its hands. A
 * scheduled agent's every run, a retry too, acts through a token minted for that run alone, so
 * keyed by the run's own id the retry of a run that had advanced advanced again, past a step
 * nobody did.
 */
export async function queueAdvance(store: Store, actor: Actor, name: string, key: string, now: string) {
  if (key.trim() === "") throw usageError("advance needs a key (--key), so a retry cannot advance twice");
  return store.write(async (tx) => {
    const queue = await load(tx, name);
    const caller = await principalOf(tx, actor.id);
    if (!(await tx.queues.claimKey(name, `${caller} ${key}`, now)))
      return { ...(await position(tx, queue)), replayed: true };
    if (queue.cursor >= queue.steps.length) {
      throw refuse(
        "queue",
        `queue ${name} is finished (${queue.steps.length} steps done)`,
        "nothing to advance",
      );
    }
    await tx.queues.setCursor(name, queue.cursor + 1);
    await journal(tx, actor, now, "queue.advance", name, { key, from: queue.cursor, to: queue.cursor + 1 });
    return { ...(await position(tx, await load(tx, name))), replayed: false };
  });
}
