import type Database from "better-sqlite3";
import type { AgentRecord, AgentRepo, NewAgent } from "../store.js";
import { type AgentRow, COLUMNS, toRecord } from "./agent-rows.js";
import { shortIds } from "./short-ids.js";

export function sqliteAgents(db: Database.Database): AgentRepo {
  const nextId = shortIds(db, "agents", "A");
  const insert = db.prepare(
    "INSERT INTO agents (seq, id, name, role, grant_level, parent_id, token_hash, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
  );
  const byId = db.prepare<[string], AgentRow>(`SELECT ${COLUMNS} FROM agents WHERE id = ?`);
  const names = db
    .prepare<[string], [string, string]>(
      "SELECT a.id, a.name FROM json_each(?) j JOIN agents a ON a.id = j.value",
    )
    .raw(true);
  const byName = db.prepare<[string], AgentRow>(`SELECT ${COLUMNS} FROM agents WHERE name = ?`);
  const byNameAnyCase = db.prepare<[string], AgentRow>(
    `SELECT ${COLUMNS} FROM agents WHERE lower(name) = lower(?) ORDER BY seq LIMIT 1`,
  );
  const byTokenHash = db.prepare<[string], AgentRow>(`SELECT ${COLUMNS} FROM agents WHERE token_hash = ?`);
  const listAll = db.prepare<[], AgentRow>(`SELECT ${COLUMNS} FROM agents ORDER BY seq`);
  const listActive = db.prepare<[], AgentRow>(
    `SELECT ${COLUMNS} FROM agents WHERE retired_at IS NULL ORDER BY seq`,
  );
  const retire = db.prepare("UPDATE agents SET retired_at = ? WHERE id = ? AND retired_at IS NULL");
  const replaceToken = db.prepare("UPDATE agents SET token_hash = ? WHERE id = ? AND retired_at IS NULL");

  return {
    async insert(agent: NewAgent, at: string) {
      const { seq, id } = nextId();
      insert.run(seq, id, agent.name, agent.role, agent.grant, agent.parentId, agent.tokenHash, at);
      return toRecord(byId.get(id)) as AgentRecord;
    },
    async byId(id) {
      return toRecord(byId.get(id));
    },
    async names(ids) {
      return new Map(ids.length === 0 ? [] : names.all(JSON.stringify(ids)));
    },
    async byName(name) {
      return toRecord(byName.get(name));
    },
    async byNameAnyCase(name) {
      return toRecord(byNameAnyCase.get(name));
    },
    async byTokenHash(tokenHash) {
      return toRecord(byTokenHash.get(tokenHash));
    },
    async list({ includeRetired }) {
      return (includeRetired ? listAll : listActive).all().map((row) => toRecord(row) as AgentRecord);
    },
    async retire(id, at) {
      retire.run(at, id);
    },
    async replaceToken(id, tokenHash) {
      replaceToken.run(tokenHash, id);
    },
  };
}
