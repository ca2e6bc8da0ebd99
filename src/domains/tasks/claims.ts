import { conflict, refuse } from "../../kernel/outcome.js";
import { quoteValue } from "../../kernel/text.js";
import type { Store, Tx } from "../../store/store.js";
import type { TaskRecord } from "../../store/tasks.js";
import { type Actor, lineageOf } from "../identity/actor.js";
import type { WorkspaceConfig } from "../workspace/config.js";
import { journal, loadTask, requireActiveAgent, requireHolder, who } from "./common.js";
import { outOfLineScope, wipCapOf } from "./scope.js";

/** Ready tasks this caller may take, best first. */
export function readyFor(tx: Tx, config: WorkspaceConfig, actor: Actor, limit: number, excluding?: string) {
  return tx.tasks.ready((task) => outOfLineScope(task, config, actor).length === 0, limit, excluding);
}

async function takeInstead(
  tx: Tx,
  config: WorkspaceConfig,
  actor: Actor,
  excluding: string,
): Promise<string> {
  const [other] = await readyFor(tx, config, actor, 1, excluding);
  return other
    ? `take ${other.id} (${quoteValue(other.title)}) instead: claim_task ${other.id}`
    : "no other task is ready for you now; ask the planner or wait for a dependency to finish";
}

/**
 * The atomic claim. Every rule is checked and the claim written inside one write transaction,
 * which holds the database's write lock from its first statement: of N processes racing for one
 * task exactly one finds it open, the others find it taken.
 */
export async function claimTask(
  store: Store,
  config: WorkspaceConfig,
  actor: Actor,
  raw: string,
  now: string,
) {
  return store.write(async (tx) => {
    await requireActiveAgent(tx, actor);
    const task = await loadTask(tx, raw);
    if (actor.grant === "ro") {
      throw refuse(
        "grant",
        `${actor.name} has a read-only grant: it may propose, not claim`,
        `ask on ${task.id} (ask), or propose its finish to the owner (finish_task ${task.id})`,
      );
    }
    if (task.status === "active" && task.owner === actor.id) {
      await tx.tasks.update(task.id, { leaseAt: now }, now);
      await journal(tx, actor, now, "task.renew", task.id);
      return { task, already: true };
    }
    if (task.owner && task.owner !== actor.id) {
      throw refuse(
        "claimed",
        `${task.id} is already claimed by ${await who(tx, task.owner)} since ${task.claimedAt}`,
        await takeInstead(tx, config, actor, task.id),
      );
    }
    if (task.status !== "open") {
      throw refuse(
        "status",
        `${task.id} is ${task.status}${task.blockedReason ? ` (${quoteValue(task.blockedReason, 200)})` : ""}; only open tasks can be claimed`,
        task.status === "blocked"
          ? await takeInstead(tx, config, actor, task.id)
          : `see \`cairn task ready\``,
      );
    }
    const unfinished = (await tx.tasks.dependencies(task.id)).filter(
      (dependency) => dependency.status !== "done" && dependency.status !== "dropped",
    );
    if (unfinished.length > 0) {
      const names = unfinished.map((d) => `${d.id} (${d.status}${d.owner ? `, ${d.owner}` : ""})`).join(", ");
      const readyDependency = (await readyFor(tx, config, actor, 1_000)).find((ready) =>
        unfinished.some((d) => d.id === ready.id),
      );
      throw refuse(
        "dependencies",
        `${task.id} waits on unfinished dependencies: ${names}`,
        readyDependency
          ? `take the dependency ${readyDependency.id} (${quoteValue(readyDependency.title)}) instead: claim_task ${readyDependency.id}`
          : await takeInstead(tx, config, actor, task.id),
      );
    }
    const outside = outOfLineScope(task, config, actor);
    if (outside.length > 0) {
      const roles = [...new Set(lineageOf(actor).map((m) => m.role))].join(", ");
      // Traces are the task author's text: quoted, cut short, the first few only.
      const shown = outside.slice(0, 3).map((path) => quoteValue(path, 120));
      const more = outside.length > shown.length ? ` (and ${outside.length - shown.length} more)` : "";
      throw refuse(
        "scope",
        `${task.id} touches ${shown.join(", ")}${more}, outside the scope of role ${roles}`,
        await takeInstead(tx, config, actor, task.id),
      );
    }
    await requireWipRoom(tx, config, actor);
    await tx.tasks.update(task.id, { status: "active", owner: actor.id, claimedAt: now, leaseAt: now }, now);
    await journal(tx, actor, now, "task.claim", task.id);
    return { task: (await tx.tasks.byId(task.id)) as TaskRecord, already: false };
  });
}

/** The agent's lowest WIP cap and the active tasks it holds, when it holds as many as that cap allows. */
export async function wipFull(
  tx: Tx,
  config: WorkspaceConfig,
  actor: Actor,
): Promise<{ cap: number; role: string; held: TaskRecord[] } | undefined> {
  const wip = wipCapOf(config, actor);
  if (wip === undefined) return undefined;
  const held = await tx.tasks.activeBy(actor.id);
  return held.length >= wip.cap ? { ...wip, held } : undefined;
}

/** Refused when the caller already holds as many active tasks as its lowest WIP cap allows. */
export async function requireWipRoom(tx: Tx, config: WorkspaceConfig, actor: Actor): Promise<void> {
  const full = await wipFull(tx, config, actor);
  if (full) {
    const held = full.held.map((t) => t.id).join(", ");
    throw refuse(
      "wip",
      `role ${full.role} may hold ${full.cap} active task(s); ${actor.name} holds ${held}`,
      `finish, block or release one of ${held} first`,
    );
  }
}

