import { z } from "zod";
import type { TaskDetail } from "../../domains/tasks/board.js";
import { expected } from "../../domains/tasks/common.js";
import { setsVerifiedDone } from "../../domains/tasks/criteria.js";
import { EvidenceShape } from "../../domains/tasks/evidence-shape.js";
import {
  type CriterionRecord,
  PRIORITIES,
  TASK_STATUSES,
  type TaskRecord,
  type TaskSummaryRecord,
} from "../../store/tasks.js";
import { textBlock } from "../field-text.js";
import {
  RULES_CHANGES_HINT,
  RulesChangeView,
  rulesChangeLine,
  rulesChangeView,
} from "../workspace/rules-view.js";

/**
 * Output shapes of the board's commands: snake_case, no descriptions, no integer bounds. Tool
 * results publish these schemas to every agent, so what a tool returns stays small; the full
 * record is one `task show` away.
 */
export const TaskSummary = z.object({
  id: z.string(),
  title: z.string(),
  status: z.enum(TASK_STATUSES),
  priority: z.enum(PRIORITIES),
  owner: z.string().nullable(),
});

export const Criterion = z.object({
  n: z.number(),
  text: z.string(),
  verify: z.array(z.string()).nullable(),
  shortcut: z.string().nullable(),
  checked: z.boolean(),
  checked_by: z.string().nullable(),
  checked_at: z.string().nullable(),
  evidence: EvidenceShape.nullable(),
  added_by: z
    .string()
    .nullable()
    .describe(
      "who added it (null: before cairn kept it); a command only its holder added does not make the finish verified",
    ),
  verifies_done: z
    .boolean()
    .describe(
      "whether a pass of its command makes the finish verified; false for text, or a check only its holder set",
    ),
  stale: z
    .string()
    .optional()
    .describe(
      "`task show` of an unfinished task: why this tick no longer holds for the checkout now (finish refuses it; check --all runs it again)",
    ),
});

export const Task = TaskSummary.extend({
  parent: z.string().nullable(),
  labels: z.array(z.string()),
  so_that: z.string(),
  context: z.string(),
  estimate: z
    .object({ optimistic: z.number(), probable: z.number(), pessimistic: z.number(), expected: z.number() })
    .nullable(),
  traces: z.array(z.string()),
  milestone: z.string().nullable(),
  blocked_reason: z.string().nullable(),
  unverified: z.boolean(),
  claimed_at: z.string().nullable(),
  created_by: z.string(),
  created_at: z.string(),
});

export const TaskDetailView = z.object({
  task: Task,
  criteria: z.array(Criterion),
  depends_on: z.array(TaskSummary).describe("the tasks this one waits on, the first 100"),
  depends_on_total: z.number().int(),
  dependents: z.array(TaskSummary).describe("tasks waiting on this one, the first 100"),
  dependents_total: z.number().int(),
  children: z.array(TaskSummary).describe("the first 100 in tree order; `task list --parent` pages them all"),
  children_total: z.number().int(),
  open_asks: z
    .array(z.object({ id: z.string(), question: z.string(), asked_by: z.string(), to: z.string() }))
    .describe("each question previewed; `asks --id` shows one whole"),
  /** Open questions on the task in all; open_asks holds the oldest 100. */
  open_asks_total: z.number().int(),
  notes: z
    .array(z.object({ at: z.string(), author: z.string(), kind: z.string(), text: z.string() }))
    .describe("the newest 20 answers and 20 notes scoped to the task, each previewed"),
  /** Notes on the task in all, answers and scoped notes. */
  notes_total: z.number().int(),
  rules_changed_since_added: z
    .array(RulesChangeView)
    .optional()
    .describe(
      "changes of cairn.toml's rules (roles, shortcuts, claims, done, verify) first seen since it was added, up to its finish (or now), newest first, at most 10; none: it was finished under the rules it was added under",
    ),
  rules_changed_more: z
    .boolean()
    .optional()
    .describe(
      "true: more changes were first seen in that span than are listed, the earlier ones left out (`cairn activity --action rules.changed`)",
    ),
});

