import { z } from "zod";
import { usageError } from "../../kernel/outcome.js";
import { readsAsShortId } from "../../kernel/short-id.js";
import { quoteValue } from "../../kernel/text.js";
import type { DumpRecord } from "../../store/store.js";
import { AGENT_NAME, readsAsPerson } from "../identity/agents.js";
import { SEVERITIES, TRUSTS } from "../knowledge/notes.js";
import { shows } from "../knowledge/text.js";
import { EvidenceShape } from "../tasks/evidence-shape.js";
import { isReservedRole } from "../workspace/config.js";
import { recordName } from "./limits.js";

/**
 * What a row's JSON must hold, where no column constraint can say it: the store reads these
 * bodies back as they are, so a hand-edited export holding a decision with nothing rejected
 * stored what `note add` refuses, and every brief of its scope then failed on it.
 */
const said = z.string().refine(shows, "is blank");

const NoteBody = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("decision"), chose: said, rejected: said, because: said }),
  z.object({ kind: z.literal("finding"), text: said, severity: z.enum(SEVERITIES), trust: z.enum(TRUSTS) }),
  z.object({ kind: z.literal("metric"), goal: said, question: said, metric: said }),
  z.object({ kind: z.literal("ref"), target: said, summary: said }),
]);

function decoded(text: unknown): unknown {
  if (typeof text !== "string") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Why a note row is not one `note add` could have written, or undefined when it is. */
function noteProblem(row: DumpRecord["row"]): string | undefined {
  const body = NoteBody.safeParse(decoded(row.body));
  if (!body.success) {
    const issue = body.error.issues[0];
    const where = issue?.path.map(String).join(".");
    return `its body is not a note's (${where ? `${where}: ` : ""}${issue?.message ?? "not JSON"})`;
  }

  const note = body.data;
  if (note.kind !== row.kind) return `its kind is ${row.kind}, its body a ${note.kind}'s`;
  const finding = note.kind === "finding";
  if ((row.severity ?? null) !== (note.kind === "finding" ? note.severity : null)) {
    return "its severity column differs from its body";
  }
  if (finding !== (row.trust !== null && row.trust !== undefined)) {
    return finding ? "a finding without trust" : "trust on a note that is not a finding";
  }
  return undefined;
}

/**
 * A time as cairn stamps one (`toISOString`, or an offset where another clock wrote it). Recall
 * ranks a fact by its age, and a last-seen time that is no date ("yesterday") made every recall
 * matching it fail on a score that is not a number.
 */
const STAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;
const isStamp = (value: string) => STAMP.test(value) && Number.isFinite(Date.parse(value));
const holdsTime = (column: string) => column === "at" || column.endsWith("_at");

/**
 * The owner's setting `cairn init` records (domains/workspace/owner-setting.ts): the definition of
 * done runs with it, and one that is not this shape failed every finish of the workspace.
 */
const OwnerSetting = z
  .object({
    path: z.array(z.string()).optional(),
    home: z.string().optional(),
    locations: z.record(z.string(), z.string()).optional(),
  })
  .strict();

/** An agent's id as the store hands one out. */
const AGENT_ID = /^A-[1-9][0-9]*$/;

/**
 * Why an agent row is not one `agent add` (or a run's minted identity) could have written. Its id
 * is who it acts as: an agent restored with the id `owner` acted as the workspace owner wherever an
 * id decides (holding the owner's claims, releasing them) and was recorded as the owner in the
 * journal, its notes and the audit log; one of role `owner` or named `Owner` read as the owner too.
 */
function agentProblem(row: DumpRecord["row"]): string | undefined {
  // A column left out is the store's to refuse (each is NOT NULL), naming what is missing.
  const { id, name, role, parent_id: parent } = row;
  if (id !== undefined && (typeof id !== "string" || !AGENT_ID.test(id)))
    return "its id is not an agent's (A-12)";
  if (parent !== undefined && parent !== null && (typeof parent !== "string" || !AGENT_ID.test(parent)))
    return "its parent is not an agent's id";
  if (parent !== undefined && parent === id) return "it is its own parent";
  if (
    name !== undefined &&
    (typeof name !== "string" || !AGENT_NAME.test(name) || readsAsPerson(name) || readsAsShortId(name))
  )
    return "its name is not one `agent add` takes (letters, digits, - and _; neither owner, human nor an id)";
  if (role !== undefined && (typeof role !== "string" || !AGENT_NAME.test(role) || isReservedRole(role)))
    return "its role is not one `agent add` takes (owner and human are reserved)";
  return undefined;
}

const strings = z.array(z.string());
const object = z.record(z.string(), z.unknown());
const setting = OwnerSetting;

/**
 * The JSON a column holds, as the store writes it and its readers take it without a second look:
 * a task's traces that were not a list made `task ready`, `now` and every brief fail for every
 * agent of the workspace, and a criterion's verify command that was one text made the task's brief
 * fail. Columns holding what cairn composes as it runs (frozen runs, attempts) are held to the
 * kind of JSON they are, an object or a list.
 */
const JSON_SHAPES: Readonly<Record<string, z.ZodType>> = {
  "events.data": object,
  "facts.topics": strings,
  "tasks.estimate": z.object({ optimistic: z.number(), probable: z.number(), pessimistic: z.number() }),
  "tasks.traces": strings,
  "tasks.labels": strings,
  "task_criteria.verify": strings.min(1),
  "task_criteria.params": z.record(z.string(), z.string()),
  "task_criteria.evidence": EvidenceShape,
  "task_criteria.setting": setting,
  "task_criteria.shortcut_definition": z.object({ name: z.string(), argv: strings.min(1) }),
  "queues.steps": strings,
  "shortcuts.argv": strings.min(1),
  "shortcuts.roles": strings,
  "goals.constraints": strings,
  "goals.non_goals": strings,
  "goals.proofs": z.array(
    z.object({
      name: z.string(),
      direction: z.enum(["higher", "lower"]),
      threshold: z.number().nullable(),
      manual: z.boolean(),
      description: z.string(),
    }),
  ),
  "goal_milestones.proofs": strings,
  "goal_milestones.depends_on": strings,
  "goal_contract_changes.fields": strings,
  "goal_contract_changes.before": object,
  "goal_contract_changes.after": object,
  "goal_evaluator_proposals.definition": object,
  "goal_runs.contract": object,
  "goal_runs.milestones": z.array(object),
  "goal_runs.manifest": z.array(object),
  "goal_attempts.base_changes": strings,
  "goal_attempts.base_hashes": z.record(z.string(), z.string()),
  "goal_attempts.input_drift": strings,
  "goal_attempts.resolution": object,
  "goal_attempts.decision": object,
};

/** Why a JSON column of the row does not hold what the store writes there (see JSON_SHAPES). */
function jsonProblem({ table, row }: DumpRecord): string | undefined {
  for (const column in row) {
    const shape = JSON_SHAPES[`${table}.${column}`];
    const value = row[column];
    // Null is the store's to take or refuse (a column that may be empty, or one NOT NULL).
    if (!shape || value === null || value === undefined) continue;
    const json = decoded(value);
    if (json === undefined) return `its ${column} is not JSON`;
    const parsed = shape.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue?.path.map(String).join(".");
      return `its ${column} is not what cairn stores there (${where ? `${where}: ` : ""}${issue?.message ?? "not JSON"})`;
    }
  }
  return undefined;
}

