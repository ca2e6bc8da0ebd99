import { z } from "zod";
import {
  addTask,
  LIVE_STATUSES,
  listTasks,
  liveTaskIdsStartingWith,
  showTask,
} from "../../domains/tasks/board.js";
import { claimTask, readyWithAuthors, releaseTask } from "../../domains/tasks/claims.js";
import { addCriterion } from "../../domains/tasks/criteria.js";
import { ticksNotHolding } from "../../domains/tasks/verifier.js";
import { settingOf } from "../../kernel/setting.js";
import { PRIORITIES, TASK_ORDERS, TASK_STATUSES } from "../../store/tasks.js";
import { defineCommand } from "../define.js";
import { textBlock } from "../field-text.js";
import { IdsOutput, idsInput, MAX_IDS, renderIds } from "../ids.js";
import { LIFECYCLE_COMMANDS, verifier } from "./lifecycle.js";
import {
  Criterion,
  criterionView,
  detailView,
  renderDetail,
  summaryLine,
  summaryView,
  TaskDetailView,
  TaskSummary,
  WorkContext,
  workContextView,
} from "./views.js";

const id = z.string().describe("e.g. T-12");
const one = z.object({ task: TaskSummary });
const renderOne = (verb: string) => (out: z.infer<typeof one>) =>
  `${verb} ${out.task.id} (${out.task.status}): ${out.task.title}`;

/** The tool form of a criterion; shortcut params and timeouts go through `task criterion`. */
const CriterionInput = z.object({
  text: z.string(),
  verify: z.array(z.string()).optional().describe("argv; passes on exit 0"),
  shortcut: z.string().optional(),
});

export const taskAdd = defineCommand({
  name: "task add",
  summary: "Add a task (criteria, dependencies, three-point estimate, traces, labels)",
  effect: "write",
  positional: ["title"],
  flagHelp: {
    context: "what whoever takes the task should know: background, links, constraints",
    parent: "an epic's id (T-3): this task becomes one of its parts",
    depends_on: "a task to finish first",
  },
  input: z.object({
    title: z.string(),
    so_that: z.string().optional().describe("why"),
    context: z.string().optional(),
    parent: z.string().optional(),
    priority: z.enum(PRIORITIES).optional(),
    criteria: z
      .array(z.union([z.string(), CriterionInput]))
      .optional()
      .describe("text, or {text, verify}"),
    depends_on: z.array(z.string()).optional(),
    estimate: z.string().optional().describe('hours "low,likely,high"'),
    traces: z.array(z.string()).optional().describe("paths"),
    labels: z.array(z.string()).optional(),
  }),
  output: one,
  async handler(input, ctx) {
    return {
      task: summaryView(
        await addTask(ctx.store, ctx.actor, input, ctx.now(), settingOf(ctx.env), ctx.config),
      ),
    };
  },
  render: renderOne("Added"),
});

export const taskCriterion = defineCommand({
  name: "task criterion",
  summary: "Add an acceptance criterion, optionally verified by a command (argv) or a shortcut",
  effect: "write",
  positional: ["task"],
  input: z.object({
    task: id,
    text: z.string().describe("what must be true"),
    verify: z.array(z.string()).optional().describe("the command as argv, one --verify per word"),
    shortcut: z.string().optional().describe("a read shortcut that verifies it"),
    params: z.array(z.string()).optional().describe("shortcut params, NAME=VALUE"),
    timeout_seconds: z.number().int().positive().optional().describe("kill the command after this long"),
  }),
  output: z.object({ task: z.string(), criterion: Criterion }),
  async handler(input, ctx) {
    const { task, ...criterion } = input;
    const { criterion: added, task: owning } = await addCriterion(
      ctx.store,
      ctx.actor,
      task,
      criterion,
      ctx.now(),
      settingOf(ctx.env),
      ctx.config,
    );
    return { task: added.taskId, criterion: criterionView(added, owning) };
  },
  render: (out) => `${out.task}: criterion ${out.criterion.n} added: ${out.criterion.text}`,
});

export const taskList = defineCommand({
  name: "task list",
  summary: "List tasks in tree order, filtered by status, owner, label, parent or text; paged",
  effect: "read",
  input: z.object({
    status: z.array(z.enum(TASK_STATUSES)).optional(),
    owner: z.string().optional().describe('id or "me"'),
    label: z.string().optional(),
    parent: z.string().optional(),
    text: z.string().optional(),
    order: z.enum(TASK_ORDERS).optional().describe("default tree (depth-first)"),
    limit: z.number().int().min(1).max(500).optional(),
    offset: z.number().int().min(0).optional(),
  }),
  output: z.object({
    tasks: z.array(TaskSummary),
    total: z.number(),
    total_capped: z.boolean().optional().describe("total stopped counting: more tasks match"),
    next_offset: z.number().nullable(),
  }),
  async handler(input, ctx) {
    const limit = input.limit ?? 50;
    const offset = input.offset ?? 0;
    const owner = input.owner === "me" ? ctx.actor.id : input.owner;
    const { tasks, total, capped } = await listTasks(ctx.store, { ...input, owner, limit, offset });
    return {
      tasks: tasks.map(summaryView),
      total,
      ...(capped ? { total_capped: true } : {}),
      next_offset: offset + tasks.length < total ? offset + tasks.length : null,
    };
  },
  render: (out) =>
    out.tasks.length === 0
      ? "No tasks match."
      : [
          ...out.tasks.map(summaryLine),
          `(${out.tasks.length} of ${out.total}${out.total_capped ? "+" : ""})`,
        ].join("\n"),
});

