import { conflict, notFound, refuse, usageError } from "../../kernel/outcome.js";
import { shortIdNumber } from "../../kernel/short-id.js";
import { previewOfHead, previewText, quoteValue } from "../../kernel/text.js";
import { oneLine } from "../../kernel/visible-text.js";
import type { AskHeadRecord, AskRecord } from "../../store/asks.js";
import type { Store, Tx } from "../../store/store.js";
import type { TaskNote, TaskRecord } from "../../store/tasks.js";
import { type Actor, actorOf, ancestorsOf, lineageOf, OWNER, sameTree } from "../identity/actor.js";
import { BODY_CHARS, TITLE_CHARS } from "../limits/limits.js";
import type { WorkspaceConfig } from "../workspace/config.js";
import { wipFull, wipHeldText } from "./claims.js";
import { decidesPlan, journal, loadTask, who } from "./common.js";
import { covers } from "./scope.js";

export const HUMAN = "human";

/**
 * Whether a role's agents can answer: a read-only role's cannot (answering is a write), so a
 * question routed there, by scope or escalation, waited for an answer nobody in it could give.
 */
const answers = (config: WorkspaceConfig, name: string) => {
  const role = config.roles[name];
  return role !== undefined && role.grant !== "ro";
};

/**
 * Who should answer: a role whose scope covers the task's paths; else the asker's escalation
 * chain, nearest first; else a human. A read-only role is passed over (along the chain, on to
 * the role it escalates to): its agents cannot answer.
 */
export function routeAsk(
  config: WorkspaceConfig,
  askerRole: string,
  task: Pick<TaskRecord, "traces">,
): string {
  const byScope = Object.entries(config.roles).find(
    ([name, role]) => name !== askerRole && answers(config, name) && covers(role, task),
  );
  if (byScope) return byScope[0];
  const seen = new Set([askerRole]);
  const queue = [askerRole];
  while (queue.length > 0) {
    const next = config.roles[queue.shift() as string]?.escalate_to;
    if (!next || seen.has(next)) continue;
    if (answers(config, next)) return next;
    seen.add(next);
    queue.push(next);
  }
  return HUMAN;
}

const askBlockReason = (ask: Pick<AskRecord, "id" | "toRole">) => `waiting on ${ask.id} (to ${ask.toRole})`;

/** Whether a task's block is one a question made (and an answer may lift). */
const isAskBlock = (reason: string | null) =>
  reason !== null && /^waiting on Q-\d+ \(to [^()]*\)$/.test(reason);

/**
 * The askers whose questions block `task` (and keep it blocked): those who could block it
 * themselves as its plan (decidesPlan): its holder, or, while no one holds it, its author and the
 * workspace owner.
 */
function blockingAskers(task: Pick<TaskRecord, "owner" | "createdBy">): string[] {
  return task.owner ? [task.owner] : [...new Set([task.createdBy, OWNER.id])];
}

/**
 * A question routed to a role (by scope or escalation, or the route the asker names) or to a
 * human. It blocks the task only when the asker could block it with `task block` as its own plan
 * (decidesPlan): the asker holds it, or nobody does and the asker wrote it or is the owner. Anyone
 * else's question is queued to its route and shown on the task, which stays as it was (with its
 * holder, or on the board for others to claim): a read-only agent cannot stall work by asking.
 */
export async function askQuestion(
  store: Store,
  config: WorkspaceConfig,
  actor: Actor,
  raw: string,
  question: string,
  now: string,
  to?: string,
): Promise<{ ask: AskRecord; task: TaskRecord; blocked: boolean }> {
  if (question.trim() === "") throw usageError("ask what? the question is empty");
  if (to !== undefined && to !== HUMAN && !answers(config, to)) {
    const able = Object.keys(config.roles).filter((name) => answers(config, name));
    throw usageError(
      config.roles[to]
        ? `role ${quoteValue(to)} is read-only: its agents cannot answer a question`
        : `no role ${quoteValue(to)} to route the question to`,
      `name a role from cairn.toml that may answer (${able.join(", ") || "none defined"}) or "${HUMAN}"`,
    );
  }
  return store.write(async (tx) => {
    const task = await loadTask(tx, raw);
    if (task.status === "done" || task.status === "dropped") {
      throw refuse("status", `${task.id} is ${task.status}`, `reopen it first, or ask on an open task`);
    }
    const ask = await tx.asks.insert(
      {
        taskId: task.id,
        question: question.trim(),
        askedBy: actor.id,
        toRole: to ?? routeAsk(config, actor.role, task),
      },
      now,
    );
    // A task already blocked for another reason keeps that reason: the answer must not lift it.
    const blocks = decidesPlan(task, actor) && (task.status !== "blocked" || isAskBlock(task.blockedReason));
    if (blocks) {
      await tx.tasks.update(task.id, { status: "blocked", blockedReason: askBlockReason(ask) }, now);
    }
    await journal(tx, actor, now, "task.ask", task.id, { ask: ask.id, to: ask.toRole, blocked: blocks });
    return { ask, task: (await tx.tasks.byId(task.id)) as TaskRecord, blocked: blocks };
  });
}

