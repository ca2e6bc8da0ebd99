import type { BriefRecord, BriefsRepo, GlossaryEntry, GlossaryRepo, RisksRepo } from "../knowledge.js";
import { placeholders } from "../sqlite/note-rows.js";
import { RISK_STATE, type RiskRow, riskPageSql, statesOf, toRisk } from "../sqlite/risk-rows.js";
import type { PgDb } from "./db.js";
import { shortIds } from "./short-ids.js";

export function pgRisks(db: PgDb): RisksRepo {
  // RK-n: goal runs own R-n. Risks stored as R-n before keep their ids (the numbers go on).
  const nextId = shortIds(db, "risks", "RK");
  const insert = db.prepare(
    "INSERT INTO risks (seq, id, scope, risk, impact, likelihood, indicators, action, author, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
  );
  const byId = db.prepare<[string], RiskRow>("SELECT * FROM risks WHERE id = ?");
  const all = db.prepare<[], RiskRow>("SELECT * FROM risks ORDER BY seq");
  const IN_STATES = `WHERE ${RISK_STATE} IN (?, ?)`;
  const IN_SCOPES = `WHERE scope = ANY(?) AND ${RISK_STATE} IN (?, ?)`;
  const page = db.prepare<[string, string, number, number], RiskRow>(riskPageSql(IN_STATES, "?", "?"));
  const pageInScopes = db.prepare<[string[], string, string, number, number], RiskRow>(
    riskPageSql(IN_SCOPES, "?", "?"),
  );
  const count = db.prepare<[string, string], { n: number }>(`SELECT COUNT(*) AS n FROM risks ${IN_STATES}`);
  const countInScopes = db.prepare<[string[], string, string], { n: number }>(
    `SELECT COUNT(*) AS n FROM risks ${IN_SCOPES}`,
  );
  const close = db.prepare<[string, string, string, string], { id: string }>(
    "UPDATE risks SET closed_at = ?, closed_by = ?, closed_because = ? WHERE id = ? AND closed_at IS NULL RETURNING id",
  );
  return {
    async insert(risk, at) {
      const { seq, id } = await nextId();
      await insert.run(
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
      return toRisk((await byId.get(id)) as RiskRow);
    },
    async byId(id) {
      const row = await byId.get(id);
      return row ? toRisk(row) : undefined;
    },
    async list(scopes) {
      if (!scopes) return (await all.all()).map(toRisk);
      if (scopes.length === 0) return [];
      // Only the asked scopes, from risks_scope: a brief asks for its task, parents and workspace.
      const rows = await db
        .prepare<string[], RiskRow>(
          `SELECT * FROM risks WHERE scope IN (${placeholders(scopes.length)}) ORDER BY seq`,
        )
        .all(...scopes);
      return rows.map(toRisk);
    },
    async page({ scopes, state, limit, offset }) {
      const states = statesOf(state);
      const listed = scopes === undefined ? undefined : [...new Set(scopes)];
      const rows = await (listed === undefined
        ? page.all(...states, limit, offset)
        : pageInScopes.all(listed, ...states, limit, offset));
      const counted = await (listed === undefined
        ? count.get(...states)
        : countInScopes.get(listed, ...states));
      return { risks: rows.map(toRisk), total: Number(counted?.n ?? 0) };
    },
    async close(id, closing) {
      return (await close.all(closing.at, closing.by, closing.because, id)).length === 1;
    },
  };
}

interface GlossaryRow {
  term: string;
  meaning: string;
  author: string;
  updated_at: string;
}

export function pgGlossary(db: PgDb): GlossaryRepo {
  // lower() folds ASCII alone under "C", as SQLite's NOCASE does; a parameter would otherwise fold
  // by the database's collation ("ÉCOLE" → "école") and never meet the stored "ÉCOLE".
  const existing = db.prepare<[string], GlossaryRow>(
    'SELECT term, meaning, author, updated_at FROM glossary WHERE lower(term) = lower(? COLLATE "C")',
  );
  const insert = db.prepare("INSERT INTO glossary (term, meaning, author, updated_at) VALUES (?, ?, ?, ?)");
  const update = db.prepare(
    'UPDATE glossary SET term = ?, meaning = ?, author = ?, updated_at = ? WHERE lower(term) = lower(? COLLATE "C")',
  );
  const all = db.prepare<[], GlossaryRow>(
    "SELECT term, meaning, author, updated_at FROM glossary ORDER BY lower(term)",
  );
  const mayOccur = db.prepare<[string], { term: string }>(
    `SELECT term FROM glossary
     WHERE strpos(?, lower(term)) > 0 OR octet_length(term) <> char_length(term) ORDER BY lower(term)`,
  );
  const ofTerms = db.prepare<[string[]], GlossaryRow>(
    "SELECT term, meaning, author, updated_at FROM glossary WHERE term = ANY(?) ORDER BY lower(term)",
  );
  const page = db.prepare<[number, number], GlossaryRow>(
    "SELECT term, meaning, author, updated_at FROM glossary ORDER BY lower(term) LIMIT ? OFFSET ?",
  );
  const count = db.prepare<[], { n: number }>("SELECT COUNT(*) AS n FROM glossary");
  const remove = db.prepare<[string], { term: string }>("DELETE FROM glossary WHERE term = ? RETURNING term");
  const entry = (row: GlossaryRow): GlossaryEntry => ({
    term: row.term,
    meaning: row.meaning,
    author: row.author,
    updatedAt: row.updated_at,
  });
  return {
    async upsert(entry: GlossaryEntry, replacing?: string) {
      const found = await existing.get(replacing ?? entry.term);
      if (found) {
        await update.run(entry.term, entry.meaning, entry.author, entry.updatedAt, found.term);
        return { created: false };
      }
      await insert.run(entry.term, entry.meaning, entry.author, entry.updatedAt);
      return { created: true };
    },
    async byTerm(term) {
      const row = await existing.get(term);
      return row ? entry(row) : undefined;
    },
    async list() {
      return (await all.all()).map(entry);
    },
    async page({ limit, offset }) {
      const rows = await page.all(limit, offset);
      return { entries: rows.map(entry), total: Number((await count.get())?.n ?? 0) };
    },
    async termsMayOccurIn(lowerText) {
      return (await mayOccur.all(lowerText)).map((row) => row.term);
    },
    async byTerms(terms) {
      return terms.length === 0 ? [] : (await ofTerms.all([...terms])).map(entry);
    },
    async remove(term) {
      return (await remove.all(term)).length === 1;
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

export function pgBriefs(db: PgDb): BriefsRepo {
  const nextId = shortIds(db, "briefs", "B");
  const insert = db.prepare(
    "INSERT INTO briefs (seq, id, task, actor, budget, hash, text, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
  );
  const byId = db.prepare<[string], BriefRow>("SELECT * FROM briefs WHERE id = ?");
  const latest = db.prepare<[string, string], Omit<BriefRow, "text">>(
    "SELECT id, task, actor, budget, hash, created_at FROM briefs WHERE task = ? AND actor = ? ORDER BY seq DESC LIMIT 1",
  );
  // The text with a line break after it, replaced in, and that last character taken off again.
  const redact = db.prepare<
    [{ eol: string; needle: string; replacement: string; marker: string }],
    { id: string }
  >(
    `UPDATE briefs SET text = left(replace(text || @eol, @needle, @replacement), -1)
     WHERE strpos(text, @marker) > 0 AND strpos(text || @eol, @needle) > 0 RETURNING id`,
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
      const { seq, id } = await nextId();
      await insert.run(seq, id, brief.task, brief.actor, brief.budget, brief.hash, brief.text, at);
      return toBrief((await byId.get(id)) as BriefRow);
    },
    async byId(id) {
      const row = await byId.get(id);
      return row ? toBrief(row) : undefined;
    },
    async redact(marker, needle, replacement) {
      return (await redact.all({ eol: "\n", needle, replacement, marker })).map((row) => row.id);
    },
    async latest(task, actor) {
      const row = await latest.get(task, actor);
      if (!row) return undefined;
      const { created_at: createdAt, ...rest } = row;
      return { ...rest, createdAt };
    },
  };
}
