import type Database from "better-sqlite3";
import type { AskRepo } from "../asks.js";
import type { QueueRecord, QueueRepo, ShortcutRepo } from "../tasks.js";
import { ASK_HEAD_COLUMNS, type AskHeadRow, type AskRow, openWhere, toAsk, toAskHead } from "./ask-rows.js";
import { shortIds } from "./short-ids.js";
import {
  SHORTCUT_HEADS_SQL,
  type ShortcutHeadRow,
  type ShortcutRow,
  toShortcut,
  toShortcutHead,
  UPSERT_SHORTCUT_SQL,
} from "./shortcut-rows.js";
import { builtStatement } from "./statement-cache.js";

export function sqliteAsks(db: Database.Database): AskRepo {
  const nextId = shortIds(db, "task_asks", "Q");
  const insert = db.prepare(
    "INSERT INTO task_asks (seq, id, task_id, question, asked_by, to_role, asked_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
  );
  const byId = db.prepare<[string], AskRow>("SELECT * FROM task_asks WHERE id = ?");
  const headById = db.prepare<[string], AskHeadRow>(`SELECT ${ASK_HEAD_COLUMNS} FROM task_asks WHERE id = ?`);
  const answer = db.prepare(
    "UPDATE task_asks SET answer = ?, answered_by = ?, answered_at = ? WHERE id = ? AND answered_at IS NULL",
  );
  const recentHeads = db.prepare<[number], AskHeadRow>(
    `SELECT ${ASK_HEAD_COLUMNS} FROM task_asks ORDER BY seq DESC LIMIT +?`,
  );
  const recentHeadsTo = db.prepare<[string, number], AskHeadRow>(
    `SELECT ${ASK_HEAD_COLUMNS} FROM task_asks WHERE to_role = ? ORDER BY seq DESC LIMIT +?`,
  );
  return {
    async insert(ask, at) {
      const { seq, id } = nextId();
      insert.run(seq, id, ask.taskId, ask.question, ask.askedBy, ask.toRole, at);
      return toAsk(byId.get(id) as AskRow);
    },
    async byId(id) {
      const row = byId.get(id);
      return row ? toAsk(row) : undefined;
    },
    async headById(id) {
      const row = headById.get(id);
      return row ? toAskHead(row) : undefined;
    },
    async answer(id, text, by, at) {
      answer.run(text, by, at, id);
    },
    async open(filter) {
      const { where, values } = openWhere(filter);
      if (filter.limit !== undefined) values.push(filter.limit);
      const rows = builtStatement(
        db,
        `SELECT * FROM task_asks WHERE ${where} ORDER BY seq${filter.limit === undefined ? "" : " LIMIT +?"}`,
      ).all(...values);
      return (rows as AskRow[]).map(toAsk);
    },
    async openHeads(filter) {
      const { where, values } = openWhere(filter);
      const rows = builtStatement(
        db,
        `SELECT ${ASK_HEAD_COLUMNS} FROM task_asks WHERE ${where} ORDER BY seq LIMIT +?`,
      ).all(...values, filter.limit);
      return (rows as AskHeadRow[]).map(toAskHead);
    },
    async countOpen(filter = {}) {
      const { where, values } = openWhere(filter);
      const row = builtStatement(db, `SELECT COUNT(*) AS n FROM task_asks WHERE ${where}`).get(...values);
      return (row as { n: number } | undefined)?.n ?? 0;
    },
    async recentHeads(limit, toRole) {
      return (toRole === undefined ? recentHeads.all(limit) : recentHeadsTo.all(toRole, limit)).map(
        toAskHead,
      );
    },
  };
}

interface QueueRow {
  name: string;
  steps: string;
  cursor: number;
  created_at: string;
}

const toQueue = (row: QueueRow): QueueRecord => ({
  name: row.name,
  steps: JSON.parse(row.steps) as string[],
  cursor: row.cursor,
  createdAt: row.created_at,
});

export function sqliteQueues(db: Database.Database): QueueRepo {
  const insert = db.prepare("INSERT INTO queues (name, steps, created_at) VALUES (?, ?, ?)");
  const byName = db.prepare<[string], QueueRow>(
    "SELECT name, steps, cursor, created_at FROM queues WHERE name = ?",
  );
  // The step at the cursor and the count, taken out of the steps in SQL: a page of a hundred
  // queues of 240 KiB each read 24 MB into JavaScript (125 MB parsed) for a hundred steps.
  const page = db.prepare<
    [number, number],
    { name: string; cursor: number; steps: number; step: string | null; created_at: string }
  >(
    `SELECT name, cursor, created_at, json_array_length(steps) AS steps,
       json_extract(steps, '$[' || cursor || ']') AS step
     FROM queues ORDER BY seq LIMIT +? OFFSET +?`,
  );
  const count = db.prepare<[], { n: number }>("SELECT COUNT(*) AS n FROM queues");
  const claimKey = db.prepare("INSERT OR IGNORE INTO queue_keys (queue, key, at) VALUES (?, ?, ?)");
  const setCursor = db.prepare("UPDATE queues SET cursor = ? WHERE name = ?");
  return {
    async insert(name, steps, at) {
      insert.run(name, JSON.stringify(steps), at);
    },
    async byName(name) {
      const row = byName.get(name);
      return row ? toQueue(row) : undefined;
    },
    async page({ limit, offset }) {
      const queues = page
        .all(limit, offset)
        .map(({ created_at: createdAt, ...head }) => ({ ...head, createdAt }));
      return { queues, total: count.get()?.n ?? 0 };
    },
    async claimKey(name, key, at) {
      return claimKey.run(name, key, at).changes === 1;
    },
    async setCursor(name, cursor) {
      setCursor.run(cursor, name);
    },
  };
}

export function sqliteShortcuts(db: Database.Database): ShortcutRepo {
  const upsert = db.prepare(UPSERT_SHORTCUT_SQL);
  const byName = db.prepare<[string], ShortcutRow>("SELECT * FROM shortcuts WHERE name = ?");
  const list = db.prepare<[], ShortcutRow>("SELECT * FROM shortcuts ORDER BY name");
  const heads = db.prepare<[], ShortcutHeadRow>(SHORTCUT_HEADS_SQL);
  const page = db.prepare<[string, number, number], ShortcutRow>(
    "SELECT * FROM shortcuts WHERE name NOT IN (SELECT value FROM json_each(?)) ORDER BY name LIMIT +? OFFSET +?",
  );
  const count = db.prepare<[string], { n: number }>(
    "SELECT count(*) AS n FROM shortcuts WHERE name NOT IN (SELECT value FROM json_each(?))",
  );
  return {
    async upsert(shortcut, at) {
      upsert.run(
        shortcut.name,
        JSON.stringify(shortcut.argv),
        shortcut.effect,
        JSON.stringify(shortcut.roles),
        shortcut.summary,
        at,
        shortcut.addedBy,
        shortcut.version,
      );
    },
    async byName(name) {
      const row = byName.get(name);
      return row ? toShortcut(row) : undefined;
    },
    async list() {
      return list.all().map(toShortcut);
    },
    async heads() {
      return heads.all().map(toShortcutHead);
    },
    async page({ limit, offset, excluding }) {
      const shortcuts = limit > 0 ? page.all(JSON.stringify(excluding), limit, offset).map(toShortcut) : [];
      return { shortcuts, total: Number(count.get(JSON.stringify(excluding))?.n ?? 0) };
    },
  };
}
