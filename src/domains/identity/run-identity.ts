import { refuse } from "../../kernel/outcome.js";
import type { Store } from "../../store/store.js";
import { hashToken, newToken } from "./tokens.js";

export interface RunIdentity {
  agentId: string;
  name: string;
  /** Handed to the child in its environment only; never stored, never logged. */
  token: string;
}

/**
 * A token for one run of a process that acts on the board as `parentName`: a child agent of it
 * (same role and grant, so it never exceeds its parent), to be retired when the run ends.
 */
export async function mintRunIdentity(
  store: Store,
  parentName: string,
  label: string,
  now: string,
): Promise<RunIdentity> {
  const token = newToken();
  const child = await store.write(async (tx) => {
    const parent = await tx.agents.byName(parentName);
    if (!parent || parent.retiredAt) {
      throw refuse(
        "identity",
        `the cairn identity ${JSON.stringify(parentName)} ${parent ? "is retired" : "does not exist"}`,
        `add it with \`cairn agent add ${parentName} --role ROLE\`, or drop [cairn] identity from the manifest`,
      );
    }
    const name = `${parent.name.slice(0, 40)}-run-${label}`.slice(0, 64);
    const created = await tx.agents.insert(
      { name, role: parent.role, grant: parent.grant, parentId: parent.id, tokenHash: hashToken(token) },
      now,
    );
    await tx.journal.append({
      at: now,
      actor: parent.id,
      action: "agent.add",
      subject: created.id,
      data: { name, role: created.role, grant: created.grant, parent: parent.id, for_run: label },
    });
    return created;
  });
  return { agentId: child.id, name: child.name, token };
}

/** The run is over: its token stops working at once. */
export async function retireRunIdentity(store: Store, agentId: string, now: string): Promise<void> {
  await store.write(async (tx) => {
    const agent = await tx.agents.byId(agentId);
    if (!agent || agent.retiredAt) return;
    await tx.agents.retire(agentId, now);
    await tx.journal.append({
      at: now,
      actor: agent.parentId ?? agentId,
      action: "agent.retire",
      subject: agentId,
      data: { run_ended: true },
    });
  });
}
