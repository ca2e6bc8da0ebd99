import { refuse, usageError } from "../../kernel/outcome.js";
import type { Setting } from "../../kernel/setting.js";
import { quoteValue } from "../../kernel/text.js";
import type { Store, Tx } from "../../store/store.js";
import type { CriterionRecord, NewCriterion, TaskRecord } from "../../store/tasks.js";
import { type Actor, OWNER } from "../identity/actor.js";
import { ARGV_TOTAL_CHARS, requireTotalChars, TOTALS } from "../limits/limits.js";
import type { WorkspaceConfig } from "../workspace/config.js";
import { journal, loadTask, requirePlanAuthority } from "./common.js";
import { fillArgv, findShortcut } from "./shortcuts.js";

export interface CriterionInput {
  text: string;
  verify?: string[];
  shortcut?: string;
  params?: string[];
  timeout_seconds?: number;
}

/** `k=v` pairs into a record; a pair without `=` is a usage error naming it. */
export function parseParams(pairs: readonly string[] | undefined): Record<string, string> {
  const params: Record<string, string> = {};
  for (const pair of pairs ?? []) {
    const equals = pair.indexOf("=");
    if (equals <= 0) throw usageError(`param ${quoteValue(pair)} is not NAME=VALUE`);
    params[pair.slice(0, equals)] = pair.slice(equals + 1);
  }
  return params;
}

/**
 * A criterion is text, optionally with a verify argv or a shortcut. On the command line a
 * criterion that starts with `{` is read as the JSON object form. One with a command keeps
 * `setting`, its author's (kernel/setting.ts): the command runs there whoever checks it.
 * `addedBy` is its author, the agent adding it: see `setsVerifiedDone`.
 */
export function toCriterion(input: string | CriterionInput, setting: Setting, addedBy: string): NewCriterion {
  let value = input;
  if (typeof value === "string" && value.trim().startsWith("{")) {
    try {
      value = JSON.parse(value) as CriterionInput;
    } catch {
      throw usageError(`criterion ${quoteValue(String(input))} starts with { but is not JSON`);
    }
  }
  const object: CriterionInput = typeof value === "string" ? { text: value } : value;
  if (typeof object.text !== "string" || object.text.trim() === "") {
    throw usageError("a criterion needs text");
  }
  if (object.verify && object.shortcut) {
    throw usageError(`criterion ${quoteValue(object.text)}: give verify or shortcut, not both`);
  }
  if (object.verify && object.verify.length === 0) {
    throw usageError(`criterion ${quoteValue(object.text)}: verify is an empty command`);
  }
  // As a shortcut's: each criterion's command is in every show of its task and every check's evidence.
  if (object.verify)
    requireTotalChars(
      `criterion ${quoteValue(object.text)}: verify's words`,
      object.verify,
      ARGV_TOTAL_CHARS,
      "run a script that holds the rest",
    );
  // They fill the shortcut's command, which holds as much; kept with the criterion, they are read
  // with every show and brief of its task: a thousand of 4 KiB each made a criterion of 4 MB.
  if (object.params)
    requireTotalChars(
      `criterion ${quoteValue(object.text)}: params`,
      object.params,
      TOTALS.chars["criterion shortcut params"],
      "pass a file's path and let the command read it",
    );
  return {
    text: object.text.trim(),
    verify: object.verify ?? null,
    shortcut: object.shortcut ?? null,
    params: parseParams(object.params),
    timeoutSeconds: object.timeout_seconds ?? null,
    setting: object.verify || object.shortcut ? setting : null,
    addedBy,
  };
}

/**
 * Whether a criterion's passing command makes its task's finish verified: one its task's author
 * or the workspace owner set. The holder may add criteria to a task it holds, and a check of one
 * it wrote itself (`verify: ["true"]`) says only what its holder says; it is still run and must
 * pass, but a finish resting on such checks alone is recorded unverified, as one resting on text
 * criteria is. Criteria kept before authors were (null) count as they did.
 */
export function setsVerifiedDone(
  criterion: Pick<CriterionRecord, "verify" | "shortcut" | "addedBy">,
  task: Pick<TaskRecord, "createdBy">,
): boolean {
  if (!criterion.verify && !criterion.shortcut) return false;
  return criterion.addedBy === null || criterion.addedBy === task.createdBy || criterion.addedBy === OWNER.id;
}

/**
 * A criterion that names a shortcut, with the shortcut as it is defined now: its check runs that
 * definition, not whatever cairn.toml, a file the checked agent can edit, says by then. A
 * shortcut that is not defined yet is refused here, before anyone can define it to pass.
 */
export async function withShortcutDefinition(
  tx: Tx,
  config: WorkspaceConfig,
  criterion: NewCriterion,
): Promise<NewCriterion> {
  if (!criterion.shortcut) return criterion;
  const definition = await findShortcut(tx, config, criterion.shortcut);
  // The params must fill that command now as they will at each check: a misspelt or missing name,
  // or a value that reads as an option, was taken here and refused only when the task's holder
  // came to check it, a criterion no one could pass until its author replaced it.
  fillArgv(definition, criterion.params);
  return { ...criterion, shortcutDefinition: definition };
}

/** `withShortcutDefinition` for each criterion, in order. */
export async function withShortcutDefinitions(
  tx: Tx,
  config: WorkspaceConfig,
  criteria: readonly NewCriterion[],
): Promise<NewCriterion[]> {
  const defined: NewCriterion[] = [];
  for (const criterion of criteria) defined.push(await withShortcutDefinition(tx, config, criterion));
  return defined;
}

/**
 * The most criteria one task holds: as many as `task add --criteria` takes at once (a list's
 * limit). Added one at a time they had no bound, and each of them, with its verify command and
 * evidence, is in every `task show`, brief and dashboard view of the task.
 */
export const MAX_CRITERIA = TOTALS.items["criteria of a task"];

export async function addCriterion(
  store: Store,
  actor: Actor,
  raw: string,
  input: CriterionInput,
  now: string,
  setting: Setting,
  config: WorkspaceConfig,
) {
  const criterion = toCriterion(input, setting, actor.id);
  return store.write(async (tx) => {
    const task = await loadTask(tx, raw);
    // What done means for a task is its holder's while held, else its author's: another agent's
    // criterion on an unheld task (no command removes one) could block its finish for good, or
    // plant a command for the owner's next `task check --all` to run.
    await requirePlanAuthority(tx, task, actor, "add a criterion to");
    if (task.status === "done" || task.status === "dropped") {
      throw refuse(
        "status",
        `${task.id} is ${task.status}`,
        `reopen it first (\`cairn task reopen ${task.id}\`)`,
      );
    }
    const held = (await tx.tasks.criteriaCounts(task.id)).total;
    if (held >= MAX_CRITERIA) {
      throw refuse(
        "criteria",
        `${task.id} already has ${held} criteria, the most a task holds`,
        "fold criteria into fewer, or split the work into subtasks (`cairn task add --parent`)",
      );
    }
    const added = await tx.tasks.addCriterion(task.id, await withShortcutDefinition(tx, config, criterion));
    await journal(tx, actor, now, "task.criterion", task.id, { n: added.n, text: added.text });
    return { criterion: added, task };
  });
}
