import { crypto } from "../../kernel/builtins.js";
import { refuse } from "../../kernel/outcome.js";
import type { AgentRecord, Store, Tx } from "../../store/store.js";
import { activeDescendantsOf, ancestorsOf, OWNER } from "./actor.js";
import { hashToken, newToken } from "./tokens.js";

/**
 * When a child process must act on the board (a local agent whose manifest names a `[cairn]
 * identity`), it gets a token of its own: a child agent of the one it acts for (same role and
 * grant, never wider), minted for this run and retired when the run ends. The caller's own token
 * never reaches a child.
 */

/** A token minted for one run of a child process, and the way to revoke it when the run ends. */
export interface RunIdentity {
  agent: AgentRecord;
  /** Give it to the child as CAIRN_AGENT; it is never stored (only its hash is). */
  token: string;
  /** Retire the run's agent; safe to call more than once. */
  retire(now: string): Promise<void>;
}

/** Insert the run's agent as a child of `parent`, with its role and grant, and journal it. */
async function insertRunAgent(
  tx: Tx,
  parent: AgentRecord,
  name: string,
  purpose: string,
  token: string,
  now: string,
): Promise<AgentRecord> {
  const created = await tx.agents.insert(
    { name, role: parent.role, grant: parent.grant, parentId: parent.id, tokenHash: hashToken(token) },
    now,
  );
  await tx.journal.append({
    at: now,
    actor: parent.id,
    action: "agent.run_identity",
    subject: created.id,
    data: { name, purpose, parent: created.parentId, grant: created.grant },
  });
  return created;
}

function retirer(store: Store, agent: AgentRecord): RunIdentity["retire"] {
  let retired = false;
  return async (at) => {
    if (retired) return;
    retired = true;
    await retireRunIdentity(store, agent.id, at);
  };
}

/**
 * A run identity acting for a named agent (a manifest's `[cairn] identity`). `record` runs in the
 * same transaction, so the run that holds the token is known to whoever must retire it, even if
 * this process dies.
 */
export async function mintRunIdentityFor(
  store: Store,
  parentName: string,
  label: string,
  now: string,
  record?: (tx: Tx, agent: AgentRecord) => Promise<void>,
  actingFor: string = OWNER.id,
): Promise<RunIdentity> {
  const token = newToken();
  const agent = await store.write(async (tx) => {
    const parent = await identityFor(tx, parentName, actingFor);
    // Unguessable: agent names are one namespace, and any writer may add children, so a name
    // known in advance (the next run's id) could be taken first and every such run refused.
    const name = `${parent.name.slice(0, 32)}-run-${label.slice(0, 16)}-${crypto().randomBytes(4).toString("hex")}`;
    const created = await insertRunAgent(tx, parent, name, label, token, now);
    await record?.(tx, created);
    return created;
  });
  return { agent, token, retire: retirer(store, agent) };
}

/**
 * The agent a manifest's `[cairn] identity` names, if whoever has the run made may act as it: the
 * owner may name any agent; an agent only itself or one of its descendants. A writer able to put
 * an agent.toml on disk could otherwise name an agent of wider rights (another role's scope, a
 * reviewer of its own work) and have the run, whose command it wrote, act as that agent's child.
 */
export async function identityFor(tx: Tx, parentName: string, actingFor: string): Promise<AgentRecord> {
  const parent = await tx.agents.byName(parentName);
  if (!parent || parent.retiredAt) {
    throw refuse(
      "identity",
      `the cairn identity ${JSON.stringify(parentName)} ${parent ? "is retired" : "does not exist"}`,
      `add it with \`cairn agent add ${parentName} --role ROLE\`, or drop [cairn] identity from the manifest`,
    );
  }
  if (actingFor === OWNER.id || parent.id === actingFor) return parent;
  if (!(await ancestorsOf(tx, parent)).some((ancestor) => ancestor.id === actingFor)) {
    throw refuse(
      "identity",
      `the cairn identity ${JSON.stringify(parentName)} is neither ${actingFor} nor one of its descendants, so a run ${actingFor} has made may not act as it`,
      `name ${actingFor} or a child of it in [cairn] identity, or have the owner (or the daemon the owner runs) make the run`,
    );
  }
  return parent;
}

/**
 * Whether a manifest's `[cairn] identity` names an agent, active, that `actingFor` may not act
 * as. (An identity missing or retired is no such case: that is the run's own failure to record.)
 */
export async function outsideLine(tx: Tx, parentName: string, actingFor: string): Promise<boolean> {
  const parent = await tx.agents.byName(parentName);
  if (!parent || parent.retiredAt) return false;
  try {
    await identityFor(tx, parentName, actingFor);
    return false;
  } catch {
    return true;
  }
}

/** The run is over: its token stops working at once. */
export async function retireRunIdentity(store: Store, agentId: string, now: string): Promise<void> {
  await store.write((tx) => retireRunAgent(tx, agentId, now));
}

/**
 * Retire a run's agent within a transaction (a reaper finishing an orphaned run's row, say), with
 * every agent it minted below it: they act for the run and end with it. Returns the ids retired
 * now, whose claims the caller gives back.
 */
export async function retireRunAgent(tx: Tx, agentId: string, now: string): Promise<string[]> {
  const agent = await tx.agents.byId(agentId);
  if (!agent) return [];
  const descendants = await activeDescendantsOf(tx, agentId);
  const toRetire = [...(agent.retiredAt ? [] : [agent]), ...descendants];
  if (toRetire.length === 0) return [];
  for (const one of toRetire) await tx.agents.retire(one.id, now);
  await tx.journal.append({
    at: now,
    actor: agent.parentId ?? agentId,
    action: "agent.retire",
    subject: agentId,
    data: { run_ended: true, descendants: descendants.map((d) => d.id) },
  });
  return toRetire.map((one) => one.id);
}
