import type { Evidence } from "../../src/store/tasks.js";
import { cairn } from "./workspace.js";

/** The evidence kept on criterion 1 of task `id` in the workspace at `dir`, as `task show` reports it. */
export const evidenceOf = (id: string, dir: string) =>
  (cairn(dir, ["task", "show", id, "--json"]).json as { criteria: { evidence: Evidence | null }[] })
    .criteria[0]?.evidence;
