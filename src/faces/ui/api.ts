import type { z } from "zod";
import type { Session } from "../../commands/context.js";
import { dispatch } from "../../commands/dispatch.js";
import { COMMANDS_BY_NAME } from "../../commands/registry.js";
import { UI_VIEWS } from "../../commands/ui/index.js";
import type { Outcome } from "../../kernel/outcome.js";
import { quoteValue } from "../../kernel/text.js";
import { fieldShape } from "../cli/options.js";

/**
 * `GET /api/<command words>?field=value` runs one read command of the table, exactly as
 * `cairn <command> --json` would, and answers its JSON. Only the commands in UI_VIEWS are
 * served; the query is turned into the command's input by its own schema.
 */

export interface ApiAnswer {
  status: number;
  body: unknown;
}

const STATUS_OF_ERROR = { usage: 400, not_found: 404, conflict: 409, operational: 500 } as const;

export function answerOf(outcome: Outcome<unknown>): ApiAnswer {
  if (outcome.kind === "ok") return { status: 200, body: outcome.value };
  if (outcome.kind === "refused") return { status: 200, body: { refused: outcome.refusal } };
  const { errorKind, message, hint } = outcome.error;
  return {
    status: STATUS_OF_ERROR[errorKind],
    body: { error: { kind: errorKind, message, hint: hint ?? null } },
  };
}

function inputOf(shape: Record<string, z.ZodType>, query: URLSearchParams): Record<string, unknown> | string {
  const input: Record<string, unknown> = {};
  for (const key of new Set(query.keys())) {
    // Own fields only: `constructor` or `__proto__` would otherwise find Object's own members.
    const schema = Object.hasOwn(shape, key) ? shape[key] : undefined;
    if (!schema) return `unknown parameter ${quoteValue(key)}`;
    const field = fieldShape(schema);
    const values = query.getAll(key);
    if (field.kind === "array") input[key] = values;
    else if (field.kind === "number") input[key] = Number(values[0]);
    else if (field.kind === "boolean") input[key] = values[0] === "true" || values[0] === "1";
    else input[key] = values[0];
  }
  return input;
}

export async function callView(session: Session, name: string, query: URLSearchParams): Promise<ApiAnswer> {
  const command = UI_VIEWS.includes(name) ? COMMANDS_BY_NAME.get(name) : undefined;
  if (command?.effect !== "read") {
    return { status: 404, body: { error: { kind: "not_found", message: `no view ${name}`, hint: null } } };
  }
  const input = inputOf(command.input.shape as Record<string, z.ZodType>, query);
  if (typeof input === "string") {
    return { status: 400, body: { error: { kind: "usage", message: `${name}: ${input}`, hint: null } } };
  }
  return answerOf(await dispatch(command, input, session));
}
