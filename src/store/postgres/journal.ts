import type { JournalEvent, JournalRepo } from "../store.js";
import type { PgDb } from "./db.js";

interface EventRow {
  id: number;
  at: string;
  actor: string;
  action: string;
  subject: string;
  data: string;
}

export function pgJournal(db: PgDb, onAppend: (id: number) => void): JournalRepo {
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
      const row = await append.get(
        event.at,
        event.actor,
        event.action,
        event.subject,
        JSON.stringify(event.data),
      );
      const id = row?.id as number;
      onAppend(id);
      return id;
    },
    async recent(limit) {
      return (await recent.all(limit)).map(toEvent);
    },
    async about(subject, limit) {
      return (await about.all(subject, limit)).map(toEvent);
    },
  };
}
