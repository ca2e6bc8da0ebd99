import type { McpServer } from "@modelcontextprotocol/server";
import {
  type Completer,
  type Completion,
  MAX_COMPLETIONS,
  PROMPTS,
  RESOURCES,
  type RunCommand,
} from "../../commands/resources.js";
import { SKILL_FILE_COMPLETERS, SKILL_FILE_TEMPLATE } from "../../commands/skills/completers.js";

const NOTHING: Completion = { values: [], total: 0 };

/**
 * `completion/complete` for prompt arguments and resource-template variables, answered from the
 * completers the resource and prompt tables declare (task ids, goal ids), and the Skills
 * extension's template (skill names, then the named skill's files), run as the caller.
 *
 * A reference this server does not know (or an argument without a completer) gets an empty list
 * rather than an error: completion is a typing aid, and "nothing to suggest" is the answer a
 * client can show. The SDK's own handler is not used because it errors on unknown prompts.
 */
export function serveCompletions(server: McpServer, run: () => RunCommand): void {
  server.server.registerCapabilities({ completions: {} });
  server.server.setRequestHandler("completion/complete", async (request) => {
    const { ref, argument, context } = request.params;
    const completer = completerFor(ref, argument.name);
    const { values, total } = completer
      ? await completer(argument.value, run(), context?.arguments)
      : NOTHING;
    const sent = values.slice(0, MAX_COMPLETIONS);
    return { completion: { values: sent, total, hasMore: total > sent.length } };
  });
}

function completerFor(
  ref: { type: string; name?: string; uri?: string },
  argument: string,
): Completer | undefined {
  const completers =
    ref.type === "ref/prompt"
      ? PROMPTS.find((prompt) => prompt.name === ref.name)?.complete
      : ref.type === "ref/resource"
        ? ref.uri === SKILL_FILE_TEMPLATE
          ? SKILL_FILE_COMPLETERS
          : RESOURCES.find((resource) => resource.uri === ref.uri)?.complete
        : undefined;
  // Own entries only: an argument named `constructor` or `__proto__` names no completer.
  return completers && Object.hasOwn(completers, argument) ? completers[argument] : undefined;
}
