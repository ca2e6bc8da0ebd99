import { usageError } from "../../kernel/outcome.js";
import { quoteValue } from "../../kernel/text.js";
import type { DumpRecord } from "../../store/store.js";
import { MAX_FACT_CHARS, MAX_TOPIC_CHARS } from "../knowledge/memory.js";
import {
  BODY_CHARS,
  describeOverrun,
  findOverrun,
  ID_CHARS,
  type LimitOptions,
  NEVER_OVER_CHARS,
  TOTALS,
} from "../limits/limits.js";
import { RULES_META_KEY } from "../workspace/rules-watch.js";

/**
 * An export's rows may hold no more than the commands that wrote them take: an import is checked
 * against the same limits (`domains/limits`), so a hand-edited file cannot store what no command
 * would. A column is checked as the command field it holds: by its own name, unless named below.
 */

/**
 * Columns that hold JSON text, decoded before the check so that each value inside is checked
 * under its own field. `whole`: a list a command takes whole, its items counted as the command
 * counts them. `kept`: lists that grow over many calls, or that cairn composes itself (the
 * journal's data, frozen snapshots, evidence, the paths it found changed): only their strings are
 * checked, since their length is that of what they record.
 */
const JSON_COLUMNS: Readonly<Record<string, "whole" | "kept">> = {
  "events.data": "kept",
  "goals.constraints": "whole",
  "goals.non_goals": "whole",
  "goals.proofs": "kept",
  "goal_milestones.proofs": "whole",
  "goal_milestones.depends_on": "whole",
  "goal_evaluator_proposals.definition": "whole",
  "goal_runs.contract": "kept",
  "goal_runs.milestones": "kept",
  "goal_runs.manifest": "kept",
  "goal_attempts.base_changes": "kept",
  "goal_attempts.base_hashes": "kept",
  "goal_attempts.input_drift": "kept",
  "goal_attempts.resolution": "kept",
  "goal_attempts.decision": "kept",
  "goal_contract_changes.fields": "kept",
  "goal_contract_changes.before": "kept",
  "goal_contract_changes.after": "kept",
  "notes.body": "whole",
  "facts.topics": "kept",
  "tasks.estimate": "whole",
  "tasks.traces": "whole",
  "tasks.labels": "whole",
  "task_criteria.verify": "whole",
  "task_criteria.params": "whole",
  "task_criteria.evidence": "kept",
  "task_criteria.setting": "kept",
  "task_criteria.shortcut_definition": "kept",
  "queues.steps": "whole",
  "shortcuts.argv": "whole",
  "shortcuts.roles": "whole",
};

/** Columns stored under another name than the field a command takes for them. */
const FIELD_OF: Readonly<Record<string, string>> = {
  "agents.grant_level": "grant",
  "agents.parent_id": "parent",
  "queues.steps": "step",
  "risks.closed_because": "because",
  "shortcuts.roles": "role",
  "task_asks.to_role": "to",
  "tasks.blocked_reason": "reason",
  "tasks.milestone_id": "milestone",
  "tasks.parent_id": "parent",
};

/** Where a domain keeps a stricter limit than the command's table. */
const STRICTER_CHARS: Readonly<Record<string, number>> = {
  "facts.text": MAX_FACT_CHARS,
  "facts.topics": MAX_TOPIC_CHARS,
};

/**
 * Columns cairn derives from another instead of taking from a command: the most characters the
 * derivation makes of its source at that source's limit. A fact's norm is its text folded (NFKD),
 * where one character can become 18 (U+FDFA), past the default any field is held to: a fact a
 * command took made an export that every import refused.
 */
const DERIVED_CHARS: Readonly<Record<string, number>> = {
  "facts.norm": MAX_FACT_CHARS * 18,
  // An answer's note on its task is `Q-1: question\n→ answer` (tasks/asks.ts): two texts at their
  // limit and a question id, so a long question answered in a word passed a text's limit.
  "task_notes.text": ID_CHARS + ": ".length + BODY_CHARS + "\n→ ".length + BODY_CHARS,
};

/** Columns no command fills and no limit bounds: a recorded brief is as long as its budget allowed. */
const UNBOUNDED = new Set(["briefs.text"]);

