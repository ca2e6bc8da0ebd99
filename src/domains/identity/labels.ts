import type { Tx } from "../../store/store.js";
import { OWNER } from "./actor.js";

/**
 * How quoted text names its authors: `alice (A-2)` for an agent, `owner` for the owner, the bare
 * id for an agent no longer known. Every author is looked up in one read, whatever their number.
 */
export async function authorLabels(tx: Tx, ids: Iterable<string>): Promise<(id: string) => string> {
  const agents = [...new Set(ids)].filter((id) => id !== OWNER.id);
  const names = await tx.agents.names(agents);
  return (id) => {
    const name = names.get(id);
    return name === undefined ? id : `${name} (${id})`;
  };
}
