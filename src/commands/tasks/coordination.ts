import { z } from "zod";
import { reapOrphans } from "../../domains/agents/orphans.js";
import { auditRunEnd } from "../../domains/audit/record.js";
import { compactMemory } from "../../domains/knowledge/memory.js";
import {
  ASKS_SHOWN,
  answerQuestion,
  askQuestion,
  endedAsksLine,
  listAsks,
} from "../../domains/tasks/asks.js";
import { addQueue, listQueues, queueAdvance, queueNext } from "../../domains/tasks/queues.js";
import { sweep } from "../../domains/tasks/sweep.js";
import { TASK_STATUSES } from "../../store/tasks.js";
import { defineCommand } from "../define.js";
import { shortId } from "../ids.js";
import { nextOffset, pageFooter, pageInput, pageOutput } from "../paging.js";

const Ask = z.object({
  id: z.string(),
  task: z.string(),
  question: z.string(),
  asked_by: z.string(),
  to: z.string(),
  answer: z.string().nullable(),
});
type AskLike = {
  id: string;
  taskId: string;
  question: string;
  askedBy: string;
  toRole: string;
  answer: string | null;
};
const askView = (a: AskLike): z.infer<typeof Ask> => ({
  id: a.id,
  task: a.taskId,
  question: a.question,
  asked_by: a.askedBy,
  to: a.toRole,
  answer: a.answer,
});

export const sweepCommand = defineCommand({
  name: "sweep",
  summary:
    "Release claims of agents silent past [claims] lease_minutes, recording why; end agent runs whose supervisor died; merge a fragmented memory index",
  effect: "write",
  input: z.object({}),
  output: z.object({
    released: z.array(z.object({ task: z.string(), owner: z.string(), why: z.string() })),
    /** Pieces of the memory's full-text index merged into one (0: it was compact). */
    index_pieces_merged: z.number().int(),
    /** Agent runs whose supervisor died (kill -9, a crash): marked interrupted, what they left killed, their token retired. */
    runs_interrupted: z.array(z.string()),
  }),
  async handler(_input, ctx) {
    // Not only a daemon's start: a workspace that runs agents without one must not keep a dead
    // run's processes, or its minted token, alive for good. Reaped first: the token it retires
    // frees that run's claims in the same sweep, not the next one.
    const interrupted = await reapOrphans(ctx.store, ctx.workspace, ctx.actor.id, ctx.now, (run) =>
      auditRunEnd(ctx, run),
    );
    const released = await sweep(ctx.store, ctx.config, ctx.actor, ctx.now());
    const merged = await compactMemory(ctx.store, ctx.actor, ctx.now());
    return {
      released: released.map((r) => ({ task: r.task, owner: r.owner, why: r.why })),
      index_pieces_merged: merged,
      runs_interrupted: interrupted,
    };
  },
  render: (out) =>
    [
      out.released.length === 0
        ? "No stale claims."
        : out.released.map((r) => `released ${r.task} from ${r.owner}: ${r.why}`).join("\n"),
      ...(out.index_pieces_merged > 0
        ? [`Merged the memory index's ${out.index_pieces_merged} pieces into one.`]
        : []),
      ...out.runs_interrupted.map(
        (run) => `${run}: its supervisor died; marked interrupted, its processes and token ended`,
      ),
    ].join("\n"),
});

export const askCommand = defineCommand({
  name: "ask",
  summary:
    "Ask a question on a task, routed to a role (or a human); blocks the task if you hold it (or, unheld, wrote it)",
  effect: "write",
  allowReadOnly: true,
  positional: ["task", "question"],
  flagHelp: { to: "a role, or human (default: the role owning the task's paths)" },
  input: z.object({
    task: z.string(),
    question: z.string(),
    // Described in the tool text, not here: every worker carries this schema in its context.
    to: z.string().optional(),
  }),
  output: z.object({
    ask: z.string(),
    to: z.string(),
    task: z.string(),
    /** The task's status after the call: blocked by this question, or by something before it. */
    status: z.enum(TASK_STATUSES),
    /** Whether this question blocked the task (it stays blocked until it is answered). */
    blocked: z.boolean(),
  }),
  async handler(input, ctx) {
    const out = await askQuestion(
      ctx.store,
      ctx.config,
      ctx.actor,
      input.task,
      input.question,
      ctx.now(),
      input.to,
    );
    return {
      ask: out.ask.id,
      to: out.ask.toRole,
      task: out.task.id,
      status: out.task.status,
      blocked: out.blocked,
    };
  },
  render: (out) => `Asked ${out.ask} on ${out.task} (${askEffect(out)}); routed to ${out.to}`,
});

/**
 * What a question did to its task, truthfully: a task already blocked (by `block`, or by someone
 * else's question) that this question did not block must not read as blocked by it.
 */
function askEffect(out: { status: string; blocked: boolean }): string {
  if (out.blocked) return "blocked until it is answered";
  const why = "a question blocks a task only if its asker may block it, and never over another block";
  return out.status === "blocked"
    ? `already blocked, not by this question: ${why}`
    : `left ${out.status}: ${why}`;
}

