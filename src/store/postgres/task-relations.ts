import {
  type CriterionRow,
  DEPENDENCY_COLUMNS,
  type DependencyRow,
  toCriterion,
  toDependency,
} from "../sqlite/task-rows.js";
import type { CriteriaCounts, TaskRepo } from "../tasks.js";
import type { PgDb } from "./db.js";

type TaskRelations = Pick<
  TaskRepo,
  | "criteria"
  | "criteriaCounts"
  | "addCriterion"
  | "setCriterion"
  | "dependencies"
  | "dependents"
  | "addDependency"
  | "removeDependency"
  | "addNote"
  | "notes"
  | "countNotes"
  | "eventsOf"
  | "countEvents"
>;

/** What hangs off a task: criteria, dependencies, notes, and the journal events about it. */
export function pgTaskRelations(db: PgDb): TaskRelations {
  const criteria = db.prepare<[string], CriterionRow>(
    "SELECT * FROM task_criteria WHERE task_id = ? ORDER BY n",
  );
  // Verified as a finish counts it (setsVerifiedDone in domains/tasks/criteria.ts): a command its
  // task's author or the owner set; a holder's own check, or one from before authors were kept.
  const criteriaCounts = db.prepare<[string], CriteriaCounts>(
    `SELECT COUNT(*)::int AS total, COALESCE(SUM(c.checked), 0)::int AS checked,
       COALESCE(SUM(CASE WHEN c.checked = 1 AND (c.evidence::jsonb ->> 'exit_code') = '0'
         AND (c.added_by IS NULL OR c.added_by = 'owner' OR c.added_by = t.created_by) THEN 1 ELSE 0 END), 0)::int AS verified
     FROM task_criteria c JOIN tasks t ON t.id = c.task_id WHERE c.task_id = ?`,
  );
  const nextCriterion = db.prepare<[string], { next: number }>(
    "SELECT COALESCE(MAX(n), 0) + 1 AS next FROM task_criteria WHERE task_id = ?",
  );
  const insertCriterion = db.prepare(
    "INSERT INTO task_criteria (task_id, n, text, verify, shortcut, params, timeout_seconds, setting, shortcut_definition, added_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
  );
  const oneCriterion = db.prepare<[string, number], CriterionRow>(
    "SELECT * FROM task_criteria WHERE task_id = ? AND n = ?",
  );
  const setCriterion = db.prepare(
    "UPDATE task_criteria SET checked = ?, checked_by = ?, checked_at = ?, evidence = COALESCE(?, evidence) WHERE task_id = ? AND n = ?",
  );
  const dependencies = db.prepare<[string], DependencyRow>(
    `SELECT ${DEPENDENCY_COLUMNS} FROM tasks WHERE id IN (SELECT depends_on FROM task_dependencies WHERE task_id = ?) ORDER BY seq`,
  );
  const dependents = db.prepare<[string], { task_id: string }>(
    "SELECT task_id FROM task_dependencies WHERE depends_on = ?",
  );
  const addDependency = db.prepare(
    "INSERT INTO task_dependencies (task_id, depends_on) VALUES (?, ?) ON CONFLICT DO NOTHING",
  );
  const removeDependency = db.prepare("DELETE FROM task_dependencies WHERE task_id = ? AND depends_on = ?");
  const addNote = db.prepare(
    "INSERT INTO task_notes (task_id, at, author, kind, text) VALUES (?, ?, ?, ?, ?)",
  );
  const notes = db.prepare<
    [string, number],
    { task_id: string; at: string; author: string; kind: string; text: string }
  >(
    "SELECT task_id, at, author, kind, text FROM (SELECT seq, task_id, at, author, kind, text FROM task_notes WHERE task_id = ? ORDER BY seq DESC LIMIT ?) AS newest ORDER BY seq",
  );
  const countNotes = db.prepare<[string], { n: number }>(
    "SELECT COUNT(*)::int AS n FROM task_notes WHERE task_id = ?",
  );
  const eventsOf = db.prepare<[string, number], { at: string; actor: string; subject: string; data: string }>(
    "SELECT at, actor, subject, data FROM events WHERE action = ? ORDER BY id DESC LIMIT ?",
  );
  const countEvents = db.prepare<[string], { subject: string; n: number }>(
    "SELECT subject, COUNT(*) AS n FROM events WHERE action = ? GROUP BY subject",
  );

  return {
    async criteria(taskId) {
      return (await criteria.all(taskId)).map(toCriterion);
    },
    async criteriaCounts(taskId) {
      return (await criteriaCounts.get(taskId)) as CriteriaCounts;
    },
    async addCriterion(taskId, criterion) {
      const n = (await nextCriterion.get(taskId))?.next ?? 1;
      await insertCriterion.run(
        taskId,
        n,
        criterion.text,
        criterion.verify ? JSON.stringify(criterion.verify) : null,
        criterion.shortcut,
        JSON.stringify(criterion.params),
        criterion.timeoutSeconds,
        criterion.setting ? JSON.stringify(criterion.setting) : null,
        criterion.shortcutDefinition ? JSON.stringify(criterion.shortcutDefinition) : null,
        criterion.addedBy,
      );
      return toCriterion((await oneCriterion.get(taskId, n)) as CriterionRow);
    },
    async setCriterion(taskId, n, result) {
      await setCriterion.run(
        result.checked ? 1 : 0,
        result.checked ? result.by : null,
        result.checked ? result.at : null,
        result.evidence ? JSON.stringify(result.evidence) : null,
        taskId,
        n,
      );
    },
    async dependencies(taskId) {
      return (await dependencies.all(taskId)).map(toDependency);
    },
    async dependents(taskId) {
      return (await dependents.all(taskId)).map((row) => row.task_id);
    },
    async addDependency(taskId, dependsOn) {
      await addDependency.run(taskId, dependsOn);
    },
    async removeDependency(taskId, dependsOn) {
      await removeDependency.run(taskId, dependsOn);
    },
    async addNote(note) {
      await addNote.run(note.taskId, note.at, note.author, note.kind, note.text);
    },
    async notes(taskId, limit) {
      return (await notes.all(taskId, limit)).map((row) => ({
        taskId: row.task_id,
        at: row.at,
        author: row.author,
        kind: row.kind,
        text: row.text,
      }));
    },
    async countNotes(taskId) {
      return (await countNotes.get(taskId))?.n ?? 0;
    },
    async eventsOf(action, limit) {
      return (await eventsOf.all(action, limit)).map((row) => ({
        at: row.at,
        actor: row.actor,
        subject: row.subject,
        data: JSON.parse(row.data) as Record<string, unknown>,
      }));
    },
    async countEvents(action) {
      // By subject, which is a name: a shortcut called "constructor" must not read Object's.
      const counts: Record<string, number> = Object.create(null);
      for (const row of await countEvents.all(action)) counts[row.subject] = row.n;
      return counts;
    },
  };
}