/** Why a row's times or a fact's count are not what a command writes, or undefined when they are. */
function rowProblem(record: DumpRecord): string | undefined {
  const json = jsonProblem(record);
  if (json) return json;
  for (const column in record.row) {
    const value = record.row[column];
    if (holdsTime(column) && typeof value === "string" && !isStamp(value)) {
      return `${column} is not a time as cairn writes one (${quoteValue(value, 40)})`;
    }
  }
  // A fact is seen by at least its author: recall divides by the count, so 0 scored -Infinity
  // (every recall matching it failed) and a negative count lifted the fact over every other.
  const seen = record.row.seen_count;
  const counts = seen === undefined || (typeof seen === "number" && Number.isInteger(seen) && seen >= 1);
  if (record.table === "facts" && !counts) {
    return "its seen_count is not a count of at least 1";
  }
  if (
    record.table === "meta" &&
    record.row.key === "owner_setting" &&
    !OwnerSetting.safeParse(decoded(record.row.value)).success
  ) {
    return "the owner's setting is not the folders and home `cairn init` records";
  }
  if (record.table === "agents") return agentProblem(record.row);
  return record.table === "notes" ? noteProblem(record.row) : undefined;
}

/** Refuse a record whose JSON, times or counts a command could never have written (see above). */
export function checkRecordShape(record: DumpRecord, line: number): void {
  const problem = rowProblem(record);
  if (problem) {
    throw usageError(
      `import: line ${line} (${recordName(record)}): ${problem}`,
      "nothing was imported: import the file as `cairn export` wrote it",
    );
  }
}