export const summaryView = (task: TaskSummaryRecord): z.infer<typeof TaskSummary> => ({
  id: task.id,
  title: task.title,
  status: task.status,
  priority: task.priority,
  owner: task.owner,
});

export const taskView = (task: TaskRecord): z.infer<typeof Task> => ({
  ...summaryView(task),
  parent: task.parentId,
  labels: task.labels,
  so_that: task.soThat,
  context: task.context,
  estimate: task.estimate ? { ...task.estimate, expected: expected(task.estimate) } : null,
  traces: task.traces,
  milestone: task.milestoneId,
  blocked_reason: task.blockedReason,
  unverified: task.unverified,
  claimed_at: task.claimedAt,
  created_by: task.createdBy,
  created_at: task.createdAt,
});

export const criterionView = (
  c: CriterionRecord,
  task: Pick<TaskRecord, "createdBy">,
): z.infer<typeof Criterion> => ({
  n: c.n,
  text: c.text,
  verify: c.verify,
  shortcut: c.shortcut,
  checked: c.checked,
  checked_by: c.checkedBy,
  checked_at: c.checkedAt,
  evidence: c.evidence,
  added_by: c.addedBy,
  verifies_done: setsVerifiedDone(c, task),
});

export const detailView = (
  detail: TaskDetail,
  notHolding: ReadonlyMap<number, string> = new Map(),
): z.infer<typeof TaskDetailView> => ({
  task: taskView(detail.task),
  criteria: detail.criteria.map((c) => {
    const stale = notHolding.get(c.n);
    const view = criterionView(c, detail.task);
    return stale ? { ...view, stale } : view;
  }),
  depends_on: detail.dependsOn.map(summaryView),
  depends_on_total: detail.dependsOnTotal,
  dependents: detail.dependents.map(summaryView),
  dependents_total: detail.dependentsTotal,
  children: detail.children.map(summaryView),
  children_total: detail.childrenTotal,
  open_asks: detail.asks.map((a) => ({ id: a.id, question: a.question, asked_by: a.askedBy, to: a.toRole })),
  open_asks_total: detail.openAsks,
  notes: detail.notes.map((n) => ({ at: n.at, author: n.author, kind: n.kind, text: n.text })),
  notes_total: detail.notesTotal,
  ...(detail.rulesChanged.length > 0
    ? { rules_changed_since_added: detail.rulesChanged.map(rulesChangeView) }
    : {}),
  ...(detail.rulesChangedMore ? { rules_changed_more: true } : {}),
});

export const summaryLine = (t: z.infer<typeof TaskSummary>) =>
  `${t.id.padEnd(7)} ${t.status.padEnd(8)} ${t.priority.padEnd(6)} ${t.title}${t.owner ? `  [${t.owner}]` : ""}`;

