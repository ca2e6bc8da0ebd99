import { refuse } from "../../kernel/outcome.js";
import type { AgentRecord, Grant, Store, Tx } from "../../store/store.js";
import { PROFILES, type Profile, type WorkspaceConfig } from "../workspace/config.js";
import { requireLiveSupervisor } from "./run-supervision.js";
import { hashToken } from "./tokens.js";

/** Who is calling. The owner is whoever runs cairn with no `CAIRN_AGENT` set. */
export interface Actor {
  id: string;
  name: string;
  role: string;
  grant: Grant;
  isOwner: boolean;
  parentId: string | null;
  /**
   * The caller and its ancestors, nearest first: ids and roles. A child acts within every
   * ancestor's role too, and trust checks treat the whole line as one author. Absent means the
   * caller alone (an actor built by hand, e.g. in a test).
   */
  lineage?: readonly { id: string; role: string }[];
  /**
   * The hash of the token this process was launched with: a token replaced since (`agent rotate`)
   * is refused at the next call, as a retirement is. Absent for the owner and hand-built actors.
   */
  tokenHash?: string;
}

/** The caller and its ancestors, nearest first. */
export const lineageOf = (actor: Pick<Actor, "id" | "role" | "lineage">) =>
  actor.lineage ?? [{ id: actor.id, role: actor.role }];

export const OWNER: Actor = {
  id: "owner",
  name: "owner",
  role: "owner",
  grant: "rw",
  isOwner: true,
  parentId: null,
  lineage: [{ id: "owner", role: "owner" }],
};

export function actorOf(agent: AgentRecord, ancestors: readonly AgentRecord[] = []): Actor {
  return {
    id: agent.id,
    name: agent.name,
    role: agent.role,
    grant: agent.grant,
    isOwner: false,
    parentId: agent.parentId,
    lineage: [agent, ...ancestors].map((a) => ({ id: a.id, role: a.role })),
    tokenHash: agent.tokenHash,
  };
}

/**
 * The grant a caller acts with: its own, narrowed by the grant of every role in its line as
 * cairn.toml declares it now. A role made read-only there makes read-only the agents added
 * before the change, and their children.
 */
export function withRoleGrants(actor: Actor, config: WorkspaceConfig): Actor {
  if (actor.isOwner || actor.grant === "ro") return actor;
  const readOnly = lineageOf(actor).some((member) => config.roles[member.role]?.grant === "ro");
  return readOnly ? { ...actor, grant: "ro" } : actor;
}

/** The agent's ancestors, parent first. A loop in stored rows (never written by cairn) stops the walk. */
export async function ancestorsOf(tx: Tx, agent: AgentRecord): Promise<AgentRecord[]> {
  const found: AgentRecord[] = [];
  const seen = new Set([agent.id]);
  for (let id = agent.parentId; id && !seen.has(id); ) {
    seen.add(id);
    const parent = await tx.agents.byId(id);
    if (!parent) break;
    found.push(parent);
    id = parent.parentId;
  }
  return found;
}

/**
 * The agents not yet retired that descend from `rootId`, however deep, in the order added. The
 * walk goes up from each active agent, so it passes through retired ones: a run's minted identity
 * is retired when the run ends, and a child it minted must not stay active below it, holding its
 * claims for good and out of reach of a later retirement of the line.
 */
export async function activeDescendantsOf(tx: Tx, rootId: string): Promise<AgentRecord[]> {
  const active = await tx.agents.list({ includeRetired: false });
  const known = new Map(active.map((agent) => [agent.id, agent]));
  const below = new Map<string, boolean>([[rootId, true]]);
  const descends = async (agent: AgentRecord): Promise<boolean> => {
    const chain: string[] = [];
    let answer = false;
    for (let id = agent.parentId; id; ) {
      const settled = below.get(id);
      if (settled !== undefined) {
        answer = settled;
        break;
      }
      if (chain.includes(id)) break; // a loop in stored rows (never written by cairn)
      chain.push(id);
      const parent = known.get(id) ?? (await tx.agents.byId(id));
      if (!parent) break;
      known.set(id, parent);
      id = parent.parentId;
    }
    for (const id of chain) below.set(id, answer);
    return answer;
  };
  const found: AgentRecord[] = [];
  for (const agent of active) {
    if (agent.id !== rootId && (await descends(agent))) found.push(agent);
  }
  return found;
}

