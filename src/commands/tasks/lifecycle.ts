import { z } from "zod";
import { blockTask, dropTask, reopenTask } from "../../domains/tasks/board.js";
import { checkTask, finishTask } from "../../domains/tasks/done.js";
import { dependTask, moveTask } from "../../domains/tasks/tree.js";
import type { Verifier } from "../../domains/tasks/verifier.js";
import { EXIT_CODES } from "../../kernel/outcome.js";
import type { CommandContext } from "../context.js";
import { defineCommand } from "../define.js";
import { verbatim } from "../field-text.js";
import { summaryView, TaskSummary } from "./views.js";

/** A task's life after the claim: check, finish, block, reopen, drop, move and depend. */
const id = z.string().describe("e.g. T-12");
/** Who checks, where, and with which cancel and progress: the call's own. */
export const verifier = (ctx: CommandContext): Verifier => ({
  config: ctx.config,
  actor: ctx.actor,
  root: ctx.workspace.root,
  cwd: ctx.cwd,
  now: ctx.now,
  signal: ctx.signal,
  progress: ctx.progress,
});
const one = z.object({ task: TaskSummary });
const renderOne = (verb: string) => (out: z.infer<typeof one>) =>
  `${verb} ${out.task.id} (${out.task.status}): ${out.task.title}`;

export const taskCheck = defineCommand({
  name: "task check",
  supervises: true,
  summary: "Tick acceptance criteria (owner only); verify commands are run by cairn and must exit 0",
  effect: "write",
  positional: ["task"],
  flagHelp: { n: "the criterion's number, as `task show` lists them" },
  input: z.object({
    task: id,
    n: z.number().int().min(1).optional(),
    all: z.boolean().optional().describe("all unchecked, or checked on another tree"),
  }),
  output: z.object({
    task: z.string(),
    results: z.array(
      z.object({
        n: z.number(),
        text: z.string().optional(),
        checked: z.boolean(),
        why: z.string().nullable(),
        exit_code: z.number().nullable(),
        output_tail: z.string().nullable(),
      }),
    ),
    unchecked: z.array(z.number()),
  }),
  async handler(input, ctx) {
    const out = await checkTask(ctx.store, verifier(ctx), input.task, input);
    return {
      task: out.task.id,
      // A failing command's tail says why; the full evidence is in `task show`.
      results: out.results.map((r) => ({
        n: r.n,
        text: r.text,
        checked: r.checked,
        why: r.why,
        exit_code: r.evidence?.exit_code ?? null,
        output_tail: r.evidence && !r.checked ? r.evidence.output_tail.slice(-1_000) : null,
      })),
      unchecked: out.unchecked,
    };
  },
  // A criterion that failed its check fails the command, as a failing test does.
  exitCode: (out) => (out.results.some((r) => !r.checked) ? EXIT_CODES.operational : EXIT_CODES.ok),
  render: (out) =>
    [
      ...out.results.flatMap((r) => [
        `[${r.checked ? "x" : " "}] ${r.n}. ${r.text ?? ""}${r.why ? ` — failed: ${r.why}` : " — ok"}${exitShown(r)}`,
        ...(r.output_tail
          ? verbatim(r.output_tail)
              .trimEnd()
              .split("\n")
              .slice(-10)
              .map((line) => `    | ${line}`)
          : []),
      ]),
      out.unchecked.length === 0
        ? `${out.task}: every criterion is checked`
        : `${out.task}: still unchecked: ${out.unchecked.length === 1 ? "criterion" : "criteria"} ${out.unchecked.join(", ")}`,
    ].join("\n"),
});

/** A check's exit code, unless its failure's reason already names it ("exited 1: …"). */
const exitShown = (r: { why: string | null; exit_code: number | null }) =>
  r.exit_code === null || r.why?.startsWith("exited ") ? "" : ` (exit ${r.exit_code})`;

