import { conflict, notFound, refuse, usageError } from "../../kernel/outcome.js";
import { readsAsShortId } from "../../kernel/short-id.js";
import { quoteValue } from "../../kernel/text.js";
import type { AgentRecord, Grant, Store, Tx } from "../../store/store.js";
import { isReservedRole, RESERVED_ROLES, type WorkspaceConfig } from "../workspace/config.js";
import { type Actor, activeDescendantsOf, ancestorsOf, requireActiveIn } from "./actor.js";
import { hashToken, newToken } from "./tokens.js";

/** `owner` and `human`, in any case: an agent so named reads as the owner or the person it asks. */
export const readsAsPerson = (name: string): boolean => isReservedRole(name);

/** Starts with a letter or digit, so no name or role can pass for an option (`--role`). */
export const AGENT_NAME = /^[a-zA-Z0-9][a-zA-Z0-9_-]{0,63}$/;

export interface AddAgentRequest {
  name: string;
  role: string;
  grant?: Grant;
  parent?: string;
}

export interface AddedAgent {
  agent: AgentRecord;
  /** Shown once, never stored. */
  token: string;
}

/**
 * A child takes its parent's role, or one the parent's role lists in `child_roles`: minting a
 * child must not be a way to change role (and with it scope, shortcuts and profile).
 */
async function requireRoleForChild(
  config: WorkspaceConfig,
  parent: AgentRecord,
  role: string,
): Promise<void> {
  if (role === parent.role) return;
  const allowed = config.roles[parent.role]?.child_roles ?? [];
  if (allowed.includes(role)) return;
  throw refuse(
    "role",
    `a child of ${parent.name} (role ${parent.role}) cannot take role ${quoteValue(role)}: a child never exceeds its parent`,
    allowed.length > 0
      ? `use --role ${parent.role} or one of ${allowed.join(", ")}`
      : `use --role ${parent.role}, or list the role in [roles.${parent.role}] child_roles in cairn.toml`,
  );
}

const narrower = (a: Grant, b: Grant): Grant => (a === "ro" || b === "ro" ? "ro" : "rw");

async function findAgent(store: Store, idOrName: string): Promise<AgentRecord | undefined> {
  return store.read(async (tx) => (await tx.agents.byId(idOrName)) ?? (await tx.agents.byName(idOrName)));
}

/**
 * The owner adds any agent. An agent adds only its own children, and a child's grant never
 * exceeds its parent's: a read-only parent cannot mint a writer.
 */
export async function addAgent(
  store: Store,
  config: WorkspaceConfig,
  actor: Actor,
  request: AddAgentRequest,
  now: string,
): Promise<AddedAgent> {
  if (!AGENT_NAME.test(request.name)) {
    throw usageError(
      `agent name ${quoteValue(request.name)} must be 1-64 letters, digits, - or _, starting with a letter or digit`,
    );
  }
  // Names are shown beside ids ("held by A-7 (bob)") and looked up after them: a child named
  // "owner", "A-1" or "7" would read as the workspace owner or another record wherever it is named,
  // and one named "human" answered questions as "by human (A-9)", read as the person's answer.
  if (readsAsPerson(request.name) || readsAsShortId(request.name)) {
    throw usageError(
      `agent name ${quoteValue(request.name)} reads as ${readsAsPerson(request.name) ? "the workspace owner or the person questions go to" : "an id"}`,
      `choose a name that is neither an id (A-12, 7) nor ${RESERVED_ROLES.join(" nor ")}`,
    );
  }
  if (!AGENT_NAME.test(request.role)) {
    throw usageError(
      `role ${quoteValue(request.role)} must be 1-64 letters, digits, - or _, starting with a letter or digit`,
    );
  }
  if (isReservedRole(request.role)) {
    throw usageError(
      `role ${quoteValue(request.role)} is reserved: ${RESERVED_ROLES.join(" and ")} name the workspace owner and the person questions go to`,
      "choose another role",
    );
  }
  let parent: AgentRecord | undefined;
  if (request.parent) {
    parent = await findAgent(store, request.parent);
    if (!parent) throw notFound(`no agent ${quoteValue(request.parent)}`, "see `cairn agent list`");
    const chosen = parent;
    await store.read((tx) => requireActiveLine(tx, chosen));
  }
  if (parent) await requireRoleForChild(config, parent, request.role);
  if (!actor.isOwner) {
    if (!parent || parent.id !== actor.id) {
      throw refuse(
        "ownership",
        `${actor.name} may only add its own children`,
        `repeat with --parent ${actor.id}, or ask the owner to add the agent`,
      );
    }
  }
  const roleGrant = config.roles[request.role]?.grant ?? "rw";
  const ceiling = parent ? narrower(parent.grant, roleGrant) : roleGrant;
  const requested = request.grant ?? ceiling;
  if (requested === "rw" && ceiling === "ro") {
    const why =
      parent?.grant === "ro" ? `parent ${parent.name} is read-only` : `role ${request.role} is read-only`;
    throw refuse("grant", `a child's grant cannot exceed its parent's: ${why}`, "repeat with --grant ro");
  }
  const token = newToken();
  const agent = await store.write(async (tx) => {
    // Again where the child is written: a parent (or an ancestor) retired since the look above
    // retired its line, and a child added after that must not be its one live member.
    if (parent) await requireActiveLine(tx, parent);
    // Names differing only in case would read as one agent wherever they are shown ("held by
    // bob"), and one could pass for the other in a brief's author labels.
    const taken = await tx.agents.byNameAnyCase(request.name);
    if (taken) {
      // A retired agent keeps its name (the journal and every author label name it), so retiring
      // is no way to free one: a new token for the same work goes to a new name.
      const retired = taken.retiredAt
        ? ` (${taken.id}, retired at ${taken.retiredAt}; a name stays taken)`
        : "";
      throw conflict(
        taken.name === request.name
          ? `an agent named ${request.name} already exists${retired}`
          : `an agent named ${taken.name} already exists${retired}: names differing only in case would read as one agent`,
        "choose another name: retiring an agent does not free its name (a new token for an active agent: `cairn agent rotate`)",
      );
    }
    const created = await tx.agents.insert(
      {
        name: request.name,
        role: request.role,
        grant: requested,
        parentId: parent?.id ?? null,
        tokenHash: hashToken(token),
      },
      now,
    );
    await tx.journal.append({
      at: now,
      actor: actor.id,
      action: "agent.add",
      subject: created.id,
      data: { name: created.name, role: created.role, grant: created.grant, parent: created.parentId },
    });
    return created;
  });
  return { agent, token };
}