/**
 * One author, for trust: the same agent, or either descends from the other. An author cannot
 * vouch for its own work through a child it minted (nor a child for its parent's).
 */
export async function sameLine(
  tx: Tx,
  actor: Pick<Actor, "id" | "role" | "lineage">,
  otherId: string,
): Promise<boolean> {
  if (lineageOf(actor).some((member) => member.id === otherId)) return true;
  const other = await tx.agents.byId(otherId);
  if (!other) return false;
  return (await ancestorsOf(tx, other)).some((ancestor) => ancestor.id === actor.id);
}

/**
 * Who minted an agent: the actor of its one `agent.add` or `agent.run_identity` event, looked up
 * by action. Not among the latest events about its id: subjects are one namespace, and anyone may
 * name a shortcut or queue `A-7` and run it twenty times, which pushed the minting out of sight.
 */
async function minterOf(tx: Tx, agentId: string): Promise<string | undefined> {
  for (const action of ["agent.add", "agent.run_identity"]) {
    const [event] = await tx.journal.list({ subject: agentId, action, limit: 1 });
    if (event) return event.actor;
  }
  return undefined;
}

/**
 * Whose hands an agent's token was put in: an agent minted by its parent (`agent add --parent`
 * called by the parent itself, or a run identity) answers to that parent, and so on up. The
 * walk stops at an agent the owner minted: its token went to the owner, whoever its parent is.
 */
export async function principalOf(tx: Tx, agentId: string): Promise<string> {
  // The owner is no agent: no row to read (briefs ask this of every author they quote).
  if (agentId === OWNER.id) return agentId;
  let id = agentId;
  const seen = new Set([id]);
  for (;;) {
    const agent = await tx.agents.byId(id);
    const parentId = agent?.parentId;
    if (!parentId || seen.has(parentId)) return id;
    if ((await minterOf(tx, id)) !== parentId) return id;
    seen.add(parentId);
    id = parentId;
  }
}

/**
 * One author, for vouching (confirming a finding, a shortcut verifying work): `sameLine`, or two
 * agents whose tokens went to one principal. An agent that minted two children holds both
 * tokens: one child confirming the other's finding is that agent confirming its own.
 */
export async function sameTree(
  tx: Tx,
  actor: Pick<Actor, "id" | "role" | "lineage">,
  otherId: string,
): Promise<boolean> {
  if (await sameLine(tx, actor, otherId)) return true;
  if (otherId === OWNER.id || actor.id === OWNER.id) return false;
  return (await principalOf(tx, actor.id)) === (await principalOf(tx, otherId));
}

const retiredRefusal = (agent: AgentRecord, self: boolean) =>
  refuse(
    "identity",
    self
      ? `agent ${agent.name} (${agent.id}) was retired at ${agent.retiredAt}`
      : `agent ${agent.name} (${agent.id}), an ancestor of this agent, was retired at ${agent.retiredAt}`,
    "ask the owner for a new agent token",
  );

/**
 * A process cairn started for this board (a verify command, shortcut, evaluator, agent run, skill
 * script or OS tool) that runs cairn with no token of its own. It is not the owner: an agent that
 * can have cairn run a command would otherwise act as the owner through it.
 */
export const startedByCairnRefusal = () =>
  refuse(
    "identity",
    "this process was started by cairn (a verify command, shortcut, evaluator, agent run, skill script or OS tool) and holds no agent token, so it does not act as the workspace owner",
    "a command that must act on the board needs a token of its own: give its agent manifest a [cairn] identity, or run it yourself in a terminal",
  );

/**
 * Bind the caller's identity from the `CAIRN_AGENT` value read once at launch. Set-but-empty
 * is refused rather than silently treated as the owner: a broken launcher must not escalate;
 * neither may a process cairn started for this board (`startedByCairn`).
 */