/**
 * Workspace metadata no command fills and no limit bounds: cairn's record of the rules cairn.toml
 * sets (domains/workspace/rules-watch.ts) holds every role and shortcut the file declares, whole,
 * and the file has no limit (the export carries it whole too). Two roles whose instructions were
 * each within their limit made a record past a text's 64 KiB, and an export no import took.
 */
const UNBOUNDED_META = new Set([RULES_META_KEY]);
const unbounded = ({ table, row }: DumpRecord, column: string) =>
  table === "meta" && column === "value" && UNBOUNDED_META.has(String(row.key));

/** The columns that name a row in a message, first present wins. */
const NAMING_COLUMNS = ["id", "name", "key", "term", "task_id", "attempt_id", "run_id", "agent"];

export function recordName({ table, row }: DumpRecord): string {
  const column = NAMING_COLUMNS.find((name) => row[name] !== undefined && row[name] !== null);
  return column ? `${table} ${quoteValue(String(row[column]))}` : table;
}

/** How one column is checked, settled once per table and column. */
interface ColumnRule {
  field: string;
  options: LimitOptions;
  json: "whole" | "kept" | undefined;
  /** A value no longer than this cannot hold anything past a limit, so it is not looked into. */
  fits: number;
  /** `fits` is the limit itself: a derived column (DERIVED_CHARS), held to no field's. */
  derived?: true;
}

const rules = new Map<string, Map<string, ColumnRule | null>>();

function ruleFor(table: string, column: string): ColumnRule | null {
  let columns = rules.get(table);
  if (!columns) {
    columns = new Map();
    rules.set(table, columns);
  }
  let rule = columns.get(column);
  if (rule === undefined) {
    const key = `${table}.${column}`;
    const maxChars = STRICTER_CHARS[key];
    const derived = DERIVED_CHARS[key];
    rule = UNBOUNDED.has(key)
      ? null
      : derived !== undefined
        ? { field: column, options: {}, json: undefined, fits: derived, derived: true }
        : {
            field: FIELD_OF[key] ?? column,
            options: { maxChars },
            json: JSON_COLUMNS[key],
            fits: Math.min(NEVER_OVER_CHARS, maxChars ?? NEVER_OVER_CHARS),
          };
    columns.set(column, rule);
  }
  return rule;
}

/**
 * The highest key or counter an import takes: far past what any workspace hands out in its life,
 * and far below 2^53, past which a JavaScript number stops counting by one. A crafted counter at
 * 2^53 - 1 handed out one task id, then the same one again: every later `task add` failed.
 */
export const COUNT_CEILING = 2 ** 48;
/** Columns that count (keys, criterion and step numbers, versions): the next one is the last plus one. */
const COUNTING_COLUMNS = new Set([
  "seq",
  "id",
  "n",
  "position",
  "cursor",
  "version",
  "seen_count",
  "repeat_index",
]);

/**
 * Lists whose items the commands hold to a total (`TOTALS`), beside each item's own limit: a
 * shortcut's command, a criterion's verify command, a queue's steps. Each item within its limit,
 * 256 words of 4 KiB made a shortcut of 1 MiB that every `shortcut list` and brief read whole.
 */
const TOTAL_COLUMNS: Readonly<Record<string, { total: number; what: string }>> = {
  "shortcuts.argv": { total: TOTALS.chars["shortcut command"], what: "a shortcut's command holds" },
  "task_criteria.verify": { total: TOTALS.chars["criterion verify command"], what: "a verify command holds" },
  // Decoded as the NAME=VALUE words the command took (AS_TAKEN), as the command counts them.
  "task_criteria.params": {
    total: TOTALS.chars["criterion shortcut params"],
    what: "a criterion's params hold",
  },
  "queues.steps": { total: TOTALS.chars["queue steps"], what: "a queue's steps hold" },
};

/** The characters a decoded list of texts holds in all, or 0 when it is not one. */
function totalChars(decoded: unknown): number {
  if (!Array.isArray(decoded)) return 0;
  return decoded.reduce(
    (sum: number, item: unknown) => sum + (typeof item === "string" ? item.length : 0),
    0,
  );
}

