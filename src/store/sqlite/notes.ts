import type Database from "better-sqlite3";
import type { NoteKind, NotesRepo, Severity, Trust } from "../knowledge.js";
import { findingPages } from "./note-findings.js";
import { COLUMNS, type NoteRow, noteRowOf, placeholders, toRecord } from "./note-rows.js";
import { shortIds } from "./short-ids.js";
import { statementCache } from "./statement-cache.js";

export function sqliteNotes(db: Database.Database): NotesRepo {
  const nextId = shortIds(db, "notes", "N");
  const insert = db.prepare(
    "INSERT INTO notes (seq, id, kind, scope, author, created_at, updated_at, severity, trust, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
  );
  const byId = db.prepare<[string], NoteRow>(`SELECT ${COLUMNS} FROM notes WHERE id = ?`);
  const setTrust = db.prepare("UPDATE notes SET trust = ?, updated_at = ? WHERE id = ?");
  // A list's SQL depends only on how many kinds and scopes it filters by: a handful of shapes,
  // each prepared once (a brief lists decisions for its task, parents and the workspace).
  const listStatement = statementCache<unknown[]>(db, { raw: true });
  const findings = findingPages(db);
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
      const sql = `SELECT ${COLUMNS} FROM ${from} ${where.length > 0 ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY seq DESC LIMIT +?`;
      return listStatement(sql)
        .all(...params, filter.limit)
        .map((values) => toRecord(noteRowOf(values)));
    },
    async findings(scopes, limit, childrenOf) {
      return findings(scopes, limit, childrenOf).map(toRecord);
    },
    async setTrust(id, trust, at) {
      setTrust.run(trust, at, id);
    },
    async kindsInScope(scope) {
      return kindsInScope.all(scope).map((row) => row.kind);
    },
  };
}
