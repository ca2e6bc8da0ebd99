import type { NoteKind, NotesRepo, Severity, Trust } from "../knowledge.js";
import { COLUMNS, type NoteRow, placeholders, toRecord } from "../sqlite/note-rows.js";
import type { PgDb } from "./db.js";
import { shortIds } from "./short-ids.js";

export function pgNotes(db: PgDb): NotesRepo {
  const nextId = shortIds(db, "notes", "N");
  const insert = db.prepare(
    "INSERT INTO notes (seq, id, kind, scope, author, created_at, updated_at, severity, trust, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
  );
  const byId = db.prepare<[string], NoteRow>(`SELECT ${COLUMNS} FROM notes WHERE id = ?`);
  const setTrust = db.prepare("UPDATE notes SET trust = ?, trust_by = ?, updated_at = ? WHERE id = ?");
  const supersede = db.prepare<[string, string, string], { id: string }>(
    "UPDATE notes SET superseded_by = ?, superseded_at = ? WHERE id = ? AND superseded_by IS NULL RETURNING id",
  );
  const kindsInScope = db.prepare<[string], { kind: NoteKind }>(
    "SELECT DISTINCT kind FROM notes WHERE scope = ? ORDER BY kind",
  );
  const countInScope = db.prepare<[string], { n: number }>(
    "SELECT COUNT(*)::int AS n FROM notes WHERE scope = ?",
  );

  return {
    async insert(note, at) {
      const { seq, id } = await nextId();
      const severity: Severity | null = note.body.kind === "finding" ? note.body.severity : null;
      const trust: Trust | null = note.body.kind === "finding" ? note.body.trust : null;
      await insert.run(
        seq,
        id,
        note.body.kind,
        note.scope,
        note.author,
        at,
        at,
        severity,
        trust,
        JSON.stringify(note.body),
      );
      return toRecord((await byId.get(id)) as NoteRow);
    },
    async byId(id) {
      const row = await byId.get(id);
      return row ? toRecord(row) : undefined;
    },
    async list(filter) {
      const where: string[] = [];
      const params: (string | number)[] = [];
      if (filter.kinds && filter.kinds.length > 0) {
        where.push(`kind IN (${placeholders(filter.kinds.length)})`);
        params.push(...filter.kinds);
      }
      if (filter.scopes) {
        if (filter.scopes.length === 0) return [];
        where.push(`scope IN (${placeholders(filter.scopes.length)})`);
        params.push(...filter.scopes);
      }
      const sql = `SELECT ${COLUMNS} FROM notes ${where.length > 0 ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY seq DESC LIMIT ?`;
      return (await db.prepare<(string | number)[], NoteRow>(sql).all(...params, filter.limit)).map(toRecord);
    },
    async findings(scopes, limit, childrenOf) {
      if (scopes.length === 0 && childrenOf === undefined) return [];
      // One list of wanted scopes, so the planner can drive (scope, kind) lookups from it; an OR
      // of two IN tests leaves the children's arm to a filter over every finding.
      const wanted = [
        ...(scopes.length > 0 ? [`VALUES ${scopes.map(() => "(?)").join(", ")}`] : []),
        ...(childrenOf === undefined ? [] : ["SELECT 'task:' || id FROM tasks WHERE parent_id = ?"]),
      ].join(" UNION ALL ");
      const sql = `SELECT ${COLUMNS} FROM notes WHERE kind = 'finding' AND scope IN (${wanted})
        ORDER BY CASE severity WHEN 'major' THEN 0 WHEN 'moderate' THEN 1 ELSE 2 END,
                 CASE trust WHEN 'confirmed' THEN 0 WHEN 'unverified' THEN 1 ELSE 2 END,
                 seq DESC
        LIMIT ?`;
      const params = childrenOf === undefined ? [...scopes, limit] : [...scopes, childrenOf, limit];
      return (await db.prepare<(string | number)[], NoteRow>(sql).all(...params)).map(toRecord);
    },
    async supersede(id, by, at) {
      return (await supersede.all(by, at, id)).length === 1;
    },
    async setTrust(id, trust, at, by) {
      await setTrust.run(trust, by, at, id);
    },
    async countInScope(scope) {
      return (await countInScope.get(scope))?.n ?? 0;
    },
    async kindsInScope(scope) {
      return (await kindsInScope.all(scope)).map((row) => row.kind);
    },
  };
}