/**
 * Refuse the first record holding a value past its limit, or a list past its total: a usage error
 * naming the line, the record and the field, with the limit and the size but never the value.
 */
export function checkRecordLimits(record: DumpRecord, line: number): void {
  for (const column in record.row) {
    const value = record.row[column];
    if (typeof value === "number" && COUNTING_COLUMNS.has(column) && Math.abs(value) > COUNT_CEILING) {
      throw usageError(
        `import: line ${line} (${recordName(record)}): ${column} is past ${COUNT_CEILING}, where ids stop being unique`,
        "nothing was imported: import the file as `cairn export` wrote it",
      );
    }
    if (typeof value !== "string" || unbounded(record, column)) continue;
    const rule = ruleFor(record.table, column);
    if (!rule || value.length <= rule.fits) continue;
    const decoded = rule.json ? asTaken(`${record.table}.${column}`, parsedOrUndefined(value)) : undefined;
    const overrun = rule.derived
      ? { path: column, max: rule.fits, size: value.length, unit: "characters" as const }
      : decoded === undefined
        ? findOverrun(value, rule.field, column, rule.options)
        : findOverrun(decoded, rule.field, column, { ...rule.options, items: rule.json === "whole" });
    if (overrun) {
      throw usageError(
        `import: line ${line} (${recordName(record)}): ${describeOverrun(overrun)}`,
        "nothing was imported: import the file as `cairn export` wrote it, or bring that value within the limit",
      );
    }
    const totalRule = TOTAL_COLUMNS[`${record.table}.${column}`];
    // The list as decoded for its items' check above (each total's column holds JSON).
    const total = totalRule && value.length > totalRule.total ? totalChars(decoded) : 0;
    if (totalRule && total > totalRule.total) {
      throw usageError(
        `import: line ${line} (${recordName(record)}): ${column}: ${totalRule.what} at most ${totalRule.total} characters in all (this one has ${total})`,
        "nothing was imported: import the file as `cairn export` wrote it, or bring that value within the limit",
      );
    }
  }
}

/**
 * A check of what the rows of a file add up to, as the commands count it: a task holds at most
 * `TOTALS.items["criteria of a task"]` criteria, however many rows an edited export gives it. One
 * per import, fed every record in order.
 */
export function recordCounts(): (record: DumpRecord, line: number) => void {
  const criteria = new Map<string, number>();
  const max = TOTALS.items["criteria of a task"];
  return (record, line) => {
    if (record.table !== "task_criteria") return;
    const task = String(record.row.task_id);
    const held = (criteria.get(task) ?? 0) + 1;
    criteria.set(task, held);
    if (held > max) {
      throw usageError(
        `import: line ${line} (task_criteria ${quoteValue(task)}): a task holds at most ${max} criteria (this file gives it ${held} so far)`,
        "nothing was imported: import the file as `cairn export` wrote it",
      );
    }
  };
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);

/**
 * JSON a command built from fields other than its members' names, turned back into what the
 * command took, so it is checked as that: shortcut params were NAME=VALUE words (a param named
 * `id` holds what any param holds, not an id), and a metric note's goal, question and metric were
 * one text. Checked by the names they are stored under, a metric whose goal ran past 200
 * characters, or a param named like a short field, made every import of the export refuse.
 */
const AS_TAKEN: Readonly<Record<string, (decoded: Record<string, unknown>) => unknown>> = {
  "task_criteria.params": (params) =>
    Object.entries(params).map(([name, value]) => `${name}=${String(value)}`),
  "notes.body": (body) =>
    body.kind === "metric"
      ? { kind: body.kind, text: `goal: ${body.goal} question: ${body.question} metric: ${body.metric}` }
      : body,
};

/** Decoded JSON as the command took it (AS_TAKEN), else as it is. */
function asTaken(column: string, decoded: unknown): unknown {
  const taken = AS_TAKEN[column];
  return taken && isRecord(decoded) ? taken(decoded) : decoded;
}

/** JSON text decoded, or undefined when it is not JSON (then it is checked as the text it is). */
function parsedOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