/**
 * Who may answer: an agent of the role the question was routed to, or the owner (the human a
 * question routed to `human` reaches). Never the asker itself, nor one author with it (`sameTree`:
 * its parent or child, or a sibling whose token went to the same parent): a question is for
 * someone else, and an agent that minted two children would otherwise answer one's question
 * through the other, lifting the block and leaving its own words as the answer.
 */
async function requireAnswerer(tx: Tx, actor: Actor, ask: AskRecord): Promise<void> {
  // The owner is the human every route ends at: it may answer any question, its own included.
  if (actor.isOwner) return;
  if (ask.askedBy === actor.id || (await sameTree(tx, actor, ask.askedBy))) {
    throw refuse(
      "ask",
      `${ask.id} was asked by ${await who(tx, ask.askedBy)}${ask.askedBy === actor.id ? " (you)" : ", of your own line (an ancestor, a descendant or another agent under the same root)"}; the asker cannot answer it`,
      `wait for ${ask.toRole} (or the owner) to answer; see \`cairn asks\``,
    );
  }
  // A child never exceeds its parent: a builder's child given role lead (its child_roles) does
  // not answer for lead, or minting one would answer any question routed there.
  const outsider = lineageOf(actor).find((member) => member.role !== ask.toRole);
  if (!outsider) return;
  throw refuse(
    "ask",
    `${ask.id} is routed to ${ask.toRole}; ${actor.name} (role ${actor.role}${outsider.id === actor.id ? "" : `, under ${outsider.id} of role ${outsider.role}`}) may not answer it`,
    ask.toRole === HUMAN
      ? "a human (the workspace owner) answers it"
      : `an agent of role ${ask.toRole}, or the owner, answers it`,
  );
}

/**
 * Why a task its last answer would unblock stays blocked: its holder is at its role's WIP cap
 * (it asked, then claimed others while waiting), and back to active would put it past the cap.
 * Null when the holder has room. The holder takes it up with `reopen`, which checks the cap.
 */
async function holderAtCap(tx: Tx, config: WorkspaceConfig, task: TaskRecord): Promise<string | null> {
  if (!task.owner || task.owner === "owner") return null;
  const agent = await tx.agents.byId(task.owner);
  if (!agent) return null;
  const full = await wipFull(tx, config, actorOf(agent, await ancestorsOf(tx, agent)));
  if (!full) return null;
  return `answered; ${wipHeldText(full, agent.id)}, role ${full.role}'s WIP cap of ${full.cap}: reopen it when one is finished, blocked or released`;
}

/**
 * The answer becomes a note on the task; the last open question answered unblocks it, unless
 * its holder has no room under its WIP cap (then it stays blocked, saying so).
 */
export async function answerQuestion(
  store: Store,
  config: WorkspaceConfig,
  actor: Actor,
  askId: string,
  answer: string,
  now: string,
) {
  if (answer.trim() === "") throw usageError("answer what? (--answer)");
  const id = askId.trim().toUpperCase();
  return store.write(async (tx) => {
    const ask = await tx.asks.byId(id);
    if (!ask) throw notFound(`no question ${quoteValue(id)}`, "see `cairn asks`");
    if (ask.answeredAt)
      throw conflict(`${id} was already answered by ${ask.answeredBy} at ${ask.answeredAt}`);
    await requireAnswerer(tx, actor, ask);
    await tx.asks.answer(id, answer.trim(), actor.id, now);
    await tx.tasks.addNote({
      taskId: ask.taskId,
      at: now,
      author: actor.id,
      kind: "answer",
      text: answerNote(ask, answer.trim()),
    });
    const task = (await tx.tasks.byId(ask.taskId)) as TaskRecord;
    // The questions that hold it blocked: those of askers whose questions block it (its holder's
    // own, or, unheld, its author's and the owner's), the oldest open first. Anyone else's question
    // never blocked it, so it must not keep it blocked either (a read-only agent asking on and on
    // would stall the work).
    let waitingOn: AskRecord | undefined;
    for (const askedBy of blockingAskers(task)) {
      const [oldest] = await tx.asks.open({ taskId: task.id, askedBy, limit: 1 });
      if (oldest && (!waitingOn || shortIdNumber(oldest.id) < shortIdNumber(waitingOn.id)))
        waitingOn = oldest;
    }
    let unblocked = false;
    let atCap: string | null = null;
    // Only a block a question made is lifted: one set with `block` (or before asking) stays.
    if (task.status === "blocked" && isAskBlock(task.blockedReason) && waitingOn) {
      // Still waiting: on a question that is open, not on the one just answered.
      await tx.tasks.update(task.id, { blockedReason: askBlockReason(waitingOn) }, now);
    } else if (task.status === "blocked" && isAskBlock(task.blockedReason)) {
      atCap = await holderAtCap(tx, config, task);
      if (atCap) {
        await tx.tasks.update(task.id, { blockedReason: atCap }, now);
      } else {
        await tx.tasks.update(
          task.id,
          {
            status: task.owner ? "active" : "open",
            blockedReason: null,
            leaseAt: task.owner ? await tx.tasks.leaseClock(now) : null,
          },
          now,
        );
        unblocked = true;
      }
    }
    await journal(tx, actor, now, "task.answer", task.id, {
      ask: id,
      unblocked,
      ...(atCap ? { held_at_wip_cap: true } : {}),
    });
    return {
      ask: (await tx.asks.byId(id)) as AskRecord,
      task: (await tx.tasks.byId(task.id)) as TaskRecord,
      unblocked,
    };
  });
}

