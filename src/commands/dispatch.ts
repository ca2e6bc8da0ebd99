import type { z } from "zod";
import { assertAuditable, audit } from "../domains/audit/record.js";
import { requireStillActive } from "../domains/identity/actor.js";
import { type AskPerson, agreedByPerson, guard, judgedByPerson } from "../domains/identity/guard.js";
import { checkLimits, checkWholeCharacters } from "../domains/limits/limits.js";
import { sha256Hex } from "../kernel/builtins.js";
import { logWarn } from "../kernel/log.js";
import { type Outcome, operational, outcomeFromThrown, refuse, usageError } from "../kernel/outcome.js";
import { Slots } from "../kernel/slots.js";
import { quoteValue } from "../kernel/text.js";
import { untilStopped } from "../kernel/until-stopped.js";
import type { CallControls, CommandContext, Session, SessionContext } from "./context.js";
import type { AnyCommand, WorkspaceCommand } from "./define.js";
import { AFTER_CALL_HOOKS, beginCall, CALL_HOOKS, whileCalling } from "./hooks.js";

/** Name every offending field, so a caller can fix its call without guessing. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.length > 0 ? issue.path.join(".") : "(input)"}: ${issue.message}`)
    .join("; ");
}

/**
 * The single path every call takes, from either face: validate input, bind the caller, apply
 * the guard, run the handler, check the output against its declared schema.
 */
export async function dispatch(
  command: AnyCommand,
  rawInput: unknown,
  session: Session,
  controls: CallControls = {},
): Promise<Outcome<unknown>> {
  try {
    const parsed = command.input.safeParse(rawInput ?? {});
    if (!parsed.success) {
      throw usageError(
        `${command.name}: ${describeIssues(parsed.error)}`,
        `see \`cairn ${command.name} --help\``,
      );
    }
    const input = parsed.data as Record<string, unknown>;
    checkLimits(command.name, input);
    checkWholeCharacters(command.name, input);
    if (session.readOnly && command.effect !== "read") {
      throw refuse(
        "read-only",
        `\`${command.name}\` changes the workspace; this session only reads`,
        `run \`cairn ${command.name}\` in a terminal`,
      );
    }
    let output: unknown;
    if (command.workspace === "none") {
      output = await command.handler(input, { ...session.bare(), signal: controls.signal });
    } else {
      const opened = await session.context();
      output = await whileSupervising(command, controls.signal, (signal) => {
        const ctx: CommandContext = {
          ...opened,
          signal,
          progress: controls.progress ?? (() => {}),
          audience: controls.audience ?? "person",
          ...(controls.askPerson ? { askPerson: audited(controls.askPerson, opened, command.name) } : {}),
        };
        return callWithin(ctx, command, input, session, controls);
      });
    }
    const checked = command.output.safeParse(output);
    if (!checked.success) {
      throw operational(
        `internal: ${command.name} produced output that breaks its schema: ${describeIssues(checked.error)}`,
      );
    }
    return { kind: "ok", value: checked.data };
  } catch (thrown) {
    return outcomeFromThrown(thrown);
  }
}

/**
 * Calls that start processes, at most this many at once in one cairn process (a server and all
 * its sessions): a client sending 300 `run_shortcut` calls together started 300 processes. The
 * rest wait their turn, and a cancel ends a wait.
 */
const SUPERVISED_AT_ONCE = 8;
const supervisedSlots = new Slots(SUPERVISED_AT_ONCE);

/**
 * A command that runs processes it supervises (a shortcut, verify commands, evaluators, an OS
 * tool) waits for one of the process's slots, and is cancelled as its caller would cancel it when
 * this process is stopped (SIGTERM, a server whose client left); the process waits (its stop
 * grace) for the call to record its end: what it ran killed, its journal and audit lines written.
 * Other calls are not waited for: a wait that does not listen to the stop (a lock on a shared
 * store) would only hold the exit.
 */
function whileSupervising<T>(
  command: WorkspaceCommand,
  cancel: AbortSignal | undefined,
  call: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  if (command.supervises === true)
    return untilStopped(cancel, (signal) => supervisedSlots.run(signal, () => call(signal)));
  return call(cancel ?? new AbortController().signal);
}

/**
 * Each question put to the person at the client, and their answer, is a line in the audit log.
 * The question is kept by its digest: it may quote what the call deletes (a leaked secret that
 * `forget` removes), and the log keeps every line for good.
 */
