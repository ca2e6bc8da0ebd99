import { cairn } from "./workspace.js";

/** A criterion's evidence as `task show --json` reports it. */
export interface StoredEvidence {
  exit_code: number | null;
  timed_out: boolean;
  duration_ms: number;
  output_bytes: number;
  output_tail: string;
  output_sha256: string;
  git_head: string | null;
  error: string | null;
  tree?: string;
  tree_after?: string;
  shortcut?: { name: string; argv: string[] };
}

/** The evidence kept on criterion 1 of task `id` in the workspace at `dir`. */
export const evidenceOf = (id: string, dir: string) =>
  (cairn(dir, ["task", "show", id, "--json"]).json as { criteria: { evidence: StoredEvidence | null }[] })
    .criteria[0]?.evidence;
