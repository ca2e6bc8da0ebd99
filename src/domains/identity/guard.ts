import { type RefusedError, refuse } from "../../kernel/outcome.js";
import { Slots } from "../../kernel/slots.js";
import type { Store } from "../../store/store.js";
import { type Actor, requireStillActive } from "./actor.js";

export type Effect = "read" | "write" | "destructive";

export interface GuardedCall {
  name: string;
  effect: Effect;
  /** Writes a read-only agent may still make: asking, recording findings, proposing. */
  allowReadOnly?: boolean;
  confirmed: boolean;
}

/** The rules every command passes before its handler runs, whichever face called it. */
export function guard(actor: Actor, call: GuardedCall): void {
  const refusal = guardRefusal(actor, call);
  if (refusal) throw refusal();
}

/**
 * The guard's refusal of a call, to be thrown, or null when it passes: for callers that only ask
 * whether a call would pass, many at a time (a brief over every shortcut), without building and
 * throwing an error, stack trace included, for each that would not.
 */
export function guardRefusal(actor: Actor, call: GuardedCall): (() => RefusedError) | null {
  if (call.effect === "read") return null;
  if (actor.grant === "ro" && !call.allowReadOnly) {
    return () =>
      refuse(
        "grant",
        `${actor.name} has a read-only grant; \`${call.name}\` changes the workspace`,
        "read, ask a question on the task, or record a finding; an agent with a write grant or the owner can do this",
      );
  }
  if (call.effect === "destructive" && !call.confirmed) {
    return () =>
      refuse(
        "confirm",
        `\`${call.name}\` is destructive`,
        "repeat with confirm set (--confirm) once a human has agreed",
      );
  }
  return null;
}

/** What the person at the client said to a question put to them. */
export type PersonAnswer = "yes" | "no" | "unanswered";

/**
 * A face that can put a question to the person at the client (an MCP client that declared
 * elicitation) lends this to a call. The answer comes from the person, never from the caller.
 */
export type AskPerson = (question: string) => Promise<PersonAnswer>;

/**
 * One question at a time in a process (one client's session): an agent making many destructive
 * calls at once would otherwise stack their forms in front of the person.
 */
const ASKING = new Slots(1);

/**
 * Questions the person did not say yes to, until when: the same call asked again within that time
 * is refused without troubling them, so no agent wears a person down by asking until they give in.
 */
const NOT_AGREED = new Map<string, number>();
const NOT_AGREED_FOR_MS = 10 * 60_000;
const MAX_NOT_AGREED = 1_000;

function notAgreedLately(question: string, now: number): boolean {
  for (const [asked, until] of NOT_AGREED) if (until <= now) NOT_AGREED.delete(asked);
  return NOT_AGREED.has(question);
}

function rememberNotAgreed(question: string, now: number): void {
  if (NOT_AGREED.size >= MAX_NOT_AGREED) NOT_AGREED.delete(NOT_AGREED.keys().next().value as string);
  NOT_AGREED.set(question, now + NOT_AGREED_FOR_MS);
}

/**
 * A destructive call needs the caller's `confirm` (checked by `guard`), which a model can always
 * set: it says the caller means it, not that anyone agreed. Where the face can ask the person at
 * the client, their yes is needed as well, so a model cannot agree with itself. Call this after
 * `guard`: a call the guard refuses never troubles the person.
 */
export async function agreedByPerson(
  askPerson: AskPerson,
  call: {
    actor: Actor;
    name: string;
    what: string;
    store: Store;
    signal: AbortSignal;
    /** What needs the person: a destructive call, or the owner's judgment (judgedByPerson). */
    needs?: "destructive" | "judgment";
  },
): Promise<void> {
  const caller = call.actor.isOwner ? "The owner's session" : `Agent ${call.actor.name} (${call.actor.id})`;
  const judgment = call.needs === "judgment";
  const question = judgment
    ? `${caller} asks to run \`${call.name}\`, which records your judgment as the owner: ${call.what}. Is it your judgment?`
    : `${caller} asks to run \`${call.name}\`, which is destructive: ${call.what}. Allow it?`;
  const answer = await ASKING.run(call.signal, async () => {
    if (call.signal.aborted) return "unanswered" as const;
    if (notAgreedLately(question, Date.now())) return "asked lately" as const;
    const given = await askPerson(question);
    // A call its client cancelled meanwhile got no one's answer: nothing to remember.
    if (given !== "yes" && !call.signal.aborted) rememberNotAgreed(question, Date.now());
    return given;
  });
  if (answer === "yes") {
    // The answer may come minutes after the call's own look: a caller retired meanwhile (it, or
    // its line), perhaps for this very call, is refused as the call would be had it started now.
    // A yes given to an agent since retired is no yes to run it.
    await requireStillActive(call.store, call.actor);
    return;
  }
  throw refuse(
    "confirm",
    answer === "no"
      ? `the person at the client did not allow \`${call.name}\``
      : answer === "unanswered"
        ? `\`${call.name}\` is ${judgment ? "the owner's judgment" : "destructive"} and the person at the client gave no answer`
        : `the person at the client did not allow this same \`${call.name}\` a few minutes ago; they are not asked again`,
    "do not retry it: leave it undone, or tell the person why it is needed and let them run it",
  );
}

/**
 * The owner's judgment (settling a review, scoring a manual proof, approving an evaluator) is
 * the person's, not a model's: with no agent token, a model's session is the owner's, and the model building an
 * attempt scored its own manual proof as the owner's judgment, or accepted its own attempt in
 * review, and it was kept with no person's word. A call from a model in the owner's session
 * needs the person's yes where the client can ask them, and is refused where it cannot. A person
 * at the terminal judges as the owner; an agent's score is its self-report, which reaches review
 * at best, and settling a review is refused to it (requireOwner).
 */
export async function judgedByPerson(
  ctx: { actor: Actor; audience: "model" | "person"; askPerson?: AskPerson; store: Store },
  /** `what` says what the person is asked to own; it refuses a call that would be refused anyway. */
  call: { name: string; what: () => Promise<string>; signal: AbortSignal },
): Promise<void> {
  if (!ctx.actor.isOwner || ctx.audience !== "model") return;
  if (!ctx.askPerson)
    throw refuse(
      "person",
      `\`${call.name}\` records the owner's judgment, and this call comes from a model in the owner's session, through a client that cannot ask the person`,
      // Not a code span: the MCP face words a `cairn …` span as its tool, which is this very call.
      `tell the person what you found and leave the judgment to them: they give it at a terminal (cairn ${call.name})`,
    );
  const what = await call.what();
  await agreedByPerson(ctx.askPerson, {
    name: call.name,
    what,
    signal: call.signal,
    actor: ctx.actor,
    store: ctx.store,
    needs: "judgment",
  });
}
