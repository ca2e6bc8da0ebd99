import type { McpServer, RegisteredPrompt } from "@modelcontextprotocol/server";
import { z } from "zod";
import { BACKGROUND, type Session } from "../../commands/context.js";
import { dispatch } from "../../commands/dispatch.js";
import { COMMANDS_BY_NAME } from "../../commands/registry.js";
import { refusedPrompt } from "../../commands/resources.js";
import { uniqueNames } from "../../kernel/tool-names.js";
import { showInvisible } from "../../kernel/visible-text.js";
import { runner } from "./run-command.js";

/**
 * A list command's answer for the caller; `refused` when the caller may not list now (retired):
 * that is the caller's state, not the files', so the prompts already listed stay, each showing
 * the refusal when opened. An error lists nothing.
 */
async function listing(session: Session, command: string): Promise<Record<string, unknown> | "refused"> {
  const found = COMMANDS_BY_NAME.get(command);
  if (!found) throw new Error(`internal: no command ${command}`);
  // Refreshed when files change, not at the caller's call: it renews none of its leases.
  const outcome = await dispatch(found, {}, session, BACKGROUND).catch(() => undefined);
  if (outcome?.kind === "refused") return "refused";
  return outcome?.kind === "ok" ? (outcome.value as Record<string, unknown>) : {};
}

/**
 * What `skill list` and `command list` answered (by command; a failed one absent), when the
 * caller already ran them: the Skills extension's watcher does on every settled change.
 */
export type ListedOutputs = Record<string, Record<string, unknown> | undefined>;

interface Listed {
  name: string;
  description: string;
  model_invocable: boolean;
}

/** One kind of people-only item: where its list comes from and how one is rendered. */
interface PeopleSource {
  prefix: string;
  /** The command that lists every item, and the key of its list in the output. */
  list: [command: string, key: string];
  /** The command that renders one item for a person: input `{name, args}`, output `{text}`. */
  render: string;
  /** Shown to a person in a client's prompt menu: a name's control characters appear by their codes. */
  title(name: string): string;
  note: string;
}

const SOURCES: PeopleSource[] = [
  {
    prefix: "cmd-",
    list: ["command list", "commands"],
    render: "command prompt",
    title: (name) => `/${showInvisible(name)}`,
    note: "a command for people to pick; it is not offered to models as a tool",
  },
  {
    prefix: "skill-",
    list: ["skill list", "skills"],
    render: "skill prompt",
    title: (name) => `Skill: ${showInvisible(name)}`,
    note: "a skill for people to pick; models neither list nor load it",
  },
];

const promptName = (prefix: string, name: string) =>
  `${prefix}${name.replace(/[^A-Za-z0-9_-]/g, "-")}`.slice(0, 64);

/**
 * Slash commands and skills marked not for model invocation (`disable-model-invocation: true`)
 * are never tools: a person picks them from the client's prompt menu, so they are MCP prompts
 * `cmd-<name>` and `skill-<name>`, refreshed (with `prompts/list_changed`) whenever `refresh`
 * is called.
 */
export function servePeoplePrompts(
  server: McpServer,
  session: Session,
): { refresh(listed?: ListedOutputs): Promise<void> } {
  const registered = new Map<string, { source: PeopleSource; item: Listed; prompt: RegisteredPrompt }>();
  const refresh = async (given?: ListedOutputs) => {
    const wanted = new Map<string, { source: PeopleSource; item: Listed }>();
    const kept = new Set<PeopleSource>();
    for (const source of SOURCES) {
      const [command, key] = source.list;
      const listed = given?.[command] ?? (await listing(session, command));
      if (listed === "refused") {
        kept.add(source);
        continue;
      }
      const people = ((listed[key] ?? []) as Listed[]).filter((item) => !item.model_invocable);
      // `git:commit` and `git-commit` read alike once sanitised: the later one gets a hash of its
      // own name rather than losing its prompt to the first.
      const named = uniqueNames(
        people,
        (item) => promptName(source.prefix, item.name),
        (item) => item.name,
        64,
      );
      for (const { item, name } of named) wanted.set(name, { source, item });
    }
    for (const [name, held] of registered) {
      if (kept.has(held.source)) continue;
      const now = wanted.get(name);
      // Gone, or another item (or the same one re-described) under this name: registered anew.
      if (!now || now.item.name !== held.item.name || now.item.description !== held.item.description) {
        held.prompt.remove();
        registered.delete(name);
      }
    }
    for (const [name, { source, item }] of wanted) {
      if (registered.has(name)) continue;
      registered.set(name, {
        source,
        item,
        prompt: server.registerPrompt(
          name,
          {
            title: source.title(item.name),
            description: `${item.description} (${source.note})`,
            argsSchema: z.object({
              args: z.string().optional().describe("the arguments as typed after the command"),
            }),
          },
          async (args: unknown) => {
            // As the built-in prompts: a refusal (a retired agent) is shown, a mistake in the
            // request (arguments too long, a command removed since it was listed) is invalid params.
            const out = await runner(session)(source.render, {
              name: item.name,
              args: (args as { args?: string } | undefined)?.args ?? "",
            });
            const text = out.refused ? refusedPrompt(out) : String(out.text);
            return { messages: [{ role: "user" as const, content: { type: "text" as const, text } }] };
          },
        ),
      });
    }
  };
  return { refresh };
}
