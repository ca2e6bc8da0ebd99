import type { Store } from "../../store/store.js";

export interface WorkspaceStatus {
  counts: Record<string, number>;
  agents: { active: number; retired: number };
  lastEvent: { at: string; actor: string; action: string } | null;
}

/** What the workspace holds so far. Later domains add their own sections. */
export async function workspaceStatus(store: Store): Promise<WorkspaceStatus> {
  return store.read(async (tx) => {
    const counts = await tx.counts.all();
    const agents = await tx.agents.list({ includeRetired: true });
    const [last] = await tx.journal.recent(1);
    const retired = agents.filter((agent) => agent.retiredAt !== null).length;
    return {
      counts,
      agents: { active: agents.length - retired, retired },
      lastEvent: last ? { at: last.at, actor: last.actor, action: last.action } : null,
    };
  });
}
