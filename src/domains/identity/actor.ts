import { refuse } from "../../kernel/outcome.js";
import type { AgentRecord, Grant, Store } from "../../store/store.js";
import type { Profile, WorkspaceConfig } from "../workspace/config.js";
import { hashToken } from "./tokens.js";

/** Who is calling. The owner is whoever runs cairn with no `CAIRN_AGENT` set. */
export interface Actor {
  id: string;
  name: string;
  role: string;
  grant: Grant;
  isOwner: boolean;
  parentId: string | null;
}

export const OWNER: Actor = {
  id: "owner",
  name: "owner",
  role: "owner",
  grant: "rw",
  isOwner: true,
  parentId: null,
};

export function actorOf(agent: AgentRecord): Actor {
  return {
    id: agent.id,
    name: agent.name,
    role: agent.role,
    grant: agent.grant,
    isOwner: false,
    parentId: agent.parentId,
  };
}

/**
 * Bind the caller's identity from the `CAIRN_AGENT` value read once at launch. Set-but-empty
 * is refused rather than silently treated as the owner: a broken launcher must not escalate.
 */
export async function resolveActor(store: Store, token: string | undefined): Promise<Actor> {
  if (token === undefined) return OWNER;
  if (token.trim() === "") {
    throw refuse(
      "identity",
      "CAIRN_AGENT is set but empty",
      "set it to a token printed by `cairn agent add`, or unset it to act as the workspace owner",
    );
  }
  const agent = await store.read((tx) => tx.agents.byTokenHash(hashToken(token.trim())));
  if (!agent) {
    throw refuse(
      "identity",
      "CAIRN_AGENT holds a token this workspace does not know",
      "ask the owner for a token (`cairn agent add`)",
    );
  }
  if (agent.retiredAt) {
    throw refuse(
      "identity",
      `agent ${agent.name} (${agent.id}) was retired at ${agent.retiredAt}`,
      "ask the owner for a new agent token",
    );
  }
  return actorOf(agent);
}

/** The MCP tool profile: an explicit choice at launch, else the role's, else `worker`. */
export function profileFor(actor: Actor, config: WorkspaceConfig, requested?: Profile): Profile {
  if (requested) return requested;
  const role = config.roles[actor.role];
  if (role?.profile) return role.profile;
  return "worker";
}
