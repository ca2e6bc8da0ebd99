import type Database from "better-sqlite3";
import type { JournalRepo } from "../store.js";
import { type EventRow, journalWhere, toEvent } from "./event-rows.js";
import { builtStatement } from "./statement-cache.js";

export function sqliteJournal(db: Database.Database, onAppend: () => void): JournalRepo {
  const append = db.prepare("INSERT INTO events (at, actor, action, subject, data) VALUES (?, ?, ?, ?, ?)");
  const recent = db.prepare<[number], EventRow>(
    "SELECT id, at, actor, action, subject, data FROM events ORDER BY id DESC LIMIT +?",
  );
  const about = db.prepare<[string, number], EventRow>(
    "SELECT id, at, actor, action, subject, data FROM events WHERE subject = ? ORDER BY id DESC LIMIT +?",
  );
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
    async list(filter) {
      const { clause, values } = journalWhere(filter, "substr(action, 1, length(@action)) = @action");
      const order = filter.afterId !== undefined ? "ASC" : "DESC";
      const data = filter.withoutData ? "'{}' AS data" : "data";
      const sql = `SELECT id, at, actor, action, subject, ${data} FROM events ${clause} ORDER BY id ${order} LIMIT +@limit`;
      return (builtStatement(db, sql).all({ ...values, limit: filter.limit }) as EventRow[]).map(toEvent);
    },
  };
}
