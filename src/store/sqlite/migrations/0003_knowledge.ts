import type { Migration } from "./migration.js";

/**
 * Notes, memory facts, risks, glossary and recorded briefs. A scope is text (`workspace` or
 * `task:T-12`), never a foreign key into another domain's tables. The full-text index over
 * facts is derived: triggers keep it in step with every insert, update and delete, so an
 * import (which only inserts rows) rebuilds it as a side effect.
 */
export const knowledge: Migration = {
  name: "0003_knowledge",
  sql: `
    CREATE TABLE notes (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      id TEXT NOT NULL UNIQUE,
      kind TEXT NOT NULL CHECK (kind IN ('decision', 'finding', 'metric', 'ref')),
      scope TEXT NOT NULL,
      author TEXT NOT NULL,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      severity TEXT CHECK (severity IS NULL OR severity IN ('major', 'moderate', 'minor')),
      trust TEXT CHECK (trust IS NULL OR trust IN ('unverified', 'confirmed', 'refuted')),
      body TEXT NOT NULL
    );
    CREATE INDEX notes_scope_kind ON notes(scope, kind, seq);
    CREATE INDEX notes_kind ON notes(kind, seq);

    CREATE TABLE facts (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      id TEXT NOT NULL UNIQUE,
      text TEXT NOT NULL,
      norm TEXT NOT NULL,
      topics TEXT NOT NULL DEFAULT '[]',
      author TEXT NOT NULL,
      created_at TEXT NOT NULL,
      last_seen_at TEXT NOT NULL,
      seen_count INTEGER NOT NULL DEFAULT 1,
      superseded_by TEXT,
      superseded_at TEXT
    );
    CREATE UNIQUE INDEX facts_live_norm ON facts(norm) WHERE superseded_by IS NULL;
    CREATE INDEX facts_recent ON facts(last_seen_at);

    -- Only live facts are indexed: a superseded fact leaves the index the moment it is superseded.
    -- porter stems English words (retries ~ retry); unicode61 folds case and accents.
    CREATE VIRTUAL TABLE facts_fts USING fts5(
      text, topics, content = 'facts', content_rowid = 'seq',
      tokenize = 'porter unicode61 remove_diacritics 2'
    );
    CREATE TRIGGER facts_fts_insert AFTER INSERT ON facts WHEN new.superseded_by IS NULL BEGIN
      INSERT INTO facts_fts (rowid, text, topics) VALUES (new.seq, new.text, new.topics);
    END;
    CREATE TRIGGER facts_fts_delete AFTER DELETE ON facts WHEN old.superseded_by IS NULL BEGIN
      INSERT INTO facts_fts (facts_fts, rowid, text, topics) VALUES ('delete', old.seq, old.text, old.topics);
    END;
    CREATE TRIGGER facts_fts_update AFTER UPDATE OF text, topics ON facts
      WHEN old.superseded_by IS NULL AND new.superseded_by IS NULL BEGIN
      INSERT INTO facts_fts (facts_fts, rowid, text, topics) VALUES ('delete', old.seq, old.text, old.topics);
      INSERT INTO facts_fts (rowid, text, topics) VALUES (new.seq, new.text, new.topics);
    END;
    CREATE TRIGGER facts_fts_supersede AFTER UPDATE OF superseded_by ON facts
      WHEN old.superseded_by IS NULL AND new.superseded_by IS NOT NULL BEGIN
      INSERT INTO facts_fts (facts_fts, rowid, text, topics) VALUES ('delete', old.seq, old.text, old.topics);
    END;

    CREATE TABLE risks (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      id TEXT NOT NULL UNIQUE,
      scope TEXT NOT NULL,
      risk TEXT NOT NULL,
      impact TEXT NOT NULL CHECK (impact IN ('high', 'medium', 'low')),
      likelihood TEXT NOT NULL CHECK (likelihood IN ('high', 'medium', 'low')),
      indicators TEXT NOT NULL,
      action TEXT NOT NULL,
      author TEXT NOT NULL,
      created_at TEXT NOT NULL
    );

    CREATE TABLE glossary (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      term TEXT NOT NULL UNIQUE COLLATE NOCASE,
      meaning TEXT NOT NULL,
      author TEXT NOT NULL,
      updated_at TEXT NOT NULL
    );

    CREATE TABLE briefs (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      id TEXT NOT NULL UNIQUE,
      task TEXT NOT NULL,
      actor TEXT NOT NULL,
      budget INTEGER NOT NULL,
      hash TEXT NOT NULL,
      text TEXT NOT NULL,
      created_at TEXT NOT NULL
    );
    CREATE INDEX briefs_task ON briefs(task, seq);
  `,
};
