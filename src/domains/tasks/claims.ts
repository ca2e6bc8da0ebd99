import { conflict, RefusedError, refuse } from "../../kernel/outcome.js";
import { quoteValue } from "../../kernel/text.js";
import { followingCancel, StopCause } from "../../kernel/until-stopped.js";
import type { Store, Tx } from "../../store/store.js";
import type { LeaseWindow, TaskRecord, TaskSummaryRecord } from "../../store/tasks.js";
import { type Actor, lineageOf, requireStillActive } from "../identity/actor.js";
import { authorLabels } from "../identity/labels.js";
import type { WorkspaceConfig } from "../workspace/config.js";
import { giveBackToBoard, journal, loadTask, requireActiveAgent, requireHolder, who } from "./common.js";
import { outOfLineScope, wipCapsOf } from "./scope.js";

/**
 * Unfinished dependencies a claim's refusal names at most. Any writer may make a task wait on a
 * thousand others, and naming them all made the refusal 17 KB; the rest are on `task show`.
 */
const DEPENDENCIES_NAMED = 10;

/** `T-2 (open), T-3 (active, dev1) and 998 more (1000 in all; …)`. */
function unfinishedList(unfinished: TaskSummaryRecord[], taskId: string): string {
  const named = unfinished
    .slice(0, DEPENDENCIES_NAMED)
    .map((d) => `${d.id} (${d.status}${d.owner ? `, ${d.owner}` : ""})`)
    .join(", ");
  const more = unfinished.length - DEPENDENCIES_NAMED;
  return more > 0
    ? `${named} and ${more} more (${unfinished.length} in all; \`cairn task show ${taskId}\`)`
    : named;
}

/** Ready tasks this caller may take, best first. */
export function readyFor(tx: Tx, config: WorkspaceConfig, actor: Actor, limit: number, excluding?: string) {
  return tx.tasks.ready((task) => outOfLineScope(task, config, actor).length === 0, limit, excluding);
}

/** readyFor as a list shows it: each task with who wrote it, since its title is their words. */
export async function readyWithAuthors(tx: Tx, config: WorkspaceConfig, actor: Actor, limit: number) {
  const tasks = await readyFor(tx, config, actor, limit);
  const label = await authorLabels(
    tx,
    tasks.map((task) => task.createdBy),
  );
  return tasks.map((task) => ({ ...task, author: label(task.createdBy) }));
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
      await tx.tasks.update(task.id, { leaseAt: await tx.tasks.leaseClock(now) }, now);
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
      const names = unfinishedList(unfinished, task.id);
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
    const leaseAt = await tx.tasks.leaseClock(now);
    await tx.tasks.update(task.id, { status: "active", owner: actor.id, claimedAt: now, leaseAt }, now);
    await journal(tx, actor, now, "task.claim", task.id);
    return { task: (await tx.tasks.byId(task.id)) as TaskRecord, already: false };
  });
}

/**
 * A full WIP cap: the member of the caller's line whose role sets it (the caller itself or an
 * ancestor), and the active tasks counted against it, with who holds each.
 */
export interface WipFull {
  cap: number;
  role: string;
  member: { id: string; name: string };
  held: { task: TaskSummaryRecord; holder: { id: string; name: string } }[];
}

/** Tasks listed at most in a WIP refusal; a cap lowered in cairn.toml may leave more held. */
const HELD_SHOWN = 10;

/** `T-3 (dev1), T-4 (dev1d)`: the tasks counted against a cap, with their holders. */
const heldList = (held: WipFull["held"], withHolders: boolean) => {
  const shown = held
    .slice(0, HELD_SHOWN)
    .map(({ task, holder }) => (withHolders ? `${task.id} (${holder.name})` : task.id))
    .join(", ");
  return held.length > HELD_SHOWN ? `${shown} (and ${held.length - HELD_SHOWN} more)` : shown;
};

/** Whether a cap full for `holderId` is another's (an ancestor's) or counts others' tasks. */
const countsLine = (full: WipFull, holderId: string) =>
  full.member.id !== holderId || full.held.some(({ holder }) => holder.id !== holderId);

/** `bob holds T-2`, or, counting a line, `dev1's line holds T-3 (dev1), T-4 (dev1d)`. */
export const wipHeldText = (full: WipFull, holderId: string) =>
  countsLine(full, holderId)
    ? `${full.member.name}'s line holds ${heldList(full.held, true)}`
    : `${full.member.name} holds ${heldList(full.held, false)}`;