/** Refused unless the parent and every ancestor of it are active, as the transaction reads them. */
async function requireActiveLine(tx: Tx, parent: AgentRecord): Promise<void> {
  const current = await tx.agents.byId(parent.id);
  if (!current || current.retiredAt)
    throw refuse("identity", `parent agent ${parent.name} is retired`, "choose an active parent");
  const retiredAncestor = (await ancestorsOf(tx, current)).find((a) => a.retiredAt);
  if (retiredAncestor) {
    throw refuse(
      "identity",
      `parent agent ${parent.name} descends from retired ${retiredAncestor.name}`,
      "choose an active parent",
    );
  }
}

export async function listAgents(store: Store, includeRetired: boolean): Promise<AgentRecord[]> {
  return store.read((tx) => tx.agents.list({ includeRetired }));
}

/**
 * Retiring revokes the token at once, and its descendants' too: a child's authority comes from
 * its parent, so none may outlive it (refusing instead would leave a compromised agent's
 * children working while someone retires them one by one). Running servers refuse their next call.
 */
export async function retireAgent(
  store: Store,
  actor: Actor,
  idOrName: string,
  now: string,
): Promise<{ agent: AgentRecord; descendants: AgentRecord[] }> {
  return store.write(async (tx) => {
    const agent = await agentInCharge(tx, actor, idOrName, "retire it");
    const descendants = await activeDescendantsOf(tx, agent.id);
    const toRetire = [...(agent.retiredAt ? [] : [agent]), ...descendants];
    if (toRetire.length === 0) return { agent, descendants: [] };
    for (const one of toRetire) await tx.agents.retire(one.id, now);
    await tx.journal.append({
      at: now,
      actor: actor.id,
      action: "agent.retire",
      subject: agent.id,
      data: { descendants: descendants.map((d) => d.id) },
    });
    return {
      agent: { ...agent, retiredAt: agent.retiredAt ?? now },
      descendants: descendants.map((d) => ({ ...d, retiredAt: now })),
    };
  });
}

/** The agent named by id or name, which only the owner or one of its ancestors may `doing`. */
async function agentInCharge(tx: Tx, actor: Actor, idOrName: string, doing: string): Promise<AgentRecord> {
  const agent = (await tx.agents.byId(idOrName)) ?? (await tx.agents.byName(idOrName));
  if (!agent) throw notFound(`no agent ${quoteValue(idOrName)}`, "see `cairn agent list`");
  const ancestors = await ancestorsOf(tx, agent);
  if (!actor.isOwner && !ancestors.some((a) => a.id === actor.id))
    throw refuse("ownership", `only the owner or an ancestor of ${agent.name} may ${doing}`, "ask the owner");
  return agent;
}

/**
 * A new token for an active agent, shown once; the old one stops working at once, on new launches
 * and at the next call of every server running with it (a call running then is cancelled within
 * seconds, as for a retirement). For a token that leaked: the agent keeps its name, id, role,
 * children and claims. Only the owner or an ancestor may, as for `agent retire`.
 */
export async function rotateAgentToken(
  store: Store,
  actor: Actor,
  idOrName: string,
  now: string,
): Promise<{ agent: AgentRecord; token: string }> {
  const token = newToken();
  return store.write(async (tx) => {
    const agent = await agentInCharge(tx, actor, idOrName, "give it a new token");
    if (agent.retiredAt)
      throw refuse(
        "identity",
        `agent ${agent.name} (${agent.id}) was retired at ${agent.retiredAt}: a retired agent gets no token`,
        "add an agent under a new name (`cairn agent add`)",
      );
    // The caller's own line must still be live: a parent retired meanwhile mints nothing.
    await requireActiveIn(tx, actor);
    await tx.agents.replaceToken(agent.id, hashToken(token));
    await tx.journal.append({
      at: now,
      actor: actor.id,
      action: "agent.rotate",
      subject: agent.id,
      data: {},
    });
    return { agent, token };
  });
}
