import { refuse } from "../../kernel/outcome.js";
import type { Actor } from "./actor.js";

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
