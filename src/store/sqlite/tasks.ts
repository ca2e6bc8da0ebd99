import type Database from "better-sqlite3";
import { idsStartingWith } from "../id-prefix.js";
import { sortPathUnder } from "../sort-path.js";
import type { ReadyTaskRecord, TaskFilter, TaskRecord, TaskRepo } from "../tasks.js";
import { sqliteIdPage } from "./id-page.js";
import { shortIds } from "./short-ids.js";
import { statementCache } from "./statement-cache.js";
import {
  countPage,
  HELD_ROWS,
  type PageQuery,
  readPage,
  SUMMARY_ROWS,
  TASK_ORDER_BY,
  WHOLE_ROWS,
} from "./task-pages.js";
import { sqliteTaskRelations } from "./task-relations.js";
import {
  COLUMNS,
  HELD_COLUMNS,
  heldOf,
  RANK,
  READY_COLUMNS,
  readyTaskOf,
  SUBTREE_MOVE_SQL,
  SUMMARY_COLUMNS,
  summaryOf,
  toHeld,
  toSummary,
  toTask,
} from "./task-rows.js";
import { taskRows } from "./task-statements.js";

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

/** The page a list filter asks for: its WHERE terms, bound values and order. */
function pageQuery(filter: TaskFilter): PageQuery {
  const where: string[] = [];
  const values: Record<string, unknown> = {};
  if (filter.owner !== undefined) {
    where.push("owner = @owner");
    values.owner = filter.owner;
  }
  if (filter.parent !== undefined) {
    where.push("parent_id = @parent");
    values.parent = filter.parent;
  }
  if (filter.label !== undefined) {
    // Labels are stored as a JSON array. The substring test is many times cheaper than
    // expanding every row with json_each, but not exact (the label `x","urgent` holds
    // `"urgent"`): the rows it passes are checked element by element.
    where.push(
      "(instr(labels, @label) > 0 AND EXISTS (SELECT 1 FROM json_each(labels) WHERE json_each.value = @exactLabel))",
    );
    values.label = JSON.stringify(filter.label);
    values.exactLabel = filter.label;
  }
  if (filter.text !== undefined) {
    where.push("(instr(lower(title), lower(@text)) > 0 OR instr(lower(context), lower(@text)) > 0)");
    values.text = filter.text;
  }
  if (filter.after !== undefined) {
    // No such task: no row is after it.
    where.push("sort_path > (SELECT sort_path FROM tasks WHERE id = @after)");
    values.after = filter.after;
  }
  return {
    where,
    values,
    statuses: filter.status ?? [],
    selective: filter.owner !== undefined || filter.parent !== undefined,
    limit: filter.limit,
    offset: filter.offset,
    orderBy: TASK_ORDER_BY[filter.order ?? "tree"],
  };
}

/**
 * Tasks finished unverified, read from their partial index (migration 0021), never by walking
 * every done task's row (test/unit/store-contract-light-heads.test.ts checks the plans).
 */
export const COUNT_UNVERIFIED_DONE_SQL =
  "SELECT COUNT(*) AS n FROM tasks INDEXED BY tasks_unverified_done WHERE status = 'done' AND unverified = 1";
export const UNVERIFIED_DONE_SQL = `SELECT ${HELD_COLUMNS} FROM tasks INDEXED BY tasks_unverified_done WHERE status = 'done' AND unverified = 1 ORDER BY seq DESC LIMIT +?`;

