import type { JournalEvent, JournalFilter, JournalRepo } from "../store.js";
import type { PgDb } from "./db.js";
import type { JournalBuffer } from "./journal-buffer.js";

interface EventRow {
  id: number;
  at: string;
  actor: string;
  action: string;
  subject: string;
  data: string;
}

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
  const toEvent = (row: EventRow): JournalEvent => ({
    ...row,
    data: JSON.parse(row.data) as Record<string, unknown>,
  });
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
      const { clause, values } = journalWhere(filter);
      const order = filter.afterId !== undefined ? "ASC" : "DESC";
      const rows = await db
        .prepare<[Record<string, unknown>], EventRow>(
          `SELECT id, at, actor, action, subject, data FROM events ${clause} ORDER BY id ${order} LIMIT @limit`,
        )
        .all({ ...values, limit: filter.limit });
      return rows.map(toEvent);
    },
  };
}

function journalWhere(filter: JournalFilter): { clause: string; values: Record<string, unknown> } {
  const where: string[] = [];
  const values: Record<string, unknown> = {};
  if (filter.afterId !== undefined) {
    where.push("id > @after");
    values.after = filter.afterId;
  }
  if (filter.beforeId !== undefined) {
    where.push("id < @before");
    values.before = filter.beforeId;
  }
  if (filter.actor !== undefined) {
    where.push("actor = @actor");
    values.actor = filter.actor;
  }
  if (filter.subject !== undefined) {
    where.push("subject = @subject");
    values.subject = filter.subject;
  }
  if (filter.action !== undefined) {
    // "task." selects a family of actions; anything else is one exact action.
    where.push(filter.action.endsWith(".") ? "starts_with(action, @action)" : "action = @action");
    values.action = filter.action;
  }
  return { clause: where.length > 0 ? `WHERE ${where.join(" AND ")}` : "", values };
}