export const taskFinish = defineCommand({
  name: "task finish",
  supervises: true,
  summary:
    "Finish a task you own: refused, listing what is unmet, until every criterion and the definition of done pass",
  effect: "write",
  // A read-only agent, or anyone not holding the task, leaves a proposal for its owner instead.
  allowReadOnly: true,
  positional: ["task"],
  flagHelp: { note: "what you say of the finish, kept with it in the journal" },
  input: z.object({
    task: id,
    unverified: z.boolean().optional().describe("no criteria; recorded"),
    note: z.string().optional(),
  }),
  output: z.object({
    task: z.string(),
    result: z.enum(["done", "proposed"]),
    unverified: z.boolean(),
    to: z.string().nullable(),
  }),
  async handler(input, ctx) {
    const out = await finishTask(ctx.store, verifier(ctx), input.task, input);
    return out.kind === "done"
      ? { task: out.task.id, result: "done" as const, unverified: out.unverified, to: null }
      : { task: out.task.id, result: "proposed" as const, unverified: false, to: out.to };
  },
  render: (out) =>
    out.result === "done"
      ? `Finished ${out.task}${out.unverified ? " (unverified)" : ""}`
      : `Proposed finishing ${out.task} to its owner ${out.to}`,
});

export const taskBlock = defineCommand({
  name: "task block",
  summary: "Mark a task blocked, saying why",
  effect: "write",
  positional: ["task"],
  input: z.object({ task: id, reason: z.string() }),
  output: one,
  async handler(input, ctx) {
    return { task: summaryView(await blockTask(ctx.store, ctx.actor, input.task, input.reason, ctx.now())) };
  },
  render: renderOne("Blocked"),
});

export const taskReopen = defineCommand({
  name: "task reopen",
  summary: "Unblock a held task, or return a done/dropped task to the board (its ticks cleared)",
  effect: "write",
  positional: ["task"],
  input: z.object({ task: id }),
  output: one,
  async handler(input, ctx) {
    return { task: summaryView(await reopenTask(ctx.store, ctx.config, ctx.actor, input.task, ctx.now())) };
  },
  render: renderOne("Reopened"),
});

export const taskDrop = defineCommand({
  name: "task drop",
  summary: "Drop a task that will not be done (its dependents no longer wait on it)",
  effect: "write",
  positional: ["task"],
  input: z.object({ task: id, reason: z.string().optional() }),
  output: one,
  async handler(input, ctx) {
    return { task: summaryView(await dropTask(ctx.store, ctx.actor, input.task, input.reason, ctx.now())) };
  },
  render: renderOne("Dropped"),
});

export const taskMove = defineCommand({
  name: "task move",
  summary: "Move a task (and its subtree) under another parent, or to the top with no --parent",
  effect: "write",
  positional: ["task"],
  input: z.object({ task: id, parent: z.string().optional().describe("new parent; omit for top level") }),
  output: one,
  async handler(input, ctx) {
    return { task: summaryView(await moveTask(ctx.store, ctx.actor, input.task, input.parent, ctx.now())) };
  },
  render: renderOne("Moved"),
});

export const taskDepend = defineCommand({
  name: "task depend",
  summary: "Add (--on) or remove (--remove) finish-to-start dependencies; cycles are refused",
  effect: "write",
  positional: ["task"],
  flagHelp: { remove: "a task to depend on no longer" },
  input: z.object({
    task: id,
    on: z.array(z.string()).optional().describe("tasks to finish first"),
    remove: z.array(z.string()).optional(),
  }),
  output: z.object({ task: z.string(), depends_on: z.array(TaskSummary) }),
  async handler(input, ctx) {
    const out = await dependTask(ctx.store, ctx.actor, input.task, input, ctx.now());
    return { task: out.task.id, depends_on: out.dependsOn.map(summaryView) };
  },
  render: (out) =>
    `${out.task} depends on: ${out.depends_on.length ? out.depends_on.map((d) => `${d.id} (${d.status})`).join(", ") : "nothing"}`,
});

export const LIFECYCLE_COMMANDS = [
  taskCheck,
  taskFinish,
  taskBlock,
  taskReopen,
  taskDrop,
  taskMove,
  taskDepend,
];
