import { CairnError, type Outcome } from "../kernel/outcome.js";
import { TOOLS } from "./registry.js";

/**
 * Domains write a hint once, naming either the MCP tool (`claim_task T-2`) or the CLI command
 * (`` `cairn task claim T-2` ``). Each face shows it in its own words: a terminal user is told the
 * command to type, an agent the tool to call.
 */
const TOOL_TO_COMMAND = new Map(
  TOOLS.flatMap((tool) => ("command" in tool.wraps ? [[tool.name, tool.wraps.command] as const] : [])),
);
const COMMAND_TO_TOOL = new Map([...TOOL_TO_COMMAND].map(([tool, command]) => [command, tool]));
/**
 * A tool named as a call: with an id (`claim_task T-2`) or alone in parentheses (`(next_task)`).
 * A tool named inside a structured recipe (`open_attempt {run: R-1} → run_evals`) stays as is.
 */
const TOOL_WORD = new RegExp(
  `(?<![\\w\`-])(${[...TOOL_TO_COMMAND.keys()].join("|")})(?=\\)| [A-Z]{1,2}-\\d+)`,
  "g",
);
const CLI_PHRASE = /`cairn ([a-z]+(?: [a-z]+)?)((?: [^`]*)?)`/g;
/**
 * A code span: a command already written out. Its words are never tool names to reword, though
 * several commands share a tool's name (`cairn ask T-3 …`, `cairn recall …`).
 */
const CODE_SPAN = /(`[^`]*`)/;

export type Face = "cli" | "mcp";

export function hintIn(face: Face, text: string): string {
  if (face === "cli") {
    return text
      .split(CODE_SPAN)
      .map((part, index) =>
        // split() puts each captured code span at an odd index: those stay as written.
        index % 2 === 1
          ? part
          : part.replace(TOOL_WORD, (tool: string) => `\`cairn ${TOOL_TO_COMMAND.get(tool)}\``),
      )
      .join("")
      .replace(/`cairn ([^`]+)` ((?:T|Q)-\d+)/g, "`cairn $1 $2`");
  }
  return text.replace(CLI_PHRASE, (whole, words: string, rest: string) => {
    // `cairn task claim T-2` → claim_task T-2; a two-word match may be a command and an argument.
    const [first, second] = words.split(" ");
    const tool = COMMAND_TO_TOOL.get(words) ?? COMMAND_TO_TOOL.get(first as string);
    if (!tool) return whole;
    const args = COMMAND_TO_TOOL.has(words) ? rest : ` ${second ?? ""}${rest}`.trimEnd();
    return `${tool}${args}`;
  });
}

/** The outcome with its `next` hint in the face's own words. */
export function inFace<T>(face: Face, outcome: Outcome<T>): Outcome<T> {
  if (outcome.kind === "refused") {
    return { kind: "refused", refusal: { ...outcome.refusal, next: hintIn(face, outcome.refusal.next) } };
  }
  if (outcome.kind === "error" && outcome.error.hint) {
    const { errorKind, message, hint } = outcome.error;
    return { kind: "error", error: new CairnError(errorKind, message, hintIn(face, hint)) };
  }
  return outcome;
}