export const answerCommand = defineCommand({
  name: "answer",
  summary:
    "Answer a question: recorded as a note on its task, unblocked when no question blocking it remains",
  effect: "write",
  positional: ["ask", "answer"],
  input: z.object({ ask: z.string().describe("e.g. Q-3"), answer: z.string() }),
  output: z.object({
    ask: z.string(),
    task: z.string(),
    status: z.enum(TASK_STATUSES),
    unblocked: z.boolean(),
  }),
  async handler(input, ctx) {
    const out = await answerQuestion(ctx.store, ctx.config, ctx.actor, input.ask, input.answer, ctx.now());
    return { ask: out.ask.id, task: out.task.id, status: out.task.status, unblocked: out.unblocked };
  },
  render: (out) => `Answered ${out.ask}; ${out.task} is ${out.status}`,
});

export const asksCommand = defineCommand({
  name: "asks",
  summary:
    "Open questions (all, or those routed to one role), each previewed; --all includes answered ones; --id Q-3 shows one whole",
  effect: "read",
  flagHelp: { role: "only the questions routed to this role", all: "answered questions too" },
  input: z.object({
    id: shortId("Q").optional().describe("one question, e.g. Q-3, with its whole text and answer"),
    role: z.string().optional(),
    all: z.boolean().optional(),
    limit: z.number().int().min(1).max(1000).optional().describe(`default ${ASKS_SHOWN}`),
  }),
  output: z.object({
    asks: z.array(Ask),
    /** Open questions on live tasks in all (of that role), past the limit too; null with --all or --id. */
    total: z.number().int().nullable(),
    /** Open questions (of that role) on ended tasks, done or dropped: left out; null with --all or --id. */
    on_ended_tasks: z.number().int().nullable(),
  }),
  async handler(input, ctx) {
    const { asks, total, onEndedTasks } = await listAsks(ctx.store, input);
    return { asks: asks.map(askView), total, on_ended_tasks: onEndedTasks };
  },
  render: (out) =>
    [
      ...(out.asks.length === 0 ? ["No open questions."] : []),
      ...out.asks.map(
        (a) =>
          `${a.id} on ${a.task} by ${a.asked_by} to ${a.to}: ${a.question}${a.answer ? ` → ${a.answer}` : ""}`,
      ),
      ...(out.total !== null && out.total > out.asks.length
        ? [`(${out.asks.length} of ${out.total} open; --limit shows more)`]
        : []),
      ...(out.on_ended_tasks ? [endedAsksLine(out.on_ended_tasks)] : []),
    ].join("\n"),
});

const Position = z.object({
  name: z.string(),
  cursor: z.number(),
  total: z.number(),
  step: z.string().nullable(),
  added_by: z.string().describe("who wrote the steps: the step is their text"),
  finished: z.boolean(),
});
const renderPosition = (q: z.infer<typeof Position>) =>
  q.finished
    ? `${q.name}: finished (${q.total} steps)`
    : `${q.name} step ${q.cursor + 1}/${q.total}, written by ${q.added_by}: ${q.step}`;

export const queueAdd = defineCommand({
  name: "queue add",
  summary: "Create a named queue of ordered steps",
  effect: "write",
  positional: ["name"],
  input: z.object({ name: z.string(), step: z.array(z.string()).describe("one per step, in order") }),
  output: Position,
  async handler(input, ctx) {
    return addQueue(ctx.store, ctx.actor, input.name, input.step, ctx.now());
  },
  render: renderPosition,
});

export const queueNextCommand = defineCommand({
  name: "queue next",
  summary: "The current step of a queue",
  effect: "read",
  positional: ["name"],
  input: z.object({ name: z.string() }),
  output: Position,
  async handler(input, ctx) {
    return queueNext(ctx.store, input.name);
  },
  render: renderPosition,
});

export const queueAdvanceCommand = defineCommand({
  name: "queue advance",
  summary: "Move a queue to its next step, once per key (a replayed key changes nothing)",
  effect: "write",
  positional: ["name"],
  input: z.object({
    name: z.string(),
    key: z.string().describe("one per step; replays are no-ops"),
  }),
  output: Position.extend({ replayed: z.boolean() }),
  async handler(input, ctx) {
    return queueAdvance(ctx.store, ctx.actor, input.name, input.key, ctx.now());
  },
  render: (out) => `${out.replayed ? "(replayed, unchanged) " : ""}${renderPosition(out)}`,
});

/** Queues per page of `queue list`, and the most one page holds (each shows a step of up to 4 KiB). */
const QUEUES_PAGE = 50;
const QUEUES_PAGE_MAX = 200;

export const queueList = defineCommand({
  name: "queue list",
  summary: "The queues, first added first, and where each cursor is; paged",
  effect: "read",
  input: z.object(pageInput(QUEUES_PAGE, QUEUES_PAGE_MAX)),
  output: z.object({ queues: z.array(Position), ...pageOutput }),
  async handler(input, ctx) {
    const offset = input.offset ?? 0;
    const { queues, total } = await listQueues(ctx.store, { limit: input.limit ?? QUEUES_PAGE, offset });
    return { queues, total, next_offset: nextOffset(offset, queues.length, total) };
  },
  render: (out) =>
    out.total === 0
      ? "No queues."
      : [...out.queues.map(renderPosition), ...pageFooter(out, out.queues.length)].join("\n"),
});

export const COORDINATION_COMMANDS = [
  sweepCommand,
  askCommand,
  answerCommand,
  asksCommand,
  queueAdd,
  queueNextCommand,
  queueAdvanceCommand,
  queueList,
];
