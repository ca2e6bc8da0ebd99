import type { Migration } from "./migration.js";

/** Workspace metadata, agents and the append-only event journal. */
export const spine: Migration = {
  name: "0001_spine",
  sql: `
    CREATE TABLE meta (
      key TEXT PRIMARY KEY,
      value TEXT NOT NULL
    );

    CREATE TABLE agents (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      id TEXT NOT NULL UNIQUE,
      name TEXT NOT NULL UNIQUE,
      role TEXT NOT NULL,
      grant_level TEXT NOT NULL CHECK (grant_level IN ('rw', 'ro')),
      parent_id TEXT REFERENCES agents(id),
      token_hash TEXT NOT NULL UNIQUE,
      created_at TEXT NOT NULL,
      retired_at TEXT
    );

    CREATE TABLE events (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      at TEXT NOT NULL,
      actor TEXT NOT NULL,
      action TEXT NOT NULL,
      subject TEXT NOT NULL,
      data TEXT NOT NULL DEFAULT '{}'
    );
    CREATE INDEX events_subject ON events(subject, id);

    CREATE TRIGGER events_no_update BEFORE UPDATE ON events
      BEGIN SELECT RAISE(ABORT, 'the event journal is append-only'); END;
    CREATE TRIGGER events_no_delete BEFORE DELETE ON events
      BEGIN SELECT RAISE(ABORT, 'the event journal is append-only'); END;
  `,
};
