import type Database from "better-sqlite3";
import type { JournalEvent, JournalRepo } from "../store.js";

interface EventRow {
  id: number;
  at: string;
  actor: string;
  action: string;
  subject: string;
  data: string;
}

export function sqliteJournal(db: Database.Database, onAppend: () => void): JournalRepo {
  const append = db.prepare("INSERT INTO events (at, actor, action, subject, data) VALUES (?, ?, ?, ?, ?)");
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
      const info = append.run(event.at, event.actor, event.action, event.subject, JSON.stringify(event.data));
      onAppend();
      return Number(info.lastInsertRowid);
    },
    async recent(limit) {
      return recent.all(limit).map(toEvent);
    },
    async about(subject, limit) {
      return about.all(subject, limit).map(toEvent);
    },
  };
}
