import type { ClientCapabilities, ServerContext } from "@modelcontextprotocol/server";
import { z } from "zod";
import type { AskPerson } from "../../commands/context.js";
import { showInvisible } from "../../kernel/visible-text.js";

/**
 * Whether the client can put a form to its person. Before elicitation had modes, a bare
 * `elicitation: {}` meant forms, and the protocol keeps that meaning; declaring only `url` does not.
 */
export function asksPeople(client: ClientCapabilities | undefined): boolean {
  const elicitation = client?.elicitation;
  return elicitation !== undefined && (elicitation.form !== undefined || elicitation.url === undefined);
}

/** A person may take their time; a cancelled call stops waiting at once. */
const PERSON_WAIT_MS = 10 * 60_000;

const Answer = z.object({ allow: z.literal(true) });

/**
 * The question as an elicitation form of one yes/no field. The request goes out through
 * `mcpReq.send`, which relates it to the call, rather than `elicitInput`, which refuses a bare
 * `elicitation: {}` and validates answers with AJV, which the server does not load (see
 * no-elicitation.ts): the one field is checked here. Only an accepted form whose box is ticked
 * is a yes; a decline is a no; a dismissed form, an error or no answer in time is no answer.
 */
export function askPersonVia(ctx: ServerContext): AskPerson {
  return async (question) => {
    try {
      const result = await ctx.mcpReq.send(
        {
          method: "elicitation/create",
          params: {
            mode: "form",
            message: showInvisible(question),
            requestedSchema: {
              type: "object",
              properties: {
                allow: {
                  type: "boolean",
                  title: "Allow it",
                  description: "Tick to let this destructive call go ahead; leave it to refuse it.",
                  default: false,
                },
              },
              required: ["allow"],
            },
          },
        },
        { signal: ctx.mcpReq.signal, timeout: PERSON_WAIT_MS },
      );
      if (result.action === "decline") return "no";
      if (result.action !== "accept") return "unanswered";
      return Answer.safeParse(result.content).success ? "yes" : "no";
    } catch {
      return "unanswered";
    }
  };
}