export function sqliteTasks(db: Database.Database): TaskRepo {
  const byId = taskRows(db.prepare<[string], unknown[]>(`SELECT ${COLUMNS} FROM tasks WHERE id = ?`));
  const nextId = shortIds(db, "tasks", "T");
  const insert = db.prepare(
    `INSERT INTO tasks (seq, id, title, so_that, context, parent_id, sort_path, priority, priority_rank, status,
      estimate, traces, labels, created_by, created_at, updated_at)
     VALUES (@seq, @id, @title, @so_that, @context, @parent_id, @sort_path, @priority, @rank, 'open',
      @estimate, @traces, @labels, @created_by, @at, @at)`,
  );
  const children = db
    .prepare<[string], unknown[]>(`SELECT ${SUMMARY_COLUMNS} FROM tasks WHERE parent_id = ? ORDER BY seq`)
    .raw(true);
  const summaryById = db
    .prepare<[string], unknown[]>(`SELECT ${SUMMARY_COLUMNS} FROM tasks WHERE id = ?`)
    .raw(true);
  const ready = db
    .prepare<[string], unknown[]>(
      `SELECT ${READY_COLUMNS} FROM tasks WHERE status = 'open' AND priority_rank < 3 AND id != ?
     AND NOT ${UNFINISHED_DEPENDENCY} ORDER BY priority_rank, sort_path`,
    )
    .raw(true);
  const countByStatus = db.prepare<[], { status: string; n: number }>(
    "SELECT status, COUNT(*) AS n FROM tasks GROUP BY status",
  );
  const countUnverifiedDone = db.prepare<[], { n: number }>(COUNT_UNVERIFIED_DONE_SQL);
  const activeBy = db
    .prepare<[string], unknown[]>(
      `SELECT ${SUMMARY_COLUMNS} FROM tasks WHERE owner = ? AND status = 'active' ORDER BY seq`,
    )
    .raw(true);
  // Held tasks, read as values: none of a task's long columns (see HELD_COLUMNS).
  const byStatus = db
    .prepare<[string, number], unknown[]>(
      `SELECT ${HELD_COLUMNS} FROM tasks WHERE status = ? ORDER BY seq LIMIT +?`,
    )
    .raw(true);
  const unverifiedDone = db.prepare<[number], unknown[]>(UNVERIFIED_DONE_SQL).raw(true);
  const staleClaims = db
    .prepare<[string, string], unknown[]>(
      `SELECT ${HELD_COLUMNS} FROM tasks WHERE status = 'active' AND (lease_at < ? OR lease_at > ?) ORDER BY seq`,
    )
    .raw(true);
  const renew = db.prepare(
    "UPDATE tasks SET lease_at = ? WHERE owner = ? AND status = 'active' AND (lease_at < ? OR lease_at > ?)",
  );
  const hasStale = db.prepare<[string, string, string], { one: number }>(
    "SELECT 1 AS one FROM tasks WHERE owner = ? AND status = 'active' AND (lease_at < ? OR lease_at > ?) LIMIT 1",
  );
  // One prepared UPDATE per set of changed columns (a handful in practice), not one per call.
  const update = statementCache(db);
  const get = (id: string) => {
    const row = byId.get(id);
    return row ? toTask(row) : undefined;
  };

  return {
    ...sqliteTaskRelations(db),
    async insert(task, at) {
      const { seq, id } = nextId();
      const parentPath = task.parentId ? (byId.get(task.parentId)?.sort_path ?? "") : "";
      insert.run({
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
      return get(id) as TaskRecord;
    },
    async byId(id) {
      return get(id);
    },
    async byIds(ids) {
      return ids.flatMap((id) => {
        const values = summaryById.get(id);
        return values ? [summaryOf(values)] : [];
      });
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
      const sql = `UPDATE tasks SET ${sets.join(", ")} WHERE id = @id`;
      update(sql).run(values);
    },
    async move(id, parentId, at) {
      const task = byId.get(id);
      if (!task) return;
      const seq = task.sort_path.split("/").at(-1) as string;
      const parentPath = parentId ? (byId.get(parentId)?.sort_path ?? "") : "";
      const newPath = parentPath ? `${parentPath}/${seq}` : seq;
      db.prepare("UPDATE tasks SET parent_id = ?, updated_at = ? WHERE id = ?").run(parentId, at, id);
      db.prepare(SUBTREE_MOVE_SQL).run(
        newPath,
        task.sort_path.length + 1,
        task.sort_path,
        task.sort_path,
        task.sort_path,
      );
    },
    async list(filter) {
      const query = pageQuery(filter);
      const { total, capped } = countPage(db, query);
      return { tasks: readPage(db, query, WHOLE_ROWS).map(toTask), total, ...(capped ? { capped } : {}) };
    },
    async listSummaries(filter) {
      const query = pageQuery(filter);
      const { total, capped } = countPage(db, query);
      return {
        tasks: readPage(db, query, SUMMARY_ROWS).map(toSummary),
        total,
        ...(capped ? { capped } : {}),
      };
    },
    async listHeld(filter) {
      const query = pageQuery(filter);
      const { total, capped } = countPage(db, query);
      return { tasks: readPage(db, query, HELD_ROWS).map(toHeld), total, ...(capped ? { capped } : {}) };
    },
    async children(id) {
      return children.all(id).map(summaryOf);
    },
    async idsStartingWith(prefix, statuses, limit) {
      return sqliteIdPage(db, "tasks", idsStartingWith(prefix, statuses), limit);
    },
    async ready(accept, limit, excluding = "") {
      const found: ReadyTaskRecord[] = [];
      for (const values of ready.iterate(excluding)) {
        const task = readyTaskOf(values);
        if (!accept(task)) continue;
        found.push(task);
        if (found.length >= limit) break;
      }
      return found;
    },
    async countByStatus() {
      const counts: Record<string, number> = {};
      for (const row of countByStatus.all()) counts[row.status] = row.n;
      return counts;
    },
    async countUnverifiedDone() {
      return Number(countUnverifiedDone.get()?.n ?? 0);
    },
    async activeBy(owner) {
      return activeBy.all(owner).map(summaryOf);
    },
    async byStatus(status, limit) {
      return byStatus.all(status, limit).map(heldOf);
    },
    async unverifiedDone(limit) {
      return unverifiedDone.all(limit).map(heldOf);
    },
    async staleClaims(live) {
      return staleClaims.all(live.from, live.to).map(heldOf);
    },
    async renewLeases(owner, fresh, at) {
      return renew.run(at, owner, fresh.from, fresh.to).changes;
    },
    async hasStaleLease(owner, fresh) {
      return hasStale.get(owner, fresh.from, fresh.to) !== undefined;
    },
    async leaseClock(local) {
      return local;
    },
  };
}
