import type Database from "better-sqlite3";
import type {
  CriterionRecord,
  Estimate,
  Evidence,
  Priority,
  TaskRecord,
  TaskRepo,
  TaskStatus,
} from "../tasks.js";

interface TaskRow {
  id: string;
  title: string;
  so_that: string;
  context: string;
  parent_id: string | null;
  sort_path: string;
  priority: Priority;
  status: TaskStatus;
  owner: string | null;
  claimed_at: string | null;
  lease_at: string | null;
  blocked_reason: string | null;
  estimate: string | null;
  traces: string;
  labels: string;
  milestone_id: string | null;
  unverified: number;
  created_by: string;
  created_at: string;
  updated_at: string;
}

interface CriterionRow {
  task_id: string;
  n: number;
  text: string;
  verify: string | null;
  shortcut: string | null;
  params: string;
  timeout_seconds: number | null;
  checked: number;
  checked_by: string | null;
  checked_at: string | null;
  evidence: string | null;
}

const COLUMNS =
  "id, title, so_that, context, parent_id, sort_path, priority, status, owner, claimed_at, lease_at, blocked_reason, estimate, traces, labels, milestone_id, unverified, created_by, created_at, updated_at";

const RANK: Record<Priority, number> = { must: 0, should: 1, could: 2, wont: 3 };
/** Wide enough for a billion tasks, so string order is numeric order. */
const pad = (seq: number) => String(seq).padStart(9, "0");

