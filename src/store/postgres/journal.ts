import { type EventRow, journalWhere, toEvent } from "../sqlite/event-rows.js";
import type { JournalRepo } from "../store.js";
import type { PgDb } from "./db.js";
import type { JournalBuffer } from "./journal-buffer.js";

/**
 * `held` keeps a write transaction's appends until its next statement or COMMIT (see
 * journal-buffer.ts); `flush` sends them now (a bulk write, every thousand events).
 */
export function pgJournal(
  db: PgDb,
  onAppend: (id: number) => void,
  held: JournalBuffer,
  flush: () => Promise<void>,
): JournalRepo {
  const append = db.prepare<unknown[], { id: number }>(
    "INSERT INTO events (at, actor, action, subject, data) VALUES (?, ?, ?, ?, ?) RETURNING id",
  );
  const recent = db.prepare<[number], EventRow>(
    "SELECT id, at, actor, action, subject, data FROM events ORDER BY id DESC LIMIT ?",
  );
  const about = db.prepare<[string, number], EventRow>(
    "SELECT id, at, actor, action, subject, data FROM events WHERE subject = ? ORDER BY id DESC LIMIT ?",
  );
  return {
    async append(event) {
      const predicted = await held.hold(event);
      if (predicted !== undefined) {
        onAppend(predicted);
        if (held.full) await flush();
        return predicted;
      }
      const row = await append.get(
        event.at,
        event.actor,
        event.action,
        event.subject,
        JSON.stringify(event.data),
      );
      const id = row?.id as number;
      held.appended(id);
      onAppend(id);
      return id;
    },
    async recent(limit) {
      return (await recent.all(limit)).map(toEvent);
    },
    async about(subject, limit) {
      return (await about.all(subject, limit)).map(toEvent);
    },
    async list(filter) {
      const { clause, values } = journalWhere(filter, "starts_with(action, @action)");
      const order = filter.afterId !== undefined ? "ASC" : "DESC";
      const data = filter.withoutData ? "'{}' AS data" : "data";
      const rows = await db
        .prepare<[Record<string, unknown>], EventRow>(
          `SELECT id, at, actor, action, subject, ${data} FROM events ${clause} ORDER BY id ${order} LIMIT @limit`,
        )
        .all({ ...values, limit: filter.limit });
      return rows.map(toEvent);
    },
  };
}