/** Tasks on one page of `task listing`: what MCP's resources/list shows of the board at a time. */
const LISTING_MAX = 500;

/**
 * The live tasks as MCP's `resources/list` lists them: a page goes on after the last task of the
 * page before, in tree order, not from an offset. A listing walked page by page while others work
 * skipped a live task for each task that left the list above the page reached (finished, dropped).
 */
export const taskListing = defineCommand({
  name: "task listing",
  summary:
    "Open, active and blocked tasks in tree order, a page at a time after a given task: for MCP resources",
  effect: "read",
  input: z.object({
    after: z.string().optional().describe("the last task of the page before; omit for the first page"),
    limit: z.number().int().min(1).max(LISTING_MAX).optional().describe("default 100"),
  }),
  output: z.object({
    tasks: z.array(TaskSummary),
    next_after: z.string().nullable().describe("where the next page starts; null when none is left"),
  }),
  async handler(input, ctx) {
    const { tasks, total } = await listTasks(ctx.store, {
      status: [...LIVE_STATUSES],
      after: input.after,
      limit: input.limit ?? 100,
      offset: 0,
    });
    const last = tasks.at(-1);
    return { tasks: tasks.map(summaryView), next_after: last && total > tasks.length ? last.id : null };
  },
  render: (out) =>
    [
      ...out.tasks.map(summaryLine),
      ...(out.next_after !== null ? [`(next: --after ${out.next_after})`] : []),
    ].join("\n") || "No (more) open, active or blocked tasks.",
});

export const taskIds = defineCommand({
  name: "task ids",
  summary:
    "Ids of open, active and blocked tasks starting with what was typed (T-13, t-13 or 13), lowest first: for completion",
  effect: "read",
  positional: ["prefix"],
  input: idsInput("task"),
  output: IdsOutput,
  async handler(input, ctx) {
    return liveTaskIdsStartingWith(ctx.store, input.prefix ?? "", input.limit ?? MAX_IDS);
  },
  render: renderIds,
});

export const taskShow = defineCommand({
  name: "task show",
  summary: "One task with its criteria and evidence, dependencies, children, open questions and notes",
  effect: "read",
  positional: ["task"],
  input: z.object({ task: id }),
  output: TaskDetailView,
  async handler(input, ctx) {
    const detail = await showTask(ctx.store, input.task);
    // A finished or dropped task's ticks held when it closed; the checkout has moved on since.
    const open = detail.task.status !== "done" && detail.task.status !== "dropped";
    return detailView(detail, open ? await ticksNotHolding(verifier(ctx), detail.criteria) : undefined);
  },
  render: renderDetail,
});

export const taskReady = defineCommand({
  name: "task ready",
  summary: "Open tasks you may claim now (dependencies finished, in your scope), best first",
  effect: "read",
  input: z.object({ limit: z.number().int().min(1).max(100).optional() }),
  output: z.object({
    tasks: z.array(
      TaskSummary.extend({ author: z.string().describe("who wrote the task: its title is their words") }),
    ),
  }),
  async handler(input, ctx) {
    const tasks = await ctx.store.read((tx) => readyWithAuthors(tx, ctx.config, ctx.actor, input.limit ?? 5));
    return { tasks: tasks.map((task) => ({ ...summaryView(task), author: task.author })) };
  },
  render: (out) =>
    out.tasks.length === 0 ? "Nothing is ready for you." : out.tasks.map(summaryLine).join("\n"),
});

export const taskClaim = defineCommand({
  name: "task claim",
  summary: "Claim a task atomically; returns its full context",
  effect: "write",
  // A read-only agent reaches the claim rule, which refuses it with what it may do instead.
  allowReadOnly: true,
  positional: ["task"],
  input: z.object({ task: id }),
  output: WorkContext,
  async handler(input, ctx) {
    const claimed = await claimTask(ctx.store, ctx.config, ctx.actor, input.task, ctx.now());
    // The task as claimed and its criteria: a claim shows none of its children, notes or asks.
    const criteria = await ctx.store.read((tx) => tx.tasks.criteria(claimed.task.id));
    return workContextView({ task: claimed.task, criteria }, claimed.already);
  },
  render: (out) =>
    [
      `Claimed ${out.task.id}${out.already ? " (already yours)" : ""}: ${out.task.title}`,
      ...(out.task.so_that ? [`  so that: ${out.task.so_that}`] : []),
      ...(out.task.context ? [`  context: ${textBlock(out.task.context, "    ")}`] : []),
      ...out.criteria.map((c) => `  [${c.checked ? "x" : " "}] ${c.n}. ${c.text}`),
    ].join("\n"),
});

export const taskRelease = defineCommand({
  name: "task release",
  summary: "Give a claimed task back to the board",
  effect: "write",
  positional: ["task"],
  input: z.object({ task: id, reason: z.string().optional() }),
  output: one,
  async handler(input, ctx) {
    return {
      task: summaryView(await releaseTask(ctx.store, ctx.actor, input.task, input.reason, ctx.now())),
    };
  },
  render: renderOne("Released"),
});

export const TASK_COMMANDS = [
  taskAdd,
  taskCriterion,
  taskList,
  taskListing,
  taskIds,
  taskShow,
  taskReady,
  taskClaim,
  taskRelease,
  ...LIFECYCLE_COMMANDS,
];
