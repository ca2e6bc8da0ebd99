import type Database from "better-sqlite3";
import type { BriefRecord, BriefsRepo, GlossaryEntry, GlossaryRepo, RisksRepo } from "../knowledge.js";
import { RISK_STATE, type RiskRow, riskPageSql, statesOf, toRisk } from "./risk-rows.js";
import { shortIds } from "./short-ids.js";

export function sqliteRisks(db: Database.Database): RisksRepo {
  // RK-n: goal runs own R-n. Risks stored as R-n before keep their ids (the numbers go on).
  const nextId = shortIds(db, "risks", "RK");
  const insert = db.prepare(
    "INSERT INTO risks (seq, id, scope, risk, impact, likelihood, indicators, action, author, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
  );
  const byId = db.prepare<[string], RiskRow>("SELECT * FROM risks WHERE id = ?");
  const all = db.prepare<[], RiskRow>("SELECT * FROM risks ORDER BY seq");
  // Each scope looked up in risks_scope (a brief asks for its task, parents and the workspace);
  // CROSS JOIN keeps the scopes outside, so only their risks are read and then sorted.
  const inScopes = db.prepare<[string], RiskRow>(
    "SELECT r.* FROM json_each(?) j CROSS JOIN risks r ON r.scope = j.value ORDER BY r.seq",
  );
  const IN_STATES = `WHERE ${RISK_STATE} IN (?, ?)`;
  const IN_SCOPES = `WHERE scope IN (SELECT value FROM json_each(?)) AND ${RISK_STATE} IN (?, ?)`;
  const page = db.prepare<[string, string, number, number], RiskRow>(riskPageSql(IN_STATES, "+?", "+?"));
  const pageInScopes = db.prepare<[string, string, string, number, number], RiskRow>(
    riskPageSql(IN_SCOPES, "+?", "+?"),
  );
  const count = db.prepare<[string, string], { n: number }>(`SELECT COUNT(*) AS n FROM risks ${IN_STATES}`);
  const countInScopes = db.prepare<[string, string, string], { n: number }>(
    `SELECT COUNT(*) AS n FROM risks ${IN_SCOPES}`,
  );
  const close = db.prepare(
    "UPDATE risks SET closed_at = ?, closed_by = ?, closed_because = ? WHERE id = ? AND closed_at IS NULL",
  );
  return {
    async insert(risk, at) {
      const { seq, id } = nextId();
      insert.run(
        seq,
        id,
        risk.scope,
        risk.risk,
        risk.impact,
        risk.likelihood,
        risk.indicators,
        risk.action,
        risk.author,
        at,
      );
      return toRisk(byId.get(id) as RiskRow);
    },
    async byId(id) {
      const row = byId.get(id);
      return row ? toRisk(row) : undefined;
    },
    async list(scopes) {
      const rows = scopes ? inScopes.all(JSON.stringify([...new Set(scopes)])) : all.all();
      return rows.map(toRisk);
    },
    async page({ scopes, state, limit, offset }) {
      const states = statesOf(state);
      const listed = scopes === undefined ? undefined : JSON.stringify([...new Set(scopes)]);
      const rows =
        listed === undefined
          ? page.all(...states, limit, offset)
          : pageInScopes.all(listed, ...states, limit, offset);
      const total =
        (listed === undefined ? count.get(...states) : countInScopes.get(listed, ...states))?.n ?? 0;
      return { risks: rows.map(toRisk), total };
    },
    async close(id, closing) {
      return close.run(closing.at, closing.by, closing.because, id).changes === 1;
    },
  };
}

interface GlossaryRow {
  term: string;
  meaning: string;
  author: string;
  updated_at: string;
}