/** Where one question is read whole: every list of questions previews them. */
export const wholeAsk = (id: string) => `\`cairn asks --id ${id}\``;

/**
 * A question as a list shows it: its question and answer each previewed to TITLE_CHARS (as
 * `status` does), the preview saying where the whole is read. A read-only agent may ask, each
 * question up to 256 KiB: 120 of them made `asks` and a task's detail 25 MB.
 */
export const askPreview = (ask: AskHeadRecord): AskRecord => ({
  ...ask,
  question: previewOfHead(ask.question, TITLE_CHARS, wholeAsk(ask.id)),
  answer: ask.answer === null ? null : previewOfHead(ask.answer, TITLE_CHARS, wholeAsk(ask.id)),
});

/**
 * How much of each task note a view shows (a task's detail, a brief's activity): an answer's note
 * holds its question's preview (TITLE_CHARS) before the answer, so twice that. `asks --id` (or
 * `note show` for a knowledge note) shows it whole.
 */
export const NOTE_PREVIEW_CHARS = 2 * TITLE_CHARS;

/** A task's own note (an answer: `Q-3: question\n→ answer`) as a view shows it: previewed. */
export function taskNotePreview(note: TaskNote): TaskNote {
  const ask = note.kind === "answer" ? /^Q-\d+(?=: )/.exec(note.text)?.[0] : undefined;
  return { ...note, text: previewText(note.text, NOTE_PREVIEW_CHARS, ask ? wholeAsk(ask) : undefined) };
}

/** Room the mark of a cut answer takes in its note, with some to spare (see previewOfHead). */
const MARK_ROOM = 200;

/**
 * The note an answer leaves on its task: the question previewed (the question keeps its whole
 * text) and the answer, cut where the note would pass the BODY_CHARS every note keeps within. A
 * question and an answer of 256 KiB each made a note of 524,018 characters, and a task's notes
 * are read by every show of it.
 */
export function answerNote(ask: Pick<AskRecord, "id" | "question">, answer: string): string {
  // The question on one line, its breaks shown (`\n`): the note is the answerer's, and a question
  // holding "\n→ yes, I approve" read as a first answer of theirs above the one they gave.
  const head = `${ask.id}: ${oneLine(previewText(ask.question, TITLE_CHARS, wholeAsk(ask.id)))}\n→ `;
  return `${head}${previewText(answer, BODY_CHARS - head.length - MARK_ROOM, wholeAsk(ask.id))}`;
}

/**
 * Open questions listed at most, oldest first, wherever they are listed (`asks`, `status`, a
 * task's detail, the dashboard's inbox), with the total beside them: anyone may ask, a read-only
 * agent too, so their number has no bound, and `status` (every agent's first call) must stay small.
 * All but a task's detail list only those on live tasks (endedAsksLine).
 */
export const ASKS_SHOWN = 100;

/** What a list says of the open questions it leaves out, those on ended tasks, and where they are seen. */
export const endedAsksLine = (count: number) =>
  `(${count} more open on tasks done or dropped, left out: cairn asks --all)`;

/**
 * Open questions on live tasks, oldest first (all or one role's), with how many there are in all
 * and how many more wait on ended tasks (done or dropped: nobody needs their answer any more, so
 * they are left out, counted, and still answerable); or every question (of that role) newest first with `all`;
 * at most `limit`, each previewed (askPreview). With `id`, that one question, whole.
 */
export async function listAsks(
  store: Store,
  filter: { id?: string; role?: string; all?: boolean; limit?: number },
) {
  const limit = filter.limit ?? ASKS_SHOWN;
  return store.read(async (tx) => {
    if (filter.id !== undefined) {
      // One question, whole: the one place its full text and answer are read.
      const id = filter.id.trim().toUpperCase();
      const ask = await tx.asks.byId(id);
      if (!ask) throw notFound(`no question ${quoteValue(id)}`, "see `cairn asks --all`");
      return { asks: [ask], total: null, onEndedTasks: null };
    }
    if (filter.all)
      return {
        asks: (await tx.asks.recentHeads(limit, filter.role)).map(askPreview),
        total: null,
        onEndedTasks: null,
      };
    const toRole = filter.role;
    return {
      asks: (await tx.asks.openHeads({ toRole, onTasks: "live", limit })).map(askPreview),
      total: await tx.asks.countOpen({ toRole, onTasks: "live" }),
      onEndedTasks: await tx.asks.countOpen({ toRole, onTasks: "ended" }),
    };
  });
}