function audited(askPerson: AskPerson, ctx: SessionContext, command: string): AskPerson {
  return async (question) => {
    const answer = await askPerson(question);
    audit(ctx, answer === "yes" ? "info" : "notice", "person.asked", {
      command,
      question_sha256: sha256Hex(question),
      answer,
    });
    return answer;
  };
}

/** A call's input as a person reads it in a question: each field, its value quoted (a cut is marked). */
const inputShown = (input: Record<string, unknown>) =>
  Object.entries(input)
    .filter(([key, value]) => key !== "confirm" && value !== undefined)
    .map(
      ([key, value]) =>
        `${key} ${quoteValue(typeof value === "string" ? value : JSON.stringify(value), 200)}`,
    )
    .join(", ") || "no input";

/** Check the caller may make this call, then run it with the call's hooks and audit. */
function callWithin(
  ctx: CommandContext,
  command: WorkspaceCommand,
  input: Record<string, unknown>,
  session: Session,
  controls: CallControls,
): Promise<unknown> {
  return afterCall(ctx, command, input, async () => {
    // Retirement takes effect at a running server's next call, reads included.
    await requireStillActive(ctx.store, ctx.actor);
    guard(ctx.actor, {
      name: command.name,
      effect: command.effect,
      allowReadOnly: command.allowReadOnly,
      confirmed: input.confirm === true,
    });
    // Every write is recorded: one whose audit line could not be appended is not done.
    if (command.effect !== "read") assertAuditable(ctx);
    // A read-only session (the dashboard) only looks, and a server's own look (its change
    // feed) is not a call by the caller: neither renews anyone's lease. Neither makes a
    // destructive call: the first is refused any write, the second only reads.
    if (session.readOnly || controls.background) return command.handler(input, ctx);
    // A hook's failure (a busy database) must not fail the call it rides on. A store that cannot
    // be reached fails every hook alike: its warning is given once.
    const warned = new Set<string>();
    for (const hook of CALL_HOOKS) {
      await hook(ctx, command).catch((error: unknown) => {
        const warning = `${command.name}: ${(error as Error).message}`;
        if (!warned.has(warning)) logWarn(warning);
        warned.add(warning);
      });
    }
    return whileCalling(ctx, async (signal) => {
      // The person may take minutes to answer: the caller's leases are kept meanwhile, as they
      // are while its call runs, so its claims do not lapse while someone decides.
      if (command.effect === "destructive" && ctx.askPerson)
        await agreedByPerson(ctx.askPerson, {
          signal,
          store: ctx.store,
          actor: ctx.actor,
          name: command.name,
          what: `${command.summary}: ${command.personSees ? await command.personSees(input, ctx) : inputShown(input)}`,
        });
      if (command.judgment)
        await judgedByPerson(ctx, {
          signal,
          name: command.name,
          what: () =>
            command.personSees ? command.personSees(input, ctx) : Promise.resolve(inputShown(input)),
        });
      return command.handler(input, { ...ctx, signal });
    });
  });
}

/** Run a call, then every after-call hook with its outcome (a refusal or failure included). */
async function afterCall(
  ctx: CommandContext,
  command: WorkspaceCommand,
  input: Record<string, unknown>,
  call: () => Promise<unknown>,
): Promise<unknown> {
  // Settled by the call's own line; left when that line could not be appended (a full disk), for
  // the next append once this process has ended.
  const pending = beginCall(ctx, command, input);
  let outcome: Outcome<unknown>;
  try {
    outcome = { kind: "ok", value: await call() };
  } catch (thrown) {
    outcome = outcomeFromThrown(thrown);
    await runAfterHooks(ctx, command, input, outcome, pending);
    throw thrown;
  }
  await runAfterHooks(ctx, command, input, outcome, pending);
  return outcome.value;
}

async function runAfterHooks(
  ctx: CommandContext,
  command: WorkspaceCommand,
  input: Record<string, unknown>,
  outcome: Outcome<unknown>,
  pending: string | undefined,
): Promise<void> {
  for (const hook of AFTER_CALL_HOOKS) {
    await hook(ctx, command, input, outcome, pending).catch((error: unknown) =>
      logWarn(`${command.name}: ${(error as Error).message}`),
    );
  }
}