export function sqliteGlossary(db: Database.Database): GlossaryRepo {
  const existing = db.prepare<[string], GlossaryRow>(
    "SELECT term, meaning, author, updated_at FROM glossary WHERE term = ?",
  );
  const insert = db.prepare("INSERT INTO glossary (term, meaning, author, updated_at) VALUES (?, ?, ?, ?)");
  const update = db.prepare(
    "UPDATE glossary SET term = ?, meaning = ?, author = ?, updated_at = ? WHERE term = ?",
  );
  const all = db.prepare<[], GlossaryRow>(
    "SELECT term, meaning, author, updated_at FROM glossary ORDER BY term",
  );
  const mayOccur = db
    .prepare<[string], [string]>(
      `SELECT term FROM glossary
     WHERE instr(?, lower(term)) > 0 OR length(CAST(term AS BLOB)) <> length(term) ORDER BY term`,
    )
    .raw(true);
  const ofTerms = db.prepare<[string], GlossaryRow>(
    `SELECT term, meaning, author, updated_at FROM glossary
     WHERE term IN (SELECT value FROM json_each(?)) ORDER BY term`,
  );
  const page = db.prepare<[number, number], GlossaryRow>(
    "SELECT term, meaning, author, updated_at FROM glossary ORDER BY term LIMIT +? OFFSET +?",
  );
  const count = db.prepare<[], { n: number }>("SELECT COUNT(*) AS n FROM glossary");
  // `=` folds ASCII case here (the column is NOCASE): the stored spelling alone, as byTerm gave it.
  const remove = db.prepare<[string]>("DELETE FROM glossary WHERE term = ? COLLATE BINARY");
  const entry = (row: GlossaryRow): GlossaryEntry => ({
    term: row.term,
    meaning: row.meaning,
    author: row.author,
    updatedAt: row.updated_at,
  });
  return {
    async upsert(entry: GlossaryEntry, replacing?: string) {
      const found = existing.get(replacing ?? entry.term);
      if (found) {
        update.run(entry.term, entry.meaning, entry.author, entry.updatedAt, found.term);
        return { created: false };
      }
      insert.run(entry.term, entry.meaning, entry.author, entry.updatedAt);
      return { created: true };
    },
    async byTerm(term) {
      const row = existing.get(term);
      return row ? entry(row) : undefined;
    },
    async list() {
      return all.all().map(entry);
    },
    async page({ limit, offset }) {
      return { entries: page.all(limit, offset).map(entry), total: count.get()?.n ?? 0 };
    },
    async termsMayOccurIn(lowerText) {
      return mayOccur.all(lowerText).map(([term]) => term);
    },
    async byTerms(terms) {
      return terms.length === 0 ? [] : ofTerms.all(JSON.stringify(terms)).map(entry);
    },
    async remove(term) {
      return remove.run(term).changes === 1;
    },
  };
}

interface BriefRow {
  id: string;
  task: string;
  actor: string;
  budget: number;
  hash: string;
  text: string;
  created_at: string;
}

export function sqliteBriefs(db: Database.Database): BriefsRepo {
  const nextId = shortIds(db, "briefs", "B");
  const insert = db.prepare(
    "INSERT INTO briefs (seq, id, task, actor, budget, hash, text, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
  );
  const byId = db.prepare<[string], BriefRow>("SELECT * FROM briefs WHERE id = ?");
  const latest = db.prepare<[string, string], Omit<BriefRow, "text">>(
    "SELECT id, task, actor, budget, hash, created_at FROM briefs WHERE task = ? AND actor = ? ORDER BY seq DESC LIMIT 1",
  );
  // The text with a line break after it, replaced in, and that last byte taken off again (as
  // bytes: SQLite counts the characters of a text only up to a NUL).
  const redact = db.prepare<
    [{ eol: string; needle: string; replacement: string; marker: string }],
    { id: string }
  >(
    `UPDATE briefs SET text = CAST(substr(CAST(replace(text || @eol, @needle, @replacement) AS BLOB), 1,
       length(CAST(replace(text || @eol, @needle, @replacement) AS BLOB)) - 1) AS TEXT)
     WHERE instr(text, @marker) > 0 AND instr(text || @eol, @needle) > 0 RETURNING id`,
  );
  const toBrief = (row: BriefRow): BriefRecord => ({
    id: row.id,
    task: row.task,
    actor: row.actor,
    budget: row.budget,
    hash: row.hash,
    text: row.text,
    createdAt: row.created_at,
  });
  return {
    async insert(brief, at) {
      const { seq, id } = nextId();
      insert.run(seq, id, brief.task, brief.actor, brief.budget, brief.hash, brief.text, at);
      return toBrief(byId.get(id) as BriefRow);
    },
    async byId(id) {
      const row = byId.get(id);
      return row ? toBrief(row) : undefined;
    },
    async redact(marker, needle, replacement) {
      // As a forgotten fact's row is deleted (facts.ts): its bytes overwritten, not just unlinked.
      db.pragma("secure_delete = ON");
      try {
        return redact.all({ eol: "\n", needle, replacement, marker }).map((row) => row.id);
      } finally {
        db.pragma("secure_delete = OFF");
      }
    },
    async latest(task, actor) {
      const row = latest.get(task, actor);
      if (!row) return undefined;
      const { created_at: createdAt, ...rest } = row;
      return { ...rest, createdAt };
    },
  };
}
