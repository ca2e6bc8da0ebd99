import {
  ProtocolError,
  ProtocolErrorCode,
  ResourceNotFoundError,
  type Variables,
} from "@modelcontextprotocol/server";
import { BACKGROUND, type CallControls, type Session } from "../../commands/context.js";
import { dispatch } from "../../commands/dispatch.js";
import { COMMANDS_BY_NAME } from "../../commands/registry.js";
import type { ResourceSpec, RunCommand } from "../../commands/resources.js";
import { CairnError } from "../../kernel/outcome.js";

/**
 * Resources and prompts run commands as the caller, through the same dispatch as tools. A
 * failure becomes a protocol error carrying cairn's message (resource reads have no `isError`).
 *
 * They run as a look, not as the caller's call (see CallControls.background): resources, prompts
 * and completions are asked for by the client's host and the person at it, and a host lists and
 * reads resources again on its own whenever it is told others changed them. Counted as calls,
 * they kept a silent agent's claims from every sweep for as long as anyone else worked.
 */
export function runner(session: Session, uri?: string, controls: CallControls = BACKGROUND): RunCommand {
  return async (name, input) => {
    const command = COMMANDS_BY_NAME.get(name);
    if (!command) throw new Error(`internal: no command ${name}`);
    const outcome = await dispatch(command, input, session, controls);
    if (outcome.kind === "ok") return outcome.value as Record<string, unknown>;
    if (outcome.kind === "refused") return { refused: outcome.refusal };
    const { errorKind, message, hint } = outcome.error;
    const text = `${message}${hint ? ` (next: ${hint})` : ""}`;
    if (errorKind === "not_found" && uri) throw new ResourceNotFoundError(uri, text);
    // A prompt argument naming nothing (`brief` for a task that does not exist) is the caller's
    // mistake, as a malformed one is: invalid params, not a fault of the server.
    const callers = errorKind === "usage" || errorKind === "not_found";
    throw new ProtocolError(
      callers ? ProtocolErrorCode.InvalidParams : ProtocolErrorCode.InternalError,
      text,
    );
  };
}

/**
 * What the caller reads at a resource, as `resources/read` and the change feed both read it. A
 * usage error (a malformed URI) is the caller's mistake: invalid params, not an internal error.
 */
export async function readResourceAs(
  spec: ResourceSpec,
  variables: Variables,
  run: RunCommand,
): Promise<string> {
  try {
    return await spec.read(flatVariables(variables), run);
  } catch (error) {
    if (error instanceof CairnError && error.errorKind === "usage") {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, error.message);
    }
    throw error;
  }
}

/** A URI template's variables as resource specs take them: a list variable joined by commas. */
function flatVariables(variables: Variables): Record<string, string> {
  return Object.fromEntries(
    Object.entries(variables).map(([key, value]) => [key, Array.isArray(value) ? value.join(",") : value]),
  );
}