function toTask(row: TaskRow): TaskRecord {
  return {
    id: row.id,
    title: row.title,
    soThat: row.so_that,
    context: row.context,
    parentId: row.parent_id,
    sortPath: row.sort_path,
    priority: row.priority,
    status: row.status,
    owner: row.owner,
    claimedAt: row.claimed_at,
    leaseAt: row.lease_at,
    blockedReason: row.blocked_reason,
    estimate: row.estimate ? (JSON.parse(row.estimate) as Estimate) : null,
    traces: JSON.parse(row.traces) as string[],
    labels: JSON.parse(row.labels) as string[],
    milestoneId: row.milestone_id,
    unverified: row.unverified === 1,
    createdBy: row.created_by,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function toCriterion(row: CriterionRow): CriterionRecord {
  return {
    taskId: row.task_id,
    n: row.n,
    text: row.text,
    verify: row.verify ? (JSON.parse(row.verify) as string[]) : null,
    shortcut: row.shortcut,
    params: JSON.parse(row.params) as Record<string, string>,
    timeoutSeconds: row.timeout_seconds,
    checked: row.checked === 1,
    checkedBy: row.checked_by,
    checkedAt: row.checked_at,
    evidence: row.evidence ? (JSON.parse(row.evidence) as Evidence) : null,
  };
}

const CHANGE_COLUMNS: Record<string, string> = {
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

export function sqliteTasks(db: Database.Database): TaskRepo {
  const byId = db.prepare<[string], TaskRow>(`SELECT ${COLUMNS} FROM tasks WHERE id = ?`);
  const nextSeq = db.prepare<[], { next: number }>(
    "SELECT COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'tasks'), 0) + 1 AS next",
  );
  const insert = db.prepare(
    `INSERT INTO tasks (seq, id, title, so_that, context, parent_id, sort_path, priority, priority_rank, status,
      estimate, traces, labels, created_by, created_at, updated_at)
     VALUES (@seq, @id, @title, @so_that, @context, @parent_id, @sort_path, @priority, @rank, 'open',
      @estimate, @traces, @labels, @created_by, @at, @at)`,
  );
  const children = db.prepare<[string], TaskRow>(
    `SELECT ${COLUMNS} FROM tasks WHERE parent_id = ? ORDER BY seq`,
  );
  const ready = db.prepare<[string], TaskRow>(
    `SELECT ${COLUMNS} FROM tasks WHERE status = 'open' AND priority_rank < 3 AND id != ?
     AND NOT ${UNFINISHED_DEPENDENCY} ORDER BY priority_rank, sort_path`,
  );
  const countByStatus = db.prepare<[], { status: string; n: number }>(
    "SELECT status, COUNT(*) AS n FROM tasks GROUP BY status",
  );
  const activeBy = db.prepare<[string], TaskRow>(
    `SELECT ${COLUMNS} FROM tasks WHERE owner = ? AND status = 'active' ORDER BY seq`,
  );
  const byStatus = db.prepare<[string, number], TaskRow>(
    `SELECT ${COLUMNS} FROM tasks WHERE status = ? ORDER BY seq LIMIT ?`,
  );
  const unverifiedDone = db.prepare<[number], TaskRow>(
    `SELECT ${COLUMNS} FROM tasks WHERE status = 'done' AND unverified = 1 ORDER BY seq DESC LIMIT ?`,
  );
  const staleClaims = db.prepare<[string], TaskRow>(
    `SELECT ${COLUMNS} FROM tasks WHERE status = 'active' AND lease_at < ? ORDER BY seq`,
  );
  const renew = db.prepare(
    "UPDATE tasks SET lease_at = ? WHERE owner = ? AND status = 'active' AND lease_at < ?",
  );
  const hasStale = db.prepare<[string, string], { one: number }>(
    "SELECT 1 AS one FROM tasks WHERE owner = ? AND status = 'active' AND lease_at < ? LIMIT 1",
  );
  const criteria = db.prepare<[string], CriterionRow>(
    "SELECT * FROM task_criteria WHERE task_id = ? ORDER BY n",
  );
  const nextCriterion = db.prepare<[string], { next: number }>(
    "SELECT COALESCE(MAX(n), 0) + 1 AS next FROM task_criteria WHERE task_id = ?",
  );
  const insertCriterion = db.prepare(
    "INSERT INTO task_criteria (task_id, n, text, verify, shortcut, params, timeout_seconds) VALUES (?, ?, ?, ?, ?, ?, ?)",
  );
  const oneCriterion = db.prepare<[string, number], CriterionRow>(
    "SELECT * FROM task_criteria WHERE task_id = ? AND n = ?",
  );
  const setCriterion = db.prepare(
    "UPDATE task_criteria SET checked = ?, checked_by = ?, checked_at = ?, evidence = COALESCE(?, evidence) WHERE task_id = ? AND n = ?",
  );
  const dependencies = db.prepare<[string], TaskRow>(
    `SELECT ${COLUMNS} FROM tasks WHERE id IN (SELECT depends_on FROM task_dependencies WHERE task_id = ?) ORDER BY seq`,
  );
  const dependents = db.prepare<[string], { task_id: string }>(
    "SELECT task_id FROM task_dependencies WHERE depends_on = ?",
  );
  const addDependency = db.prepare(
    "INSERT OR IGNORE INTO task_dependencies (task_id, depends_on) VALUES (?, ?)",
  );
  const removeDependency = db.prepare("DELETE FROM task_dependencies WHERE task_id = ? AND depends_on = ?");
  const addNote = db.prepare(
    "INSERT INTO task_notes (task_id, at, author, kind, text) VALUES (?, ?, ?, ?, ?)",
  );
  const notes = db.prepare<
    [string],
    { task_id: string; at: string; author: string; kind: string; text: string }
  >("SELECT task_id, at, author, kind, text FROM task_notes WHERE task_id = ? ORDER BY seq");
  const hasNotesTable = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'notes'");
  const eventsOf = db.prepare<[string, number], { at: string; actor: string; subject: string; data: string }>(
    "SELECT at, actor, subject, data FROM events WHERE action = ? ORDER BY id DESC LIMIT ?",
  );
  const countEvents = db.prepare<[string], { subject: string; n: number }>(
    "SELECT subject, COUNT(*) AS n FROM events WHERE action = ? GROUP BY subject",
  );

  const get = (id: string) => {
    const row = byId.get(id);
    return row ? toTask(row) : undefined;
  };

  return {
    async insert(task, at) {
      const seq = nextSeq.get()?.next ?? 1;
      const id = `T-${seq}`;
      const parentPath = task.parentId ? (byId.get(task.parentId)?.sort_path ?? "") : "";
      insert.run({
        seq,
        id,
        title: task.title,
        so_that: task.soThat,
        context: task.context,
        parent_id: task.parentId,
        sort_path: parentPath ? `${parentPath}/${pad(seq)}` : pad(seq),
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
      return ids.map(get).filter((task): task is TaskRecord => task !== undefined);
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
      db.prepare(`UPDATE tasks SET ${sets.join(", ")} WHERE id = @id`).run(values);
    },
    async move(id, parentId, at) {
      const task = byId.get(id);
      if (!task) return;
      const seq = task.sort_path.split("/").at(-1) as string;
      const parentPath = parentId ? (byId.get(parentId)?.sort_path ?? "") : "";
      const newPath = parentPath ? `${parentPath}/${seq}` : seq;
      db.prepare("UPDATE tasks SET parent_id = ?, updated_at = ? WHERE id = ?").run(parentId, at, id);
      db.prepare(
        "UPDATE tasks SET sort_path = ? || substr(sort_path, ?) WHERE sort_path = ? OR sort_path LIKE ? || '/%'",
      ).run(newPath, task.sort_path.length + 1, task.sort_path, task.sort_path);
    },
    async list(filter) {
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
        // Labels are stored as a JSON array; a quoted element can only match a whole label, and a
        // substring test is many times cheaper than expanding every row with json_each.
        where.push("instr(labels, @label) > 0");
        values.label = JSON.stringify(filter.label);
      }
      if (filter.text !== undefined) {
        where.push("(instr(lower(title), lower(@text)) > 0 OR instr(lower(context), lower(@text)) > 0)");
        values.text = filter.text;
      }
      const clause = where.length > 0 ? `WHERE ${where.join(" AND ")}` : "";
      // Owner and parent are selective: let the planner use their indexes. Otherwise the page
      // walks the tree index in order and stops once it is full, instead of sorting every match;
      // the count is answered from the (status, labels) index without reading the rows.
      const selective = filter.owner !== undefined || filter.parent !== undefined;
      const pageFrom = selective ? "tasks" : "tasks INDEXED BY tasks_tree";
      const total = (db.prepare(`SELECT COUNT(*) AS n FROM tasks ${clause}`).get(values) as { n: number }).n;
      const rows = db
        .prepare(
          `SELECT ${COLUMNS} FROM ${pageFrom} ${clause} ORDER BY sort_path LIMIT @limit OFFSET @offset`,
        )
        .all({ ...values, limit: filter.limit, offset: filter.offset }) as TaskRow[];
      return { tasks: rows.map(toTask), total };
    },
    async children(id) {
      return children.all(id).map(toTask);
    },
    async ready(accept, limit, excluding = "") {
      const found: TaskRecord[] = [];
      for (const row of ready.iterate(excluding)) {
        const task = toTask(row);
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
    async activeBy(owner) {
      return activeBy.all(owner).map(toTask);
    },
    async byStatus(status, limit) {
      return byStatus.all(status, limit).map(toTask);
    },
    async unverifiedDone(limit) {
      return unverifiedDone.all(limit).map(toTask);
    },
    async staleClaims(cutoff) {
      return staleClaims.all(cutoff).map(toTask);
    },
    async renewLeases(owner, olderThan, at) {
      return renew.run(at, owner, olderThan).changes;
    },
    async hasStaleLease(owner, olderThan) {
      return hasStale.get(owner, olderThan) !== undefined;
    },
    async criteria(taskId) {
      return criteria.all(taskId).map(toCriterion);
    },
    async addCriterion(taskId, criterion) {
      const n = nextCriterion.get(taskId)?.next ?? 1;
      insertCriterion.run(
        taskId,
        n,
        criterion.text,
        criterion.verify ? JSON.stringify(criterion.verify) : null,
        criterion.shortcut,
        JSON.stringify(criterion.params),
        criterion.timeoutSeconds,
      );
      return toCriterion(oneCriterion.get(taskId, n) as CriterionRow);
    },
    async setCriterion(taskId, n, result) {
      setCriterion.run(
        result.checked ? 1 : 0,
        result.checked ? result.by : null,
        result.checked ? result.at : null,
        result.evidence ? JSON.stringify(result.evidence) : null,
        taskId,
        n,
      );
    },
    async dependencies(taskId) {
      return dependencies.all(taskId).map(toTask);
    },
    async dependents(taskId) {
      return dependents.all(taskId).map((row) => row.task_id);
    },
    async addDependency(taskId, dependsOn) {
      addDependency.run(taskId, dependsOn);
    },
    async removeDependency(taskId, dependsOn) {
      removeDependency.run(taskId, dependsOn);
    },
    async addNote(note) {
      addNote.run(note.taskId, note.at, note.author, note.kind, note.text);
    },
    async notes(taskId) {
      return notes.all(taskId).map((row) => ({
        taskId: row.task_id,
        at: row.at,
        author: row.author,
        kind: row.kind,
        text: row.text,
      }));
    },
    async noteKindsOn(taskId) {
      if (!hasNotesTable.get()) return null;
      const rows = db.prepare("SELECT DISTINCT kind FROM notes WHERE scope = ?").all(taskId) as {
        kind: string;
      }[];
      return rows.map((row) => row.kind);
    },
    async eventsOf(action, limit) {
      return eventsOf.all(action, limit).map((row) => ({
        at: row.at,
        actor: row.actor,
        subject: row.subject,
        data: JSON.parse(row.data) as Record<string, unknown>,
      }));
    },
    async countEvents(action) {
      const counts: Record<string, number> = {};
      for (const row of countEvents.all(action)) counts[row.subject] = row.n;
      return counts;
    },
  };
}
