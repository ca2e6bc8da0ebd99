import type Database from "better-sqlite3";
import type { NoteKind, NotesRepo, Severity, Trust } from "../knowledge.js";
import { findingPages } from "./note-findings.js";
import { COLUMNS, type NoteRow, noteRowOf, placeholders, toRecord } from "./note-rows.js";
import { shortIds } from "./short-ids.js";
import { statementCache } from "./statement-cache.js";

/**
 * One (scope, kind) pair's newest notes, seq first: a walk down notes_scope_kind from its end,
 * with no sort (a unit test holds the plan to that).
 */
export const NEWEST_OF_PAIR = `SELECT seq, ${COLUMNS} FROM notes INDEXED BY notes_scope_kind
  WHERE scope = ? AND kind = ? ORDER BY seq DESC LIMIT +?`;

/** Past this many (scope, kind) pairs, a list is one statement that sorts what it reads. */
const MAX_PAGED_PAIRS = 32;

export function sqliteNotes(db: Database.Database): NotesRepo {
  const nextId = shortIds(db, "notes", "N");
  const insert = db.prepare(
    "INSERT INTO notes (seq, id, kind, scope, author, created_at, updated_at, severity, trust, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
  );
  const byId = db.prepare<[string], NoteRow>(`SELECT ${COLUMNS} FROM notes WHERE id = ?`);
  const setTrust = db.prepare("UPDATE notes SET trust = ?, trust_by = ?, updated_at = ? WHERE id = ?");
  const supersede = db.prepare(
    "UPDATE notes SET superseded_by = ?, superseded_at = ? WHERE id = ? AND superseded_by IS NULL",
  );
  // A list's SQL depends only on how many kinds and scopes it filters by: a handful of shapes,
  // each prepared once (a brief lists decisions for its task, parents and the workspace).
  const listStatement = statementCache<unknown[]>(db, { raw: true });
  const findings = findingPages(db);
  const pageOfPair = db.prepare<[string, string, number], unknown[]>(NEWEST_OF_PAIR).raw(true);
  /**
   * The newest `limit` notes over a few (scope, kind) pairs, merged from one page per pair, as
   * values (seq, then COLUMNS). Each page is already newest first, so the first `limit` of the
   * merged pages are the first `limit` of all. One statement over every pair read and sorted all
   * of their notes, and the workspace of a mature board holds hundreds of decisions: a brief paid
   * for reading and sorting them all (150 rows for its 20 on the scale bench's board).
   */
  const newestOfPairs = (scopes: readonly string[], kinds: readonly string[], limit: number) => {
    if (limit <= 0) return [];
    const pages = [...new Set(scopes)].flatMap((scope) =>
      kinds.map((kind) => pageOfPair.all(scope, kind, limit)),
    );
    return pages
      .flat()
      .sort((a, b) => (b[0] as number) - (a[0] as number))
      .slice(0, limit);
  };
  const kindsInScope = db.prepare<[string], { kind: NoteKind }>(
    "SELECT DISTINCT kind FROM notes WHERE scope = ? ORDER BY kind",
  );
  const countInScope = db.prepare<[string], { n: number }>("SELECT COUNT(*) AS n FROM notes WHERE scope = ?");

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
      if (filter.scopes?.length === 0) return [];
      const kinds = filter.kinds && filter.kinds.length > 0 ? [...new Set(filter.kinds)] : undefined;
      if (filter.scopes && kinds && filter.scopes.length * kinds.length <= MAX_PAGED_PAIRS) {
        return newestOfPairs(filter.scopes, kinds, filter.limit).map((values) =>
          toRecord(noteRowOf(values, 1)),
        );
      }
      const where: string[] = [];
      const params: (string | number)[] = [];
      if (kinds) {
        where.push(`kind IN (${placeholders(kinds.length)})`);
        params.push(...kinds);
      }
      if (filter.scopes) {
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
    async supersede(id, by, at) {
      return supersede.run(by, at, id).changes === 1;
    },
    async setTrust(id, trust, at, by) {
      setTrust.run(trust, by, at, id);
    },
    async countInScope(scope) {
      return countInScope.get(scope)?.n ?? 0;
    },
    async kindsInScope(scope) {
      return kindsInScope.all(scope).map((row) => row.kind);
    },
  };
}