export function renderDetail(d: z.infer<typeof TaskDetailView>): string {
  const t = d.task;
  // As `board` and `now` say it: a finish no command checked is told apart from a verified one.
  const statusAside = [
    t.status === "done" && t.unverified ? "finished unverified" : "",
    t.owner ? `held by ${t.owner}` : "",
  ]
    .filter(Boolean)
    .join(", ");
  const lines = [
    `${t.id} ${t.title}`,
    `  status ${t.status}${statusAside ? ` (${statusAside})` : ""}, priority ${t.priority}${t.parent ? `, parent ${t.parent}` : ""}`,
  ];
  if (t.milestone) lines.push(`  milestone: ${t.milestone} (finishing needs a kept attempt)`);
  if (t.so_that) lines.push(`  so that: ${t.so_that}`);
  if (t.context) lines.push(`  context: ${textBlock(t.context, "    ")}`);
  if (t.blocked_reason) lines.push(`  blocked: ${t.blocked_reason}`);
  if (t.estimate)
    lines.push(
      `  estimate: ${t.estimate.optimistic}/${t.estimate.probable}/${t.estimate.pessimistic} h (expected ${t.estimate.expected})`,
    );
  if (t.traces.length) lines.push(`  traces: ${t.traces.join(", ")}`);
  for (const c of d.criteria) {
    const how = c.verify
      ? ` (verify: ${c.verify.join(" ")})`
      : c.shortcut
        ? ` (shortcut: ${c.shortcut})`
        : "";
    // Who set what done means, where it is not the task's author: a holder's own command.
    const by = c.added_by && c.added_by !== t.created_by ? ` [added by ${c.added_by}]` : "";
    // A tick that no longer holds is not shown as met: finish would refuse it.
    lines.push(`  [${c.stale ? "~" : c.checked ? "x" : " "}] ${c.n}. ${c.text}${how}${by}`);
    if (c.stale)
      lines.push(`      no longer holds: ${c.stale}; \`cairn task check ${t.id} --all\` runs it again`);
  }
  if (d.depends_on.length) {
    const more = d.depends_on_total - d.depends_on.length;
    lines.push(
      `  depends on: ${d.depends_on.map((x) => `${x.id} (${x.status})`).join(", ")}${more > 0 ? ` … and ${more} more` : ""}`,
    );
  }
  if (d.children.length) {
    const more = d.children_total - d.children.length;
    const rest = more > 0 ? ` … and ${more} more (\`cairn task list --parent ${t.id}\`)` : "";
    lines.push(`  children: ${d.children.map((x) => x.id).join(", ")}${rest}`);
  }
  if (d.dependents.length) {
    const more = d.dependents_total - d.dependents.length;
    lines.push(
      `  waited on by: ${d.dependents.map((x) => x.id).join(", ")}${more > 0 ? ` … and ${more} more` : ""}`,
    );
  }
  // Whose words each question is: anyone may ask, a read-only agent too (content is attributed).
  for (const a of d.open_asks) lines.push(`  ? ${a.id} by ${a.asked_by} to ${a.to}: ${a.question}`);
  if (d.open_asks_total > d.open_asks.length)
    lines.push(`  ? … ${d.open_asks_total - d.open_asks.length} more open questions (\`cairn asks\`)`);
  for (const n of d.notes) lines.push(`  note (${n.kind}, ${n.author}): ${textBlock(n.text, "    ")}`);
  if (d.notes_total > d.notes.length)
    lines.push(
      `  note … ${d.notes_total - d.notes.length} more notes (\`cairn note list --scope ${t.id}\`; answers: \`cairn asks --all\`)`,
    );
  // The rules it is held to changed since it was added: its finish may rest on looser ones.
  const changes = d.rules_changed_since_added ?? [];
  for (const change of changes)
    lines.push(`  ! cairn.toml's rules changed since it was added: ${rulesChangeLine(change)}`);
  // Ten changes of a dummy role after the one that emptied [done] left no trace of it here.
  if (d.rules_changed_more)
    lines.push("  ! … and earlier changes of cairn.toml's rules since it was added, left out here");
  if (changes.length > 0) lines.push(`    ${RULES_CHANGES_HINT}`);
  return lines.join("\n");
}

/** What a claimer needs to start work; the text fields are data written by others. */
export const WorkContext = z.object({
  task: TaskSummary.extend({ so_that: z.string(), context: z.string(), traces: z.array(z.string()) }),
  criteria: z.array(z.object({ n: z.number(), text: z.string(), checked: z.boolean() })),
  already: z.boolean(),
});

export const workContextView = (
  detail: Pick<TaskDetail, "task" | "criteria">,
  already: boolean,
): z.infer<typeof WorkContext> => ({
  task: {
    ...summaryView(detail.task),
    so_that: detail.task.soThat,
    context: detail.task.context,
    traces: detail.task.traces,
  },
  criteria: detail.criteria.map((c) => ({ n: c.n, text: c.text, checked: c.checked })),
  already,
});
