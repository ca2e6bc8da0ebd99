import { previewOfHead } from "../../kernel/text.js";
import type { Store } from "../../store/store.js";
import { TITLE_CHARS } from "../limits/limits.js";
import type { WorkspaceConfig } from "../workspace/config.js";
import { ASKS_SHOWN } from "./asks.js";
import { liveLeases } from "./claims.js";

/** The newest unverified finishes `status` names; the rest are counted, and `cairn review` lists them. */
const UNVERIFIED_SHOWN = 100;

/**
 * The board's section of `cairn status` (and of `now`): reasons and questions as previews, each
 * whole in `task show` and `asks`, so that a hundred 256 KiB questions a read-only agent asked do
 * not make the answer too large for any client to read.
 */
export async function boardStatus(store: Store, config: WorkspaceConfig, now: string) {
  return store.read(async (tx) => {
    const blocked = await tx.tasks.byStatus("blocked", 100);
    // Who holds what: a blocked task its holder still holds is held too (it may reopen it, and
    // it counts against nobody else), so status must not show it as no one's.
    const holders = new Map<string, string[]>();
    for (const task of [...(await tx.tasks.byStatus("active", 1_000)), ...blocked]) {
      if (!task.owner) continue;
      holders.set(task.owner, [...(holders.get(task.owner) ?? []), task.id]);
    }
    return {
      counts: await tx.tasks.countByStatus(),
      holders: [...holders].map(([owner, tasks]) => ({ owner, tasks })),
      blocked: blocked.map((t) => ({
        id: t.id,
        title: t.title,
        // The store reads the reason's head (REASON_HEAD_CHARS, no shorter than TITLE_CHARS: the
        // store contract test holds these previews to the whole reason's) and its length.
        why: t.blockedReason ? previewOfHead(t.blockedReason, TITLE_CHARS) : "",
      })),
      // Only questions on live tasks wait for an answer: one on a task done or dropped is counted
      // apart (its task ended; nobody needs it answered), or the inbox never empties.
      open_asks_total: await tx.asks.countOpen({ onTasks: "live" }),
      open_asks_on_ended: await tx.asks.countOpen({ onTasks: "ended" }),
      // Heads of questions, as of blocked reasons: ASK_HEAD_CHARS, no shorter than TITLE_CHARS.
      open_asks: (await tx.asks.openHeads({ onTasks: "live", limit: ASKS_SHOWN })).map((a) => ({
        id: a.id,
        task: a.taskId,
        asked_by: a.askedBy,
        to: a.toRole,
        question: previewOfHead(a.question, TITLE_CHARS),
      })),
      stale_claims: (
        await tx.tasks.staleClaims(liveLeases(await tx.tasks.leaseClock(now), config.claims.lease_minutes))
      ).map((t) => ({
        id: t.id,
        owner: t.owner as string,
        lease_at: t.leaseAt ?? "",
      })),
      unverified: (await tx.tasks.unverifiedDone(UNVERIFIED_SHOWN)).map((t) => t.id),
      unverified_total: await tx.tasks.countUnverifiedDone(),
      swept: (await tx.tasks.eventsOf("task.swept", 10)).map((e) => ({
        task: e.subject,
        at: e.at,
        why: String(e.data.why ?? ""),
      })),
    };
  });
}