/**
 * The first full WIP cap in the caller's line, nearest first, or undefined when every cap has
 * room. A member's cap counts the active tasks of the member and of every agent under it
 * (retired ones too, until a sweep releases their tasks): a child never exceeds its parent, so
 * an agent does not widen its cap by minting children to claim for it. Agents are few: one read
 * of them gives the line's descendants, and one indexed read per member counts its tasks.
 */
export async function wipFull(tx: Tx, config: WorkspaceConfig, actor: Actor): Promise<WipFull | undefined> {
  const caps = wipCapsOf(config, actor);
  if (caps.length === 0) return undefined;
  const agents = await tx.agents.list({ includeRetired: true });
  const nameOf = new Map(agents.map((agent) => [agent.id, agent.name]));
  nameOf.set(actor.id, actor.name);
  const childrenOf = new Map<string, string[]>();
  for (const agent of agents) {
    if (!agent.parentId) continue;
    const siblings = childrenOf.get(agent.parentId);
    if (siblings) siblings.push(agent.id);
    else childrenOf.set(agent.parentId, [agent.id]);
  }
  const activeOf = new Map<string, TaskSummaryRecord[]>();
  const activeBy = async (id: string) => {
    let held = activeOf.get(id);
    if (!held) {
      held = await tx.tasks.activeBy(id);
      activeOf.set(id, held);
    }
    return held;
  };
  for (const { id, role, cap } of caps) {
    const held: WipFull["held"] = [];
    // A loop in stored rows (never written by cairn) is walked once.
    const seen = new Set<string>();
    for (const queue = [id]; queue.length > 0; ) {
      const next = queue.shift() as string;
      if (seen.has(next)) continue;
      seen.add(next);
      for (const task of await activeBy(next))
        held.push({ task, holder: { id: next, name: nameOf.get(next) ?? next } });
      queue.push(...(childrenOf.get(next) ?? []));
    }
    if (held.length >= cap) return { cap, role, member: { id, name: nameOf.get(id) ?? id }, held };
  }
  return undefined;
}

/**
 * Refused when a claim would take past a WIP cap in the caller's line: its own role's, counting
 * its own tasks and those of the agents under it, or an ancestor's, counting that ancestor's line.
 */
export async function requireWipRoom(tx: Tx, config: WorkspaceConfig, actor: Actor): Promise<void> {
  const full = await wipFull(tx, config, actor);
  if (!full) return;
  const { cap, role, member } = full;
  const own = full.held.filter(({ holder }) => holder.id === actor.id);
  const others = full.held.filter(({ holder }) => holder.id !== actor.id);
  if (!countsLine(full, actor.id)) {
    const held = heldList(full.held, false);
    throw refuse(
      "wip",
      `role ${role} may hold ${cap} active task(s); ${actor.name} holds ${held}`,
      `finish, block or release one of ${held} first`,
    );
  }
  const whose =
    member.id === actor.id
      ? `${actor.name} and the agents under it`
      : `${member.name} (${member.id}, above ${actor.name}) and every agent under it`;
  const mine = own.length > 0 ? `finish, block or release one of ${heldList(own, false)} first` : "";
  const wait =
    others.length > 0
      ? `wait until ${others.length > 1 ? "one of " : ""}${heldList(others, true)} is finished, blocked or released by its holder`
      : "";
  throw refuse(
    "wip",
    `role ${role} lets ${whose} hold ${cap} active task(s) in all; ${wipHeldText(full, actor.id)}`,
    mine && wait ? `${mine}, or ${wait}` : mine || wait,
  );
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
    await giveBackToBoard(tx, task, now);
    await journal(tx, actor, now, "task.release", task.id, { from: task.owner, reason: reason ?? null });
    return (await tx.tasks.byId(task.id)) as TaskRecord;
  });
}

export const minutesBefore = (now: string, minutes: number) =>
  new Date(Date.parse(now) - minutes * 60_000).toISOString();

/**
 * How far ahead of the reading clock a lease may be stamped and still count: machines sharing a
 * store disagree a little, and one whose clock is slow must not take everyone's fresh leases for
 * forged ones. Never less than the lease itself.
 */
const CLOCK_AHEAD_MINUTES = 60;

/** The most a lease of `leaseMinutes` may be stamped ahead of the clock that reads it. */
export const aheadTolerated = (leaseMinutes: number) => Math.max(leaseMinutes, CLOCK_AHEAD_MINUTES);

