import type { Migration } from "./migration.js";

/**
 * The task board. `sort_path` holds each task's depth-first position (ancestors' zero-padded
 * sequence numbers) so ready and list order by one index instead of walking the tree.
 * `milestone_id` is the link a goal milestone sets; no foreign key, it belongs to another domain.
 */
export const tasks: Migration = {
  name: "0002_tasks",
  sql: `
    CREATE TABLE tasks (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      id TEXT NOT NULL UNIQUE,
      title TEXT NOT NULL,
      so_that TEXT NOT NULL DEFAULT '',
      context TEXT NOT NULL DEFAULT '',
      parent_id TEXT REFERENCES tasks(id),
      sort_path TEXT NOT NULL,
      priority TEXT NOT NULL CHECK (priority IN ('must', 'should', 'could', 'wont')),
      priority_rank INTEGER NOT NULL,
      status TEXT NOT NULL CHECK (status IN ('open', 'active', 'blocked', 'done', 'dropped')),
      owner TEXT,
      claimed_at TEXT,
      lease_at TEXT,
      blocked_reason TEXT,
      estimate TEXT,
      traces TEXT NOT NULL DEFAULT '[]',
      labels TEXT NOT NULL DEFAULT '[]',
      milestone_id TEXT,
      unverified INTEGER NOT NULL DEFAULT 0,
      created_by TEXT NOT NULL,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      CHECK ((status = 'active') = (owner IS NOT NULL) OR status IN ('blocked', 'done'))
    );
    CREATE INDEX tasks_board ON tasks(status, priority_rank, sort_path);
    CREATE INDEX tasks_tree ON tasks(sort_path);
    CREATE INDEX tasks_parent ON tasks(parent_id, seq);
    CREATE INDEX tasks_owner ON tasks(owner, status);
    CREATE INDEX tasks_milestone ON tasks(milestone_id);
    CREATE INDEX tasks_labels ON tasks(status, labels);

    CREATE TABLE task_criteria (
      task_id TEXT NOT NULL REFERENCES tasks(id),
      n INTEGER NOT NULL,
      text TEXT NOT NULL,
      verify TEXT,
      shortcut TEXT,
      params TEXT NOT NULL DEFAULT '{}',
      timeout_seconds INTEGER,
      checked INTEGER NOT NULL DEFAULT 0,
      checked_by TEXT,
      checked_at TEXT,
      evidence TEXT,
      PRIMARY KEY (task_id, n)
    );

    CREATE TABLE task_dependencies (
      task_id TEXT NOT NULL REFERENCES tasks(id),
      depends_on TEXT NOT NULL REFERENCES tasks(id),
      PRIMARY KEY (task_id, depends_on)
    );
    CREATE INDEX task_dependents ON task_dependencies(depends_on);

    CREATE TABLE task_notes (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      task_id TEXT NOT NULL REFERENCES tasks(id),
      at TEXT NOT NULL,
      author TEXT NOT NULL,
      kind TEXT NOT NULL,
      text TEXT NOT NULL
    );
    CREATE INDEX task_notes_task ON task_notes(task_id, seq);

    CREATE TABLE task_asks (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      id TEXT NOT NULL UNIQUE,
      task_id TEXT NOT NULL REFERENCES tasks(id),
      question TEXT NOT NULL,
      asked_by TEXT NOT NULL,
      to_role TEXT NOT NULL,
      asked_at TEXT NOT NULL,
      answer TEXT,
      answered_by TEXT,
      answered_at TEXT
    );
    CREATE INDEX task_asks_open ON task_asks(answered_at, to_role);

    CREATE TABLE queues (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      name TEXT NOT NULL UNIQUE,
      steps TEXT NOT NULL,
      cursor INTEGER NOT NULL DEFAULT 0,
      created_at TEXT NOT NULL
    );

    CREATE TABLE queue_keys (
      queue TEXT NOT NULL REFERENCES queues(name),
      key TEXT NOT NULL,
      at TEXT NOT NULL,
      PRIMARY KEY (queue, key)
    );

    CREATE TABLE shortcuts (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      name TEXT NOT NULL UNIQUE,
      argv TEXT NOT NULL,
      effect TEXT NOT NULL CHECK (effect IN ('read', 'write', 'destructive', 'none')),
      roles TEXT NOT NULL DEFAULT '[]',
      summary TEXT NOT NULL DEFAULT '',
      updated_at TEXT NOT NULL
    );

    CREATE INDEX events_action ON events(action, id);
  `,
};
