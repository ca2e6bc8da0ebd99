import type { AskRepo } from "../asks.js";
import {
  ASK_HEAD_COLUMNS,
  type AskHeadRow,
  type AskRow,
  openWhere,
  toAsk,
  toAskHead,
} from "../sqlite/ask-rows.js";
import {
  SHORTCUT_HEADS_SQL,
  type ShortcutHeadRow,
  type ShortcutRow,
  toShortcut,
  toShortcutHead,
  UPSERT_SHORTCUT_SQL,
} from "../sqlite/shortcut-rows.js";
import type { QueueRecord, QueueRepo, ShortcutRepo } from "../tasks.js";
import { jsonbOfStored, type PgDb } from "./db.js";
import { shortIds } from "./short-ids.js";

export function pgAsks(db: PgDb): AskRepo {
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
    `SELECT ${ASK_HEAD_COLUMNS} FROM task_asks ORDER BY seq DESC LIMIT ?`,
  );
  const recentHeadsTo = db.prepare<[string, number], AskHeadRow>(
    `SELECT ${ASK_HEAD_COLUMNS} FROM task_asks WHERE to_role = ? ORDER BY seq DESC LIMIT ?`,
  );
  return {
    async insert(ask, at) {
      const { seq, id } = await nextId();
      await insert.run(seq, id, ask.taskId, ask.question, ask.askedBy, ask.toRole, at);
      return toAsk((await byId.get(id)) as AskRow);
    },
    async byId(id) {
      const row = await byId.get(id);
      return row ? toAsk(row) : undefined;
    },
    async headById(id) {
      const row = await headById.get(id);
      return row ? toAskHead(row) : undefined;
    },
    async answer(id, text, by, at) {
      await answer.run(text, by, at, id);
    },
    async open(filter) {
      const { where, values } = openWhere(filter);
      if (filter.limit !== undefined) values.push(filter.limit);
      const rows = await db
        .prepare(
          `SELECT * FROM task_asks WHERE ${where} ORDER BY seq${filter.limit === undefined ? "" : " LIMIT ?"}`,
        )
        .all(...values);
      return (rows as AskRow[]).map(toAsk);
    },
    async openHeads(filter) {
      const { where, values } = openWhere(filter);
      const rows = await db
        .prepare(`SELECT ${ASK_HEAD_COLUMNS} FROM task_asks WHERE ${where} ORDER BY seq LIMIT ?`)
        .all(...values, filter.limit);
      return (rows as AskHeadRow[]).map(toAskHead);
    },
    async countOpen(filter = {}) {
      const { where, values } = openWhere(filter);
      const row = await db.prepare(`SELECT COUNT(*) AS n FROM task_asks WHERE ${where}`).get(...values);
      return Number((row as { n: number } | undefined)?.n ?? 0);
    },
    async recentHeads(limit, toRole) {
      const rows =
        toRole === undefined ? await recentHeads.all(limit) : await recentHeadsTo.all(toRole, limit);
      return rows.map(toAskHead);
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

export function pgQueues(db: PgDb): QueueRepo {
  const insert = db.prepare("INSERT INTO queues (name, steps, created_at) VALUES (?, ?, ?)");
  const byName = db.prepare<[string], QueueRow>(
    "SELECT name, steps, cursor, created_at FROM queues WHERE name = ?",
  );
  // The step at the cursor and the count, taken out of the steps in SQL (each page's steps made
  // jsonb once), so a page does not carry every queue's 256 KiB of steps to the client.
  const page = db.prepare<
    [number, number],
    { name: string; cursor: number; steps: number; step: string | null; created_at: string }
  >(
    `SELECT q.name, q.cursor, q.created_at, jsonb_array_length(s.j) AS steps, s.j ->> q.cursor::int AS step
     FROM (SELECT * FROM queues ORDER BY seq LIMIT ? OFFSET ?) q
     CROSS JOIN LATERAL (SELECT ${jsonbOfStored("q.steps")} AS j) s ORDER BY q.seq`,
  );
  const count = db.prepare<[], { n: number }>("SELECT COUNT(*) AS n FROM queues");
  const claimKey = db.prepare(
    "INSERT INTO queue_keys (queue, key, at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
  );
  const setCursor = db.prepare("UPDATE queues SET cursor = ? WHERE name = ?");
  return {
    async insert(name, steps, at) {
      await insert.run(name, JSON.stringify(steps), at);
    },
    async byName(name) {
      const row = await byName.get(name);
      return row ? toQueue(row) : undefined;
    },
    async page({ limit, offset }) {
      const rows = await page.all(limit, offset);
      const queues = rows.map(({ created_at: createdAt, steps, cursor, ...head }) => ({
        ...head,
        cursor: Number(cursor),
        steps: Number(steps),
        createdAt,
      }));
      return { queues, total: Number((await count.get())?.n ?? 0) };
    },
    async claimKey(name, key, at) {
      return (await claimKey.run(name, key, at)).changes === 1;
    },
    async setCursor(name, cursor) {
      await setCursor.run(cursor, name);
    },
  };
}

export function pgShortcuts(db: PgDb): ShortcutRepo {
  const upsert = db.prepare(UPSERT_SHORTCUT_SQL);
  const byName = db.prepare<[string], ShortcutRow>("SELECT * FROM shortcuts WHERE name = ?");
  const list = db.prepare<[], ShortcutRow>("SELECT * FROM shortcuts ORDER BY name");
  const heads = db.prepare<[], ShortcutHeadRow>(SHORTCUT_HEADS_SQL);
  const page = db.prepare<[string[], number, number], ShortcutRow>(
    "SELECT * FROM shortcuts WHERE name <> ALL(?) ORDER BY name LIMIT ? OFFSET ?",
  );
  const count = db.prepare<[string[]], { n: string | number }>(
    "SELECT count(*) AS n FROM shortcuts WHERE name <> ALL(?)",
  );
  return {
    async upsert(shortcut, at) {
      await upsert.run(
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
      const row = await byName.get(name);
      return row ? toShortcut(row) : undefined;
    },
    async list() {
      return (await list.all()).map(toShortcut);
    },
    async heads() {
      return (await heads.all()).map(toShortcutHead);
    },
    async page({ limit, offset, excluding }) {
      const shortcuts = limit > 0 ? (await page.all([...excluding], limit, offset)).map(toShortcut) : [];
      return { shortcuts, total: Number((await count.get([...excluding]))?.n ?? 0) };
    },
  };
}
