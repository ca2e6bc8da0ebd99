import type { NoteBody, NoteRecord, Trust } from "../knowledge.js";

/** Rows of the notes tables as both stores read them, and their records (shared, not copied). */
export interface NoteRow {
  id: string;
  kind: string;
  scope: string;
  author: string;
  created_at: string;
  updated_at: string;
  trust: Trust | null;
  trust_by: string | null;
  body: string;
  superseded_by: string | null;
  superseded_at: string | null;
}

export const COLUMNS =
  "id, kind, scope, author, created_at, updated_at, trust, trust_by, body, superseded_by, superseded_at";

/**
 * A row read as values (a statement in raw mode), COLUMNS in their order from `at`: better-sqlite3
 * builds a keyed object per row at a cost that was most of reading a brief's forty notes.
 */
export const noteRowOf = (values: readonly unknown[], at = 0): NoteRow => ({
  id: values[at] as string,
  kind: values[at + 1] as string,
  scope: values[at + 2] as string,
  author: values[at + 3] as string,
  created_at: values[at + 4] as string,
  updated_at: values[at + 5] as string,
  trust: values[at + 6] as Trust | null,
  trust_by: values[at + 7] as string | null,
  body: values[at + 8] as string,
  superseded_by: values[at + 9] as string | null,
  superseded_at: values[at + 10] as string | null,
});

export function toRecord(row: NoteRow): NoteRecord {
  const body = JSON.parse(row.body) as NoteBody;
  // Trust lives in its own column so it can change; the body keeps what was first written.
  if (body.kind === "finding" && row.trust) body.trust = row.trust;
  if (body.kind === "finding" && row.trust_by) body.trustBy = row.trust_by;
  return {
    id: row.id,
    scope: row.scope,
    author: row.author,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    body,
    ...(row.superseded_by ? { superseded: { by: row.superseded_by, at: row.superseded_at ?? "" } } : {}),
  };
}

export const placeholders = (n: number) => Array.from({ length: n }, () => "?").join(", ");
