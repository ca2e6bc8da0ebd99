/**
 * Every command ends in one of three outcomes. Faces map them to exit codes and MCP
 * results; nothing else decides how a failure looks to a caller.
 */

/** A policy said no. It is an answer, not a failure: `next` says what to do instead. */
export interface Refusal {
  policy: string;
  reason: string;
  next: string;
}

export type ErrorKind = "usage" | "not_found" | "conflict" | "operational";

export type Outcome<T> =
  | { kind: "ok"; value: T }
  | { kind: "refused"; refusal: Refusal }
  | { kind: "error"; error: CairnError };

/** A typed failure. Throw it anywhere below the faces; the dispatcher turns it into an outcome. */
export class CairnError extends Error {
  constructor(
    readonly errorKind: ErrorKind,
    message: string,
    readonly hint?: string,
  ) {
    super(message);
    this.name = "CairnError";
  }
}

/** Thrown by domain rules; caught by the dispatcher and returned as a refusal outcome. */
export class RefusedError extends Error {
  constructor(readonly refusal: Refusal) {
    super(refusal.reason);
    this.name = "RefusedError";
  }
}

export const usageError = (message: string, hint?: string) => new CairnError("usage", message, hint);
export const notFound = (message: string, hint?: string) => new CairnError("not_found", message, hint);
export const conflict = (message: string, hint?: string) => new CairnError("conflict", message, hint);
export const operational = (message: string, hint?: string) => new CairnError("operational", message, hint);
export const refuse = (policy: string, reason: string, next: string) =>
  new RefusedError({ policy, reason, next });

export const EXIT_CODES = {
  ok: 0,
  operational: 1,
  usage: 2,
  refused: 3,
  not_found: 4,
  conflict: 5,
} as const;

export function exitCodeOf(outcome: Outcome<unknown>): number {
  if (outcome.kind === "ok") return EXIT_CODES.ok;
  if (outcome.kind === "refused") return EXIT_CODES.refused;
  return EXIT_CODES[outcome.error.errorKind];
}

/** Normalise anything thrown into an outcome, so no face ever sees a raw exception. */
export function outcomeFromThrown(thrown: unknown): Outcome<never> {
  if (thrown instanceof RefusedError) return { kind: "refused", refusal: thrown.refusal };
  if (thrown instanceof CairnError) return { kind: "error", error: thrown };
  const message = thrown instanceof Error ? thrown.message : String(thrown);
  return { kind: "error", error: operational(message) };
}

/** A typed failure as text: its kind, what happened, and what to do next when that is known. */
export function describeError(error: CairnError): string {
  const head = `${error.errorKind.replace("_", " ")}: ${error.message}`;
  return error.hint ? `${head}\nnext: ${error.hint}` : head;
}