/**
 * Lease stamps that still say their holder is alive at `now`: made within `minutes` before it,
 * and no further ahead of it than `aheadTolerated`. A stamp further ahead is no sign of life but
 * of a clock that ran ahead (another machine's, on a shared store, or a process given a false
 * one): taken at its word, a claim stamped a year ahead stayed held past every sweep.
 */
export const liveLeases = (now: string, minutes: number, leaseMinutes = minutes): LeaseWindow => ({
  from: minutesBefore(now, minutes),
  to: minutesBefore(now, -aheadTolerated(leaseMinutes)),
});

/** A lease is renewed at most this often, so renewing on every call does not flood the journal. */
export const renewEvery = (leaseMinutes: number) => Math.min(1, leaseMinutes / 10);

/** How often a long call looks whether its caller may still act (was not retired meanwhile). */
export const CALLER_LOOK_MS = 5_000;

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
  // Judged and stamped by the lease clock: the server's on a shared store (see leaseClock).
  const freshAt = (clock: string) =>
    liveLeases(clock, renewEvery(config.claims.lease_minutes), config.claims.lease_minutes);
  const stale = await store.read(async (tx) =>
    tx.tasks.hasStaleLease(actor.id, freshAt(await tx.tasks.leaseClock(now))),
  );
  if (!stale) return 0;
  return store.write(async (tx) => {
    const clock = await tx.tasks.leaseClock(now);
    const renewed = await tx.tasks.renewLeases(actor.id, freshAt(clock), clock);
    if (renewed > 0) await journal(tx, actor, now, "task.lease_renew", actor.id, { renewed });
    return renewed;
  });
}

/**
 * Run `work` (a call that may outlast a lease: verify commands, a shortcut, a local agent, an
 * evaluator) with the caller's claims renewed meanwhile: an agent whose call cairn is still
 * working on is not silent, and a sweep must not take its task from it. Each renewal first looks
 * whether the caller may still act: one retired meanwhile (or whose line was) has its call
 * cancelled as a cancel would (what it started is stopped, its run records why), and the call
 * ends refused, as the call itself would be had it started now. The caller is looked at every
 * few seconds, not only at each renewal (a minute apart with the default lease): a retired
 * agent's shortcut ran on to its end, and was recorded as its run.
 */
export async function keepingLeases<T>(
  store: Store,
  config: WorkspaceConfig,
  actor: Actor,
  now: () => string,
  work: (signal: AbortSignal) => Promise<T>,
  cancel?: AbortSignal,
): Promise<T> {
  const { own: stop, release } = followingCancel(cancel);
  let retired: RefusedError | undefined;
  // At most once a second, at most one timer's reach (a lease may be a hundred years).
  const renewalMs = Math.min(Math.max(renewEvery(config.claims.lease_minutes) * 60_000, 1_000), 2 ** 31 - 1);
  let renewedAt = Date.now();
  const tick = async () => {
    try {
      // One indexed read a look, not per call: the start of the call made the same check.
      await requireStillActive(store, actor);
    } catch (thrown) {
      if (!(thrown instanceof RefusedError)) throw thrown; // a busy store: look again next time
      retired = thrown;
      stop.abort(new StopCause(`its caller may no longer act: ${thrown.refusal.reason}`));
      return; // a retired caller's leases are not its to keep: the sweep releases them
    }
    if (Date.now() - renewedAt < renewalMs) return;
    renewedAt = Date.now();
    await renewClaims(store, config, actor, now());
  };
  // One renewal at a time: on a slow store a renewal can outlast the interval, and renewals
  // started on top of it would queue for the write lock (and a pool's connections) ahead of the
  // call's own write when it ends.
  let renewing: Promise<unknown> | undefined;
  const renew = () => {
    if (renewing || retired) return;
    renewing = tick()
      .catch(() => {})
      .finally(() => {
        renewing = undefined;
      });
  };
  const timer = setInterval(renew, Math.min(renewalMs, CALLER_LOOK_MS));
  timer.unref();
  try {
    return await work(stop.signal);
  } catch (thrown) {
    // Cancelled (or refused at its end) because its caller was retired: say that, not "cancelled".
    throw retired ?? thrown;
  } finally {
    clearInterval(timer);
    release();
    // The call is over only when its renewal is: one still running would go on using the store
    // after the caller closed it (a renewal is a read, then a write, each queued on its own).
    await renewing;
  }
}
