import type { AgentRecord, Store, Tx } from "../../store/store.js";
import type { HeldTaskRecord, TaskRecord } from "../../store/tasks.js";
import { type Actor, ancestorsOf } from "../identity/actor.js";
import type { WorkspaceConfig } from "../workspace/config.js";
import { aheadTolerated, liveLeases } from "./claims.js";
import { giveBackToBoard, who } from "./common.js";

/**
 * Claims given back without their holder: a lease gone silent, an agent retired, a run's minted
 * identity at the run's end. Each release is journaled with why.
 */

/** Held tasks read per page. */
const PAGE = 500;

export interface Swept {
  task: string;
  owner: string;
  leaseAt: string | null;
  why: string;
}

/**
 * The retired agent that ends this holder's authority, if any: itself, or an ancestor (a child a
 * run's identity minted, left active below it by an older cairn, acts no more either).
 */
async function retiredIn(tx: Tx, holderId: string): Promise<AgentRecord | undefined> {
  const holder = await tx.agents.byId(holderId);
  if (!holder) return undefined;
  return [holder, ...(await ancestorsOf(tx, holder))].find((agent) => agent.retiredAt);
}

/** Tasks held (active or blocked) by agents that were retired: they will never call again. */
async function retiredClaims(tx: Tx): Promise<{ task: HeldTaskRecord; why: string }[]> {
  const found: { task: HeldTaskRecord; why: string }[] = [];
  const retiredAt = new Map<string, AgentRecord | undefined>();
  for (let offset = 0; ; offset += PAGE) {
    const { tasks } = await tx.tasks.listHeld({
      status: ["active", "blocked"],
      order: "created",
      limit: PAGE,
      offset,
    });
    for (const task of tasks) {
      if (!task.owner) continue;
      if (!retiredAt.has(task.owner)) retiredAt.set(task.owner, await retiredIn(tx, task.owner));
      const retired = retiredAt.get(task.owner);
      if (!retired) continue;
      const whose = retired.id === task.owner ? "" : `'s ancestor ${retired.name} (${retired.id})`;
      found.push({ task, why: `${await who(tx, task.owner)}${whose} was retired at ${retired.retiredAt}` });
    }
    if (tasks.length < PAGE) return found;
  }
}

/**
 * Give a held task back to the board without its holder, journaled with why: all it needs of the
 * task is its id, holder and lease (stale claims are read as held tasks, not whole).
 */
async function giveBack(
  tx: Tx,
  task: Pick<TaskRecord, "id" | "owner" | "leaseAt">,
  actorId: string,
  now: string,
  why: string,
): Promise<Swept> {
  const owner = task.owner as string;
  // Read whole for its block: one the owner put outlasts the claim, as on a release.
  const whole = await tx.tasks.byId(task.id);
  await giveBackToBoard(tx, whole ?? { id: task.id, status: "open", blockedReason: null }, now);
  await tx.journal.append({
    at: now,
    actor: actorId,
    action: "task.swept",
    subject: task.id,
    data: { owner, lease_at: task.leaseAt, why },
  });
  return { task: task.id, owner, leaseAt: task.leaseAt, why };
}

/**
 * Release every claim (active or blocked) an agent held, in the caller's transaction: for a run's
 * minted identity as the run ends. Its token acts no more, so its tasks would stay held under a
 * retired agent, counted against its parent's WIP cap and closed to everyone, until a sweep.
 */
export async function releaseClaimsOf(
  tx: Tx,
  agentId: string,
  actorId: string,
  now: string,
  why: string,
): Promise<Swept[]> {
  const released: Swept[] = [];
  for (;;) {
    // Always the first page: the tasks just released no longer match.
    const { tasks } = await tx.tasks.listHeld({
      status: ["active", "blocked"],
      owner: agentId,
      order: "created",
      limit: PAGE,
      offset: 0,
    });
    for (const task of tasks) released.push(await giveBack(tx, task, actorId, now, why));
    if (tasks.length < PAGE) return released;
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
    const release = async (task: Pick<TaskRecord, "id" | "owner" | "leaseAt">, why: string) =>
      released.push(await giveBack(tx, task, actor.id, now, why));
    for (const { task, why } of await retiredClaims(tx)) await release(task, why);
    // The lease clock: a sweeper whose own clock runs fast must not take live claims for silent ones.
    const clock = await tx.tasks.leaseClock(now);
    const live = liveLeases(clock, minutes);
    for (const task of await tx.tasks.staleClaims(live)) {
      if (released.some((r) => r.task === task.id)) continue;
      const holder = await who(tx, task.owner);
      await release(
        task,
        (task.leaseAt ?? "") > live.to
          ? `${holder} holds a lease stamped ${task.leaseAt}, ahead of the lease clock (${clock}) by more than ${aheadTolerated(minutes)} min`
          : `${holder} made no call since ${task.leaseAt} (lease ${minutes} min)`,
      );
    }
    return released;
  });
}
