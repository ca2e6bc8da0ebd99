import { FIELD_LINE_BREAK } from "../../commands/field-text.js";
import { type CairnError, describeError, type Outcome } from "../../kernel/outcome.js";
import { oneLine, showInvisible } from "../../kernel/visible-text.js";

export interface Output {
  stdout(text: string): void;
  stderr(text: string): void;
}

/**
 * Stored text is data written by others: shown on a terminal, an escape sequence in a title must
 * not clear the screen or retitle the window, and a bidi override must not reorder what the
 * reader sees. Each such character is shown visibly instead. JSON output is never touched: it
 * escapes what it must itself and must stay exact.
 */
export function escapeControls(text: string): string {
  return showInvisible(text);
}

/**
 * A command's output as its renderer gets it: in every string (keys too), invisible characters
 * escaped and line breaks replaced by FIELD_LINE_BREAK, so no field can start a line of its own.
 */
function asFields(value: unknown): unknown {
  if (typeof value === "string") return escapeControls(value).replaceAll("\n", FIELD_LINE_BREAK);
  if (Array.isArray(value)) return value.map(asFields);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [asFields(key), asFields(item)]));
  }
  return value;
}

/** A rendered view: a line break a renderer left inside a field is shown as `\n`. */
const showFieldBreaks = (text: string) => text.replaceAll(FIELD_LINE_BREAK, "\\n");

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
    // The human view was built from escaped fields; this pass covers the text renderers wrote.
    stdout: (text) => out.stdout(json ? text : escapeControls(showFieldBreaks(text))),
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
    else {
      const fields = asFields(outcome.value);
      out.stdout(`${human ? human(fields as never) : renderPlain(fields)}\n`);
    }
    return;
  }
  if (outcome.kind === "refused") {
    const { policy, reason, next } = outcome.refusal;
    if (json) out.stdout(`${JSON.stringify({ refused: outcome.refusal }, null, 2)}\n`);
    // Two lines, whatever the reason quotes (a file's name, a commit's subject): a line break in
    // it must not start a `next:` of its own.
    out.stderr(`cairn: refused (${policy}): ${oneLine(reason)}\nnext: ${oneLine(next)}\n`);
    return;
  }
  if (json) out.stdout(errorJson(outcome.error));
  out.stderr(`cairn: ${describeError(outcome.error)}\n`);
}

/** What --json prints for an error, whether the parser or a command found it. */
export function errorJson(error: CairnError): string {
  const { errorKind, message, hint } = error;
  return `${JSON.stringify({ error: { kind: errorKind, message, next: hint ?? null } }, null, 2)}\n`;
}
