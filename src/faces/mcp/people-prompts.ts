import type { McpServer, RegisteredPrompt } from "@modelcontextprotocol/server";
import { z } from "zod";
import type { Session } from "../../commands/context.js";
import { dispatch } from "../../commands/dispatch.js";
import { COMMANDS_BY_NAME } from "../../commands/registry.js";

async function run(session: Session, command: string, input: Record<string, unknown>) {
  const found = COMMANDS_BY_NAME.get(command);
  if (!found) throw new Error(`internal: no command ${command}`);
  const outcome = await dispatch(found, input, session);
  if (outcome.kind !== "ok")
    throw new Error(outcome.kind === "refused" ? outcome.refusal.reason : outcome.error.message);
  return outcome.value as Record<string, unknown>;
}

/**
 * Slash commands marked not for model invocation (`disable-model-invocation: true`) are never
 * tools: a person picks them from the client's prompt menu, so they are MCP prompts
 * `cmd-<name>`, refreshed (with `prompts/list_changed`) whenever `refresh` is called.
 */
export function servePeoplePrompts(server: McpServer, session: Session): { refresh(): Promise<void> } {
  const registered = new Map<string, RegisteredPrompt>();
  const refresh = async () => {
    const listed = await run(session, "command list", {}).catch(() => ({ commands: [] }));
    const wanted = (
      listed.commands as { name: string; description: string; model_invocable: boolean }[]
    ).filter((c) => !c.model_invocable);
    const names = new Set(wanted.map((c) => `cmd-${c.name.replace(/[^A-Za-z0-9_-]/g, "-")}`.slice(0, 64)));
    for (const [name, prompt] of registered) {
      if (!names.has(name)) {
        prompt.remove();
        registered.delete(name);
      }
    }
    for (const command of wanted) {
      const name = `cmd-${command.name.replace(/[^A-Za-z0-9_-]/g, "-")}`.slice(0, 64);
      if (registered.has(name)) continue;
      registered.set(
        name,
        server.registerPrompt(
          name,
          {
            title: `/${command.name}`,
            description: `${command.description} (a command for people to pick; it is not offered to models as a tool)`,
            argsSchema: z.object({
              args: z.string().optional().describe("the arguments as typed after the command"),
            }),
          },
          async (args: unknown) => {
            const out = await run(session, "command prompt", {
              name: command.name,
              args: (args as { args?: string } | undefined)?.args ?? "",
            });
            return {
              messages: [
                { role: "user" as const, content: { type: "text" as const, text: String(out.text) } },
              ],
            };
          },
        ),
      );
    }
  };
  return { refresh };
}
