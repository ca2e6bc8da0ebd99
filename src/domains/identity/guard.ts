import { refuse } from "../../kernel/outcome.js";
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
  if (call.effect === "read") return;
  if (actor.grant === "ro" && !call.allowReadOnly) {
    throw refuse(
      "grant",
      `${actor.name} has a read-only grant; \`${call.name}\` changes the workspace`,
      "read, ask a question on the task, or record a finding; an agent with a write grant or the owner can do this",
    );
  }
  if (call.effect === "destructive" && !call.confirmed) {
    throw refuse(
      "confirm",
      `\`${call.name}\` is destructive`,
      "repeat with confirm set (--confirm) once a human has agreed",
    );
  }
}

/** What the person at the client said to a question put to them. */
export type PersonAnswer = "yes" | "no" | "unanswered";

/**
 * A face that can put a question to the person at the client (an MCP client that declared
 * elicitation) lends this to a call. The answer comes from the person, never from the caller.
 */
export type AskPerson = (question: string) => Promise<PersonAnswer>;

/**
 * A destructive call needs the caller's `confirm` (checked by `guard`), which a model can always
 * set: it says the caller means it, not that anyone agreed. Where the face can ask the person at
 * the client, their yes is needed as well, so a model cannot agree with itself. Call this after
 * `guard`: a call the guard refuses never troubles the person.
 */
export async function agreedByPerson(
  askPerson: AskPerson,
  call: { actor: Actor; name: string; what: string; store: Store },
): Promise<void> {
  const caller = call.actor.isOwner ? "The owner's session" : `Agent ${call.actor.name} (${call.actor.id})`;
  const answer = await askPerson(
    `${caller} asks to run \`${call.name}\`, which is destructive: ${call.what}. Allow it?`,
  );
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
      : `\`${call.name}\` is destructive and the person at the client gave no answer`,
    "do not retry it: leave it undone, or tell the person why it is needed and let them run it",
  );
}
