import { describeError, type Outcome } from "../../kernel/outcome.js";

export interface Output {
  stdout(text: string): void;
  stderr(text: string): void;
}

/** C0 controls but tab and newline, DEL, and C1 controls: what a terminal would act on. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/**
 * Stored text is data written by others: shown on a terminal, an escape sequence in a title must
 * not clear the screen or retitle the window. Each control character is shown visibly instead
 * (`\x1b`, `\r`). JSON output is never touched: it escapes them itself and must stay exact.
 */
export function escapeControls(text: string): string {
  return text.replace(CONTROL, (char) =>
    char === "\r" ? "\\r" : `\\x${char.charCodeAt(0).toString(16).padStart(2, "0")}`,
  );
}

/** Generic human rendering: nested key: value lines, for commands without their own renderer. */
export function renderPlain(value: unknown, indent = ""): string {
  if (value === null || value === undefined) return `${indent}-`;
  if (typeof value !== "object") return `${indent}${String(value)}`;
  if (Array.isArray(value)) {
    if (value.length === 0) return `${indent}(none)`;
    return value.map((item) => renderPlain(item, indent)).join("\n");
  }
  return Object.entries(value as Record<string, unknown>)
    .map(([key, item]) =>
      item !== null && typeof item === "object"
        ? `${indent}${key}:\n${renderPlain(item, `${indent}  `)}`
        : `${indent}${key}: ${item === null ? "-" : String(item)}`,
    )
    .join("\n");
}

/**
 * stdout carries the result (the JSON object under --json); stderr carries refusals and errors
 * with their `next` hint, so a pipe never mistakes a failure for output.
 */
export function renderOutcome(
  outcome: Outcome<unknown>,
  json: boolean,
  out: Output,
  human?: (value: never) => string,
): void {
  const safe: Output = {
    stdout: (text) => out.stdout(json ? text : escapeControls(text)),
    stderr: (text) => out.stderr(escapeControls(text)),
  };
  renderSafely(outcome, json, safe, human);
}

function renderSafely(
  outcome: Outcome<unknown>,
  json: boolean,
  out: Output,
  human?: (value: never) => string,
): void {
  if (outcome.kind === "ok") {
    if (json) out.stdout(`${JSON.stringify(outcome.value, null, 2)}\n`);
    else out.stdout(`${human ? human(outcome.value as never) : renderPlain(outcome.value)}\n`);
    return;
  }
  if (outcome.kind === "refused") {
    const { policy, reason, next } = outcome.refusal;
    if (json) out.stdout(`${JSON.stringify({ refused: outcome.refusal }, null, 2)}\n`);
    out.stderr(`cairn: refused (${policy}): ${reason}\nnext: ${next}\n`);
    return;
  }
  const { errorKind, message, hint } = outcome.error;
  if (json)
    out.stdout(`${JSON.stringify({ error: { kind: errorKind, message, next: hint ?? null } }, null, 2)}\n`);
  out.stderr(`cairn: ${describeError(outcome.error)}\n`);
}
