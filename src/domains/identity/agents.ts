import { conflict, notFound, refuse, usageError } from "../../kernel/outcome.js";
import { quoteValue } from "../../kernel/text.js";
import type { AgentRecord, Grant, Store } from "../../store/store.js";
import type { WorkspaceConfig } from "../workspace/config.js";
import type { Actor } from "./actor.js";
import { hashToken, newToken } from "./tokens.js";

export const AGENT_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

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
    throw usageError(`agent name ${quoteValue(request.name)} must be 1-64 letters, digits, - or _`);
  }
  if (!AGENT_NAME.test(request.role)) {
    throw usageError(`role ${quoteValue(request.role)} must be 1-64 letters, digits, - or _`);
  }
  let parent: AgentRecord | undefined;
  if (request.parent) {
    parent = await findAgent(store, request.parent);
    if (!parent) throw notFound(`no agent ${quoteValue(request.parent)}`, "see `cairn agent list`");
    if (parent.retiredAt)
      throw refuse("identity", `parent agent ${parent.name} is retired`, "choose an active parent");
  }
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
    if (await tx.agents.byName(request.name)) {
      throw conflict(
        `an agent named ${request.name} already exists`,
        "choose another name, or retire the old one",
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

export async function listAgents(store: Store, includeRetired: boolean): Promise<AgentRecord[]> {
  return store.read((tx) => tx.agents.list({ includeRetired }));
}

/** Retiring revokes the token at once: the next process started with it refuses to run. */
export async function retireAgent(
  store: Store,
  actor: Actor,
  idOrName: string,
  now: string,
): Promise<AgentRecord> {
  return store.write(async (tx) => {
    const agent = (await tx.agents.byId(idOrName)) ?? (await tx.agents.byName(idOrName));
    if (!agent) throw notFound(`no agent ${quoteValue(idOrName)}`, "see `cairn agent list`");
    if (!actor.isOwner && agent.parentId !== actor.id) {
      throw refuse("ownership", `only the owner or ${agent.name}'s parent may retire it`, "ask the owner");
    }
    if (agent.retiredAt) return agent;
    await tx.agents.retire(agent.id, now);
    await tx.journal.append({
      at: now,
      actor: actor.id,
      action: "agent.retire",
      subject: agent.id,
      data: {},
    });
    return { ...agent, retiredAt: now };
  });
}
