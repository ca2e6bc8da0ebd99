import type Database from "better-sqlite3";
import type { NoteKind, NotesRepo, Severity, Trust } from "../knowledge.js";
import { COLUMNS, type NoteRow, placeholders, toRecord } from "./note-rows.js";
import { shortIds } from "./short-ids.js";

/** The note columns, each named through the `n` alias (a join would make `seq` ambiguous). */
const NOTE_COLUMNS = COLUMNS.split(", ")
  .map((column) => `n.${column} AS ${column}`)
  .join(", ");

export function sqliteNotes(db: Database.Database): NotesRepo {
  const nextId = shortIds(db, "notes", "N");
  const insert = db.prepare(
    "INSERT INTO notes (seq, id, kind, scope, author, created_at, updated_at, severity, trust, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
  );
  const byId = db.prepare<[string], NoteRow>(`SELECT ${COLUMNS} FROM notes WHERE id = ?`);
  const setTrust = db.prepare("UPDATE notes SET trust = ?, updated_at = ? WHERE id = ?");
  // A list's SQL depends only on how many kinds and scopes it filters by: a handful of shapes,
  // each prepared once (a brief lists decisions for its task, parents and the workspace).
  const listStatements = new Map<string, Database.Statement<(string | number)[], NoteRow>>();
  const listStatement = (sql: string) => {
    let statement = listStatements.get(sql);
    if (!statement) {
      if (listStatements.size >= 64) listStatements.clear();
      statement = db.prepare<(string | number)[], NoteRow>(sql);
      listStatements.set(sql, statement);
    }
    return statement;
  };
  // Scopes travel as one JSON array: one prepared statement for any number of them (a brief
  // asks for a task, its parents and every sibling), each looked up by the scope index. Joined
  // from the distinct scopes rather than `scope IN (subquery)`, which builds a temporary index
  // and a Bloom filter of the list on every call: with a hundred siblings that was most of a
  // brief's findings query (about 150 µs against 45). The children's scopes are made in the same
  // statement from the parent index, so a brief never reads or ships its hundred siblings' ids.
  // CROSS JOIN keeps the scopes outside, each looked up in (scope, kind): left to itself (no
  // statistics) the planner walks every finding of the workspace instead, which with 20,000
  // findings cost a brief about 9 ms against 0.1.
  const findings = db.prepare<[string, string | null, number], NoteRow>(
    `SELECT ${NOTE_COLUMNS} FROM (SELECT value AS scope FROM json_each(?)
       UNION SELECT 'task:' || id FROM tasks WHERE parent_id = ?) wanted
     CROSS JOIN notes n ON n.scope = wanted.scope AND n.kind = 'finding'
     ORDER BY CASE n.severity WHEN 'major' THEN 0 WHEN 'moderate' THEN 1 ELSE 2 END,
              CASE n.trust WHEN 'confirmed' THEN 0 WHEN 'unverified' THEN 1 ELSE 2 END,
              n.seq DESC
     LIMIT ?`,
  );
  const kindsInScope = db.prepare<[string], { kind: NoteKind }>(
    "SELECT DISTINCT kind FROM notes WHERE scope = ? ORDER BY kind",
  );

  return {
    async insert(note, at) {
      const { seq, id } = nextId();
      const severity: Severity | null = note.body.kind === "finding" ? note.body.severity : null;
      const trust: Trust | null = note.body.kind === "finding" ? note.body.trust : null;
      insert.run(
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
      return toRecord(byId.get(id) as NoteRow);
    },
    async byId(id) {
      const row = byId.get(id);
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
      // Scoped lists read only their scopes' notes: the planner would otherwise walk every note of
      // the kind, newest first, to fill the page (a brief's decisions, 20,000 of them: ~7 ms).
      const from = filter.scopes ? "notes INDEXED BY notes_scope_kind" : "notes";
      const sql = `SELECT ${COLUMNS} FROM ${from} ${where.length > 0 ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY seq DESC LIMIT ?`;
      return listStatement(sql)
        .all(...params, filter.limit)
        .map(toRecord);
    },
    async findings(scopes, limit, childrenOf) {
      if (scopes.length === 0 && childrenOf === undefined) return [];
      return findings.all(JSON.stringify(scopes), childrenOf ?? null, limit).map(toRecord);
    },
    async setTrust(id, trust, at) {
      setTrust.run(trust, at, id);
    },
    async kindsInScope(scope) {
      return kindsInScope.all(scope).map((row) => row.kind);
    },
  };
}
