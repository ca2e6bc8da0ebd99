import { type AgentRow, COLUMNS, toRecord } from "../sqlite/agent-rows.js";
import type { AgentRecord, AgentRepo, NewAgent } from "../store.js";
import type { PgDb } from "./db.js";
import { shortIds } from "./short-ids.js";

export function pgAgents(db: PgDb): AgentRepo {
  const nextId = shortIds(db, "agents", "A");
  const insert = db.prepare(
    "INSERT INTO agents (seq, id, name, role, grant_level, parent_id, token_hash, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
  );
  const byId = db.prepare<[string], AgentRow>(`SELECT ${COLUMNS} FROM agents WHERE id = ?`);
  const names = db.prepare<[string[]], { id: string; name: string }>(
    "SELECT id, name FROM agents WHERE id = ANY(?)",
  );
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
      const { seq, id } = await nextId();
      await insert.run(seq, id, agent.name, agent.role, agent.grant, agent.parentId, agent.tokenHash, at);
      return toRecord(await byId.get(id)) as AgentRecord;
    },
    async byId(id) {
      return toRecord(await byId.get(id));
    },
    async names(ids) {
      if (ids.length === 0) return new Map();
      return new Map((await names.all([...ids])).map((row) => [row.id, row.name]));
    },
    async byName(name) {
      return toRecord(await byName.get(name));
    },
    async byNameAnyCase(name) {
      return toRecord(await byNameAnyCase.get(name));
    },
    async byTokenHash(tokenHash) {
      return toRecord(await byTokenHash.get(tokenHash));
    },
    async list({ includeRetired }) {
      return (await (includeRetired ? listAll : listActive).all()).map((row) => toRecord(row) as AgentRecord);
    },
    async retire(id, at) {
      await retire.run(at, id);
    },
    async replaceToken(id, tokenHash) {
      await replaceToken.run(tokenHash, id);
    },
  };
}