/** Give a task back to the board. Only its holder (or the workspace owner) may. */
export async function releaseTask(
  store: Store,
  actor: Actor,
  raw: string,
  reason: string | undefined,
  now: string,
) {
  return store.write(async (tx) => {
    const task = await loadTask(tx, raw);
    if (!task.owner) throw conflict(`${task.id} is not claimed (${task.status})`, "nothing to release");
    await requireHolder(tx, task, actor, "release");
    if (task.status !== "active" && task.status !== "blocked") {
      throw conflict(`${task.id} is ${task.status}; only a held task can be released`);
    }
    await tx.tasks.update(
      task.id,
      { status: "open", owner: null, claimedAt: null, leaseAt: null, blockedReason: null },
      now,
    );
    await journal(tx, actor, now, "task.release", task.id, { from: task.owner, reason: reason ?? null });
    return (await tx.tasks.byId(task.id)) as TaskRecord;
  });
}

const minutesBefore = (now: string, minutes: number) =>
  new Date(Date.parse(now) - minutes * 60_000).toISOString();

/** A lease is renewed at most this often, so renewing on every call does not flood the journal. */
export const renewEvery = (leaseMinutes: number) => Math.min(1, leaseMinutes / 10);

/**
 * "Every call by an owner renews its claims": a cheap read on every call, a write (and one
 * journal event) only when some lease has aged past the renewal step.
 */
export async function renewClaims(
  store: Store,
  config: WorkspaceConfig,
  actor: Actor,
  now: string,
): Promise<number> {
  const olderThan = minutesBefore(now, renewEvery(config.claims.lease_minutes));
  if (!(await store.read((tx) => tx.tasks.hasStaleLease(actor.id, olderThan)))) return 0;
  return store.write(async (tx) => {
    const renewed = await tx.tasks.renewLeases(actor.id, olderThan, now);
    if (renewed > 0) await journal(tx, actor, now, "task.lease_renew", actor.id, { renewed });
    return renewed;
  });
}

/**
 * Run `work` (a call that may outlast a lease: verify commands, a shortcut, a local agent, an
 * evaluator) with the caller's claims renewed meanwhile: an agent whose call cairn is still
 * working on is not silent, and a sweep must not take its task from it.
 */
export async function keepingLeases<T>(
  store: Store,
  config: WorkspaceConfig,
  actor: Actor,
  now: () => string,
  work: () => Promise<T>,
): Promise<T> {
  // One renewal at a time: on a slow store a renewal can outlast the interval, and renewals
  // started on top of it would queue for the write lock (and a pool's connections) ahead of the
  // call's own write when it ends.
  let renewing: Promise<unknown> | undefined;
  const renew = () => {
    if (renewing) return;
    renewing = renewClaims(store, config, actor, now())
      .catch(() => {})
      .finally(() => {
        renewing = undefined;
      });
  };
  const timer = setInterval(
    renew,
    // At most once a second, at most one timer's reach (a lease may be a hundred years).
    Math.min(Math.max(renewEvery(config.claims.lease_minutes) * 60_000, 1_000), 2 ** 31 - 1),
  );
  timer.unref();
  try {
    return await work();
  } finally {
    clearInterval(timer);
    // The call is over only when its renewal is: one still running would go on using the store
    // after the caller closed it (a renewal is a read, then a write, each queued on its own).
    await renewing;
  }
}

export interface Swept {
  task: string;
  owner: string;
  leaseAt: string | null;
  why: string;
}

/** Tasks held (active or blocked) by agents that were retired: they will never call again. */
async function retiredClaims(tx: Tx): Promise<{ task: TaskRecord; why: string }[]> {
  const found: { task: TaskRecord; why: string }[] = [];
  const retiredAt = new Map<string, string | null>();
  const page = 500;
  for (let offset = 0; ; offset += page) {
    const { tasks } = await tx.tasks.list({
      status: ["active", "blocked"],
      order: "created",
      limit: page,
      offset,
    });
    for (const task of tasks) {
      if (!task.owner) continue;
      if (!retiredAt.has(task.owner))
        retiredAt.set(task.owner, (await tx.agents.byId(task.owner))?.retiredAt ?? null);
      const at = retiredAt.get(task.owner);
      if (at) found.push({ task, why: `${await who(tx, task.owner)} was retired at ${at}` });
    }
    if (tasks.length < page) return found;
  }
}

/**
 * Release the claims of agents silent past `[claims] lease_minutes`, and at once every claim
 * (active or blocked) of a retired agent, each with why.
 */
export async function sweep(
  store: Store,
  config: WorkspaceConfig,
  actor: Actor,
  now: string,
): Promise<Swept[]> {
  const minutes = config.claims.lease_minutes;
  return store.write(async (tx) => {
    const released: Swept[] = [];
    const release = async (task: TaskRecord, why: string) => {
      const owner = task.owner as string;
      await tx.tasks.update(
        task.id,
        { status: "open", owner: null, claimedAt: null, leaseAt: null, blockedReason: null },
        now,
      );
      await journal(tx, actor, now, "task.swept", task.id, { owner, lease_at: task.leaseAt, why });
      released.push({ task: task.id, owner, leaseAt: task.leaseAt, why });
    };
    for (const { task, why } of await retiredClaims(tx)) await release(task, why);
    for (const task of await tx.tasks.staleClaims(minutesBefore(now, minutes))) {
      if (released.some((r) => r.task === task.id)) continue;
      await release(
        task,
        `${await who(tx, task.owner)} made no call since ${task.leaseAt} (lease ${minutes} min)`,
      );
    }
    return released;
  });
}
