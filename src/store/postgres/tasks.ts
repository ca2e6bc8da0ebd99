import { idsStartingWith } from "../id-prefix.js";
import { sortPathUnder } from "../sort-path.js";
import { COUNTED_BEYOND_PAGE, TASK_ORDER_BY } from "../sqlite/task-pages.js";
import {
  COLUMNS,
  HELD_COLUMNS,
  type HeldRow,
  RANK,
  READY_COLUMNS,
  SUBTREE_MOVE_SQL,
  SUMMARY_COLUMNS,
  type SummaryRow,
  type TaskRow,
  toHeld,
  toReadyTask,
  toSummary,
  toTask,
} from "../sqlite/task-rows.js";
import type { ReadyTaskRecord, TaskFilter, TaskRecord, TaskRepo } from "../tasks.js";
import { jsonbOfStored, type PgDb } from "./db.js";
import { pgIdPage } from "./id-page.js";
import { shortIds } from "./short-ids.js";
import { pgTaskRelations } from "./task-relations.js";

const CHANGE_COLUMNS: Record<string, string> = {
  title: "title",
  soThat: "so_that",
  context: "context",
  status: "status",
  owner: "owner",
  claimedAt: "claimed_at",
  leaseAt: "lease_at",
  blockedReason: "blocked_reason",
  unverified: "unverified",
  milestoneId: "milestone_id",
};

/** Dependencies still to finish: anything not done or dropped. */
const UNFINISHED_DEPENDENCY = `EXISTS (SELECT 1 FROM task_dependencies d JOIN tasks t2 ON t2.id = d.depends_on
  WHERE d.task_id = tasks.id AND t2.status NOT IN ('done', 'dropped'))`;

