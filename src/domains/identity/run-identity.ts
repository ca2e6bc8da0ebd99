import { randomBytes } from "node:crypto";
import { refuse } from "../../kernel/outcome.js";
import type { AgentRecord, Store } from "../../store/store.js";
import type { Actor } from "./actor.js";
import { hashToken, newToken } from "./tokens.js";

/** A token minted for one run of a child process, and the way to revoke it when the run ends. */
export interface RunIdentity {
  agent: AgentRecord;
  /** Give it to the child as CAIRN_AGENT; it is never stored (only its hash is). */
  token: string;
  /** Retire the run's agent; safe to call more than once. */
  retire(now: string): Promise<void>;
}

/**
 * When a child process must act on the board (a local agent, a skill script), it gets a token of
 * its own: a child agent of the caller (same role and grant, never wider), minted for this run, and
 * retired when the run ends. The caller's own token never reaches a child.
 */
export async function mintRunIdentity(
  store: Store,
  actor: Actor,
  purpose: string,
  now: string,
): Promise<RunIdentity> {
  const label = purpose.replace(/[^a-zA-Z0-9_-]/g, "-").slice(0, 32) || "run";
  const name = `run-${label}-${randomBytes(4).toString("hex")}`;
  const token = newToken();
  const agent = await store.write(async (tx) => {
    if (!actor.isOwner) {
      const self = await tx.agents.byId(actor.id);
      if (!self || self.retiredAt) {
        throw refuse("identity", `agent ${actor.name} is retired`, "ask the owner for a new agent token");
      }
    }
    const created = await tx.agents.insert(
      {
        name,
        role: actor.isOwner ? "run" : actor.role,
        grant: actor.grant,
        parentId: actor.isOwner ? null : actor.id,
        tokenHash: hashToken(token),
      },
      now,
    );
    await tx.journal.append({
      at: now,
      actor: actor.id,
      action: "agent.run_identity",
      subject: created.id,
      data: { name, purpose, parent: created.parentId, grant: created.grant },
    });
    return created;
  });
  let retired = false;
  return {
    agent,
    token,
    async retire(at) {
      if (retired) return;
      retired = true;
      await store.write(async (tx) => {
        await tx.agents.retire(agent.id, at);
        await tx.journal.append({
          at,
          actor: actor.id,
          action: "agent.retire",
          subject: agent.id,
          data: { run: true, descendants: [] },
        });
      });
    },
  };
}

/** Run `work` with a run identity and retire it afterwards, whatever `work` does. */
export async function withRunIdentity<T>(
  store: Store,
  actor: Actor,
  purpose: string,
  now: () => string,
  work: (identity: RunIdentity) => Promise<T>,
): Promise<T> {
  const identity = await mintRunIdentity(store, actor, purpose, now());
  try {
    return await work(identity);
  } finally {
    await identity.retire(now());
  }
}
