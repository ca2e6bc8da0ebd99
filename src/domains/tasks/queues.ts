import { conflict, notFound, refuse, usageError } from "../../kernel/outcome.js";
import { readsAsShortId } from "../../kernel/short-id.js";
import { quoteValue } from "../../kernel/text.js";
import type { Store, Tx } from "../../store/store.js";
import type { QueueRecord } from "../../store/tasks.js";
import type { Actor } from "../identity/actor.js";
import { journal } from "./common.js";

const NAME = /^[a-zA-Z0-9_.-]{1,64}$/;

export interface QueuePosition {
  name: string;
  cursor: number;
  total: number;
  step: string | null;
  finished: boolean;
}

const position = (queue: QueueRecord): QueuePosition => ({
  name: queue.name,
  cursor: queue.cursor,
  total: queue.steps.length,
  step: queue.steps[queue.cursor] ?? null,
  finished: queue.cursor >= queue.steps.length,
});

async function load(tx: Tx, name: string): Promise<QueueRecord> {
  const queue = await tx.queues.byName(name);
  if (!queue) throw notFound(`no queue ${quoteValue(name)}`, "see `cairn queue list`");
  return queue;
}

export async function addQueue(store: Store, actor: Actor, name: string, steps: string[], now: string) {
  if (!NAME.test(name)) throw usageError(`queue name ${quoteValue(name)} must be letters, digits, ., - or _`);
  // Its events are journaled under its name: one named `T-4` wrote events about task T-4.
  if (readsAsShortId(name))
    throw usageError(
      `queue name ${quoteValue(name)} reads as an id`,
      "choose a name that is not an id (T-4, 7)",
    );
  if (steps.length === 0) throw usageError("a queue needs steps (--step, once per step, in order)");
  return store.write(async (tx) => {
    if (await tx.queues.byName(name)) throw conflict(`a queue named ${name} already exists`);
    await tx.queues.insert(name, steps, now);
    await journal(tx, actor, now, "queue.add", name, { steps: steps.length });
    return position(await load(tx, name));
  });
}

export async function queueNext(store: Store, name: string) {
  return store.read(async (tx) => position(await load(tx, name)));
}

export async function listQueues(store: Store) {
  return store.read(async (tx) => (await tx.queues.list()).map(position));
}

/**
 * Move the cursor one step, once per key: a retried call with the same key (a lost reply, a
 * restarted agent) finds the key recorded and changes nothing.
 */
export async function queueAdvance(store: Store, actor: Actor, name: string, key: string, now: string) {
  if (key.trim() === "") throw usageError("advance needs a key (--key), so a retry cannot advance twice");
  return store.write(async (tx) => {
    const queue = await load(tx, name);
    if (!(await tx.queues.claimKey(name, key, now))) return { ...position(queue), replayed: true };
    if (queue.cursor >= queue.steps.length) {
      throw refuse(
        "queue",
        `queue ${name} is finished (${queue.steps.length} steps done)`,
        "nothing to advance",
      );
    }
    await tx.queues.setCursor(name, queue.cursor + 1);
    await journal(tx, actor, now, "queue.advance", name, { key, from: queue.cursor, to: queue.cursor + 1 });
    return { ...position(await load(tx, name)), replayed: false };
  });
}