export function pgTasks(db: PgDb): TaskRepo {
  const byId = db.prepare<[string], TaskRow>(`SELECT ${COLUMNS} FROM tasks WHERE id = ?`);
  const nextId = shortIds(db, "tasks", "T");
  const insert = db.prepare(
    `INSERT INTO tasks (seq, id, title, so_that, context, parent_id, sort_path, priority, priority_rank, status,
      estimate, traces, labels, created_by, created_at, updated_at)
     VALUES (@seq, @id, @title, @so_that, @context, @parent_id, @sort_path, @priority, @rank, 'open',
      @estimate, @traces, @labels, @created_by, @at, @at)`,
  );
  const children = db.prepare<[string], SummaryRow>(
    `SELECT ${SUMMARY_COLUMNS} FROM tasks WHERE parent_id = ? ORDER BY seq`,
  );
  const ready = db.prepare<[string, number, number], SummaryRow & { traces: string; created_by: string }>(
    `SELECT ${READY_COLUMNS} FROM tasks WHERE status = 'open' AND priority_rank < 3 AND id != ?
     AND NOT ${UNFINISHED_DEPENDENCY} ORDER BY priority_rank, sort_path LIMIT ? OFFSET ?`,
  );
  const countByStatus = db.prepare<[], { status: string; n: number }>(
    "SELECT status, COUNT(*) AS n FROM tasks GROUP BY status",
  );
  const countUnverifiedDone = db.prepare<[], { n: number }>(
    "SELECT COUNT(*) AS n FROM tasks WHERE status = 'done' AND unverified = 1",
  );
  const activeBy = db.prepare<[string], SummaryRow>(
    `SELECT ${SUMMARY_COLUMNS} FROM tasks WHERE owner = ? AND status = 'active' ORDER BY seq`,
  );
  // Held tasks: none of a task's long columns (see HELD_COLUMNS).
  const byStatus = db.prepare<[string, number], HeldRow>(
    `SELECT ${HELD_COLUMNS} FROM tasks WHERE status = ? ORDER BY seq LIMIT ?`,
  );
  const unverifiedDone = db.prepare<[number], HeldRow>(
    `SELECT ${HELD_COLUMNS} FROM tasks WHERE status = 'done' AND unverified = 1 ORDER BY seq DESC LIMIT ?`,
  );
  const staleClaims = db.prepare<[string, string], HeldRow>(
    `SELECT ${HELD_COLUMNS} FROM tasks WHERE status = 'active' AND (lease_at < ? OR lease_at > ?) ORDER BY seq`,
  );
  const renew = db.prepare(
    "UPDATE tasks SET lease_at = ? WHERE owner = ? AND status = 'active' AND (lease_at < ? OR lease_at > ?)",
  );
  const hasStale = db.prepare<[string, string, string], { one: number }>(
    "SELECT 1 AS one FROM tasks WHERE owner = ? AND status = 'active' AND (lease_at < ? OR lease_at > ?) LIMIT 1",
  );
  const get = async (id: string) => {
    const row = await byId.get(id);
    return row ? toTask(row) : undefined;
  };
  const byIds = db.prepare<[string[]], SummaryRow>(`SELECT ${SUMMARY_COLUMNS} FROM tasks WHERE id = ANY(?)`);

  // The transaction's time, spelt as the stamps are (toISOString: milliseconds, UTC, a Z).
  const serverClock = db.prepare<[], { now: string }>(
    `SELECT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS now`,
  );

  /**
   * One page of the tasks `filter` matches, each row read as `columns`, and how many match (counted
   * up to a cap past the page, as in SQLite: see COUNTED_BEYOND_PAGE).
   */
  async function page<R>(filter: TaskFilter, columns: string) {
    const where: string[] = [];
    const values: Record<string, unknown> = {};
    if (filter.status && filter.status.length > 0) {
      where.push(`status IN (${filter.status.map((_, i) => `@s${i}`).join(", ")})`);
      filter.status.forEach((status, i) => {
        values[`s${i}`] = status;
      });
    }
    if (filter.owner !== undefined) {
      where.push("owner = @owner");
      values.owner = filter.owner;
    }
    if (filter.parent !== undefined) {
      where.push("parent_id = @parent");
      values.parent = filter.parent;
    }
    if (filter.label !== undefined) {
      // Labels are stored as a JSON array. The substring test is cheap but not exact (the label
      // `x","urgent` holds `"urgent"`): the rows it passes are checked element by element.
      where.push(
        `(strpos(labels, @label) > 0 AND ${jsonbOfStored("labels")} @> jsonb_build_array(@exactLabel::text))`,
      );
      values.label = JSON.stringify(filter.label);
      values.exactLabel = filter.label;
    }
    if (filter.text !== undefined) {
      // ASCII folding on both sides, as SQLite's lower() (see the glossary in risks.ts).
      where.push(
        `(strpos(lower(title), lower(@text COLLATE "C")) > 0 OR strpos(lower(context), lower(@text COLLATE "C")) > 0)`,
      );
      values.text = filter.text;
    }
    if (filter.after !== undefined) {
      // No such task: no row is after it.
      where.push("sort_path > (SELECT sort_path FROM tasks WHERE id = @after)");
      values.after = filter.after;
    }
    const clause = where.length > 0 ? `WHERE ${where.join(" AND ")}` : "";
    const cap = filter.offset + filter.limit + COUNTED_BEYOND_PAGE;
    const total = (
      (await db
        .prepare(`SELECT COUNT(*) AS n FROM (SELECT 1 FROM tasks ${clause} LIMIT @cap) AS matches`)
        .get({ ...values, cap })) as { n: number }
    ).n;
    const orderBy = TASK_ORDER_BY[filter.order ?? "tree"];
    const rows = (await db
      .prepare(`SELECT ${columns} FROM tasks ${clause} ORDER BY ${orderBy} LIMIT @limit OFFSET @offset`)
      .all({ ...values, limit: filter.limit, offset: filter.offset })) as R[];
    return { rows, total, ...(total >= cap ? { capped: true } : {}) };
  }

  return {
    ...pgTaskRelations(db),
    async insert(task, at) {
      const { seq, id } = await nextId();
      const parentPath = task.parentId ? ((await byId.get(task.parentId))?.sort_path ?? "") : "";
      await insert.run({
        seq,
        id,
        title: task.title,
        so_that: task.soThat,
        context: task.context,
        parent_id: task.parentId,
        sort_path: sortPathUnder(parentPath, seq),
        priority: task.priority,
        rank: RANK[task.priority],
        estimate: task.estimate ? JSON.stringify(task.estimate) : null,
        traces: JSON.stringify(task.traces),
        labels: JSON.stringify(task.labels),
        created_by: task.createdBy,
        at,
      });
      return (await get(id)) as TaskRecord;
    },
    async byId(id) {
      return get(id);
    },
    async byIds(ids) {
      const found = new Map((await byIds.all([...ids])).map((row) => [row.id, toSummary(row)]));
      return ids.flatMap((id) => found.get(id) ?? []);
    },
    async update(id, change, at) {
      const sets: string[] = ["updated_at = @at"];
      const values: Record<string, unknown> = { id, at };
      for (const [key, value] of Object.entries(change)) {
        const column = CHANGE_COLUMNS[key];
        if (!column || value === undefined) continue;
        sets.push(`${column} = @${column}`);
        values[column] = typeof value === "boolean" ? (value ? 1 : 0) : value;
      }
      await db.prepare(`UPDATE tasks SET ${sets.join(", ")} WHERE id = @id`).run(values);
    },
    async move(id, parentId, at) {
      const task = await byId.get(id);
      if (!task) return;
      const seq = task.sort_path.split("/").at(-1) as string;
      const parentPath = parentId ? ((await byId.get(parentId))?.sort_path ?? "") : "";
      const newPath = parentPath ? `${parentPath}/${seq}` : seq;
      await db.prepare("UPDATE tasks SET parent_id = ?, updated_at = ? WHERE id = ?").run(parentId, at, id);
      await db
        .prepare(SUBTREE_MOVE_SQL)
        .run(newPath, task.sort_path.length + 1, task.sort_path, task.sort_path, task.sort_path);
    },
    async list(filter) {
      const { rows, ...counted } = await page<TaskRow>(filter, COLUMNS);
      return { tasks: rows.map(toTask), ...counted };
    },
    async listSummaries(filter) {
      const { rows, ...counted } = await page<SummaryRow>(filter, SUMMARY_COLUMNS);
      return { tasks: rows.map(toSummary), ...counted };
    },
    async listHeld(filter) {
      const { rows, ...counted } = await page<HeldRow>(filter, HELD_COLUMNS);
      return { tasks: rows.map(toHeld), ...counted };
    },
    async children(id) {
      return (await children.all(id)).map(toSummary);
    },
    async idsStartingWith(prefix, statuses, limit) {
      return pgIdPage(db, "tasks", idsStartingWith(prefix, statuses), limit);
    },
    async ready(accept, limit, excluding = "") {
      const found: ReadyTaskRecord[] = [];
      // Read in growing pages: most calls are satisfied by the first few rows, as SQLite's lazy
      // iteration is, without shipping the whole open board over the wire.
      let page = Math.max(limit * 4, 16);
      for (let offset = 0; ; offset += page, page *= 4) {
        const rows = await ready.all(excluding, page, offset);
        for (const row of rows) {
          const task = toReadyTask(row);
          if (!accept(task)) continue;
          found.push(task);
          if (found.length >= limit) return found;
        }
        if (rows.length < page) return found;
      }
    },
    async countByStatus() {
      const counts: Record<string, number> = {};
      for (const row of await countByStatus.all()) counts[row.status] = row.n;
      return counts;
    },
    async countUnverifiedDone() {
      return Number((await countUnverifiedDone.get())?.n ?? 0);
    },
    async activeBy(owner) {
      return (await activeBy.all(owner)).map(toSummary);
    },
    async byStatus(status, limit) {
      return (await byStatus.all(status, limit)).map(toHeld);
    },
    async unverifiedDone(limit) {
      return (await unverifiedDone.all(limit)).map(toHeld);
    },
    async staleClaims(live) {
      return (await staleClaims.all(live.from, live.to)).map(toHeld);
    },
    async renewLeases(owner, fresh, at) {
      return (await renew.run(at, owner, fresh.from, fresh.to)).changes;
    },
    async hasStaleLease(owner, fresh) {
      return (await hasStale.get(owner, fresh.from, fresh.to)) !== undefined;
    },
    async leaseClock() {
      return ((await serverClock.get()) as { now: string }).now;
    },
  };
}