export async function resolveActor(
  store: Store,
  token: string | undefined,
  startedByCairn = false,
): Promise<Actor> {
  if (token === undefined) {
    if (startedByCairn) throw startedByCairnRefusal();
    return OWNER;
  }
  if (token.trim() === "") {
    throw refuse(
      "identity",
      "CAIRN_AGENT is set but empty",
      "set it to a token printed by `cairn agent add`, or unset it to act as the workspace owner",
    );
  }
  return store.read(async (tx) => {
    const agent = await tx.agents.byTokenHash(hashToken(token.trim()));
    if (!agent) {
      throw refuse(
        "identity",
        "CAIRN_AGENT holds a token this workspace does not know",
        "ask the owner for a token (`cairn agent add`)",
      );
    }
    if (agent.retiredAt) throw retiredRefusal(agent, true);
    const ancestors = await ancestorsOf(tx, agent);
    const retired = ancestors.find((a) => a.retiredAt);
    if (retired) throw retiredRefusal(retired, false);
    await requireLiveSupervisor(tx, [agent, ...ancestors]);
    return actorOf(agent, ancestors);
  });
}

/**
 * Every call checks that its caller (and each ancestor) is still active: retiring an agent
 * takes effect on its running servers at their next call. One indexed read per ancestor, and a
 * look at the running runs when the line holds a run's minted identity (its supervisor must live).
 */
export async function requireStillActive(store: Store, actor: Actor): Promise<void> {
  if (actor.isOwner) return;
  await store.read((tx) => requireActiveIn(tx, actor));
}

/**
 * The same check inside a transaction: the write that records the end of a long call (an
 * evaluation's samples, a check's ticks) makes it, so a caller retired while the call ran records
 * nothing, however soon after the last look beside the call the retirement came.
 */
export async function requireActiveIn(tx: Tx, actor: Actor): Promise<void> {
  if (actor.isOwner) return;
  const line: AgentRecord[] = [];
  for (const [index, member] of lineageOf(actor).entries()) {
    const agent = await tx.agents.byId(member.id);
    if (!agent) {
      throw refuse("identity", `agent ${member.id} no longer exists`, "ask the owner for a new agent token");
    }
    if (agent.retiredAt) throw retiredRefusal(agent, index === 0);
    if (index === 0 && actor.tokenHash !== undefined && agent.tokenHash !== actor.tokenHash)
      throw refuse(
        "identity",
        `agent ${agent.name} (${agent.id}) was given a new token (\`cairn agent rotate\`): the one this process was launched with no longer works`,
        "relaunch with the new token in CAIRN_AGENT, or ask the owner for it",
      );
    line.push(agent);
  }
  await requireLiveSupervisor(tx, line);
}

const rank = (profile: Profile) => PROFILES.indexOf(profile);

/**
 * The MCP tool profile: an explicit choice at launch, else the role's, else `worker`. A child is
 * never served a wider profile than any ancestor's role declares: a wider request is refused.
 * Unrequested, a child's role does not serve it more than any ancestor is served unrequested
 * (its role's profile, else `worker`): a builder's child given a role declaring `all` through
 * child_roles is a worker, as the builder is.
 */
export function profileFor(actor: Actor, config: WorkspaceConfig, requested?: Profile): Profile {
  const narrowest = (profiles: Profile[]) => profiles.sort((a, b) => rank(a) - rank(b))[0];
  const ancestors = lineageOf(actor)
    .slice(1)
    .map((member) => config.roles[member.role]?.profile);
  const ceiling = narrowest(ancestors.filter((p): p is Profile => p !== undefined));
  if (requested) {
    if (ceiling && rank(requested) > rank(ceiling)) {
      throw refuse(
        "profile",
        `profile ${requested} is wider than ${ceiling}, the widest an ancestor of ${actor.name} is served`,
        `start with --profile ${ceiling} (or narrower)`,
      );
    }
    return requested;
  }
  const chosen = config.roles[actor.role]?.profile ?? "worker";
  const served = narrowest(ancestors.map((p) => p ?? "worker"));
  return served && rank(chosen) > rank(served) ? served : chosen;
}
