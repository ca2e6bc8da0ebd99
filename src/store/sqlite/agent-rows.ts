import type { AgentRecord, Grant } from "../store.js";

/** Rows of the agents tables as both stores read them, and their records (shared, not copied). */
export interface AgentRow {
  id: string;
  name: string;
  role: string;
  grant_level: Grant;
  parent_id: string | null;
  token_hash: string;
  created_at: string;
  retired_at: string | null;
}

export const COLUMNS = "id, name, role, grant_level, parent_id, token_hash, created_at, retired_at";

export function toRecord(row: AgentRow | undefined): AgentRecord | undefined {
  if (!row) return undefined;
  return {
    id: row.id,
    name: row.name,
    role: row.role,
    grant: row.grant_level,
    parentId: row.parent_id,
    tokenHash: row.token_hash,
    createdAt: row.created_at,
    retiredAt: row.retired_at,
  };
}
