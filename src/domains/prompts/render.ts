import { usageError } from "../../kernel/outcome.js";
import { cutText, withoutTrailingNewlines } from "../../kernel/text.js";
import { AT_FILE, SHELL_LINE } from "../skills/view.js";
import type { SlashCommand } from "./discover.js";

/**
 * A command's text with its arguments filled in, the way the tool the file was written for
 * fills them. One left-to-right pass over the original text, so a value that itself contains
 * `$ARGUMENTS` or `$1` is never expanded again.
 *
 * - Claude Code: `${CLAUDE_PROJECT_DIR}` is the project's folder; `$ARGUMENTS` is the raw string; `$N` and `$ARGUMENTS[N]` count from 0 and stay
 *   literal when missing; named `arguments:` fill `$name` (missing → empty); `\$…` escapes; no
 *   placeholder filled (none written, or only missing positionals) → the arguments are appended.
 * - Codex prompts: `$1`..`$9` count from 1 (missing → empty); `$ARGUMENTS` is the words joined by
 *   one space; `$$` stays `$$`; `$UPPER` names need `KEY=value` arguments, every one supplied.
 *   A name right after a `$` (`$$HOME`) is escaped text, neither asked for nor filled; once a
 *   prompt takes names, `$ARGUMENTS` is one of them (filled by `ARGUMENTS=…`, else left as written).
 * - Cursor: nothing is substituted; the arguments are appended as context.
 */

/**
 * The most text one command may render to. A command file is at most 256 KiB and its arguments
 * are bounded, but each placeholder takes the whole argument string: a file of thousands of
 * `$ARGUMENTS` filled with a long one would build hundreds of megabytes in the server.
 */
export const MAX_RENDERED_CHARS = 1024 * 1024;

/**
 * A `replace` callback that counts what the text grows by and stops, with a usage error, once the
 * whole would pass the limit: the pieces are never joined into an oversized string.
 */
function bounded<A extends unknown[]>(
  command: SlashCommand,
  fill: (match: string, ...rest: A) => string,
): (match: string, ...rest: A) => string {
  let size = command.body.length;
  return (match, ...rest) => {
    const value = fill(match, ...rest);
    size += value.length - match.length;
    if (size > MAX_RENDERED_CHARS) {
      throw usageError(
        `${command.name} would render to more than ${MAX_RENDERED_CHARS} characters: each of its placeholders takes the arguments whole`,
        "pass shorter arguments",
      );
    }
    return value;
  };
}

export interface Rendered {
  text: string;
  appended: boolean;
  /** Placeholders left as written (a missing positional in Claude Code's dialect). */
  unresolved: string[];
  /** `!` shell lines and `@file` references are plain text: nothing was run or attached. */
  inert: string[];
}

/** Shell-like words: quotes group, a backslash escapes the next character. */
export function splitWords(raw: string): string[] {
  const words: string[] = [];
  let current = "";
  let quote: string | null = null;
  let inWord = false;
  for (let i = 0; i < raw.length; i++) {
    const char = raw[i] as string;
    if (quote) {
      if (char === quote) quote = null;
      else if (char === "\\" && quote === '"' && i + 1 < raw.length) current += raw[++i];
      else current += char;
    } else if (char === "'" || char === '"') {
      quote = char;
      inWord = true;
    } else if (char === "\\" && i + 1 < raw.length) {
      current += raw[++i];
      inWord = true;
    } else if (/\s/.test(char)) {
      if (inWord) words.push(current);
      current = "";
      inWord = false;
    } else {
      current += char;
      inWord = true;
    }
  }
  if (inWord) words.push(current);
  return words;
}

const PROJECT_DIR = `$\{CLAUDE_PROJECT_DIR}`;

function claude(command: SlashCommand, raw: string, projectDir?: string): Omit<Rendered, "inert"> {
  const words = splitWords(raw);
  const names = [...command.argumentNames].sort((a, b) => b.length - a.length);
  const named = names.length > 0 ? `|\\$(${names.join("|")})(?![\\w[])` : "";
  const project = projectDir === undefined ? "" : "\\$\\{CLAUDE_PROJECT_DIR\\}|";
  const pattern = new RegExp(
    `${project}\\\\\\$(?=ARGUMENTS|\\d|[A-Za-z_])|\\$ARGUMENTS\\[(\\d+)\\]|\\$ARGUMENTS(?![\\w[])|\\$(\\d+)(?!\\w)${named}`,
    "g",
  );
  const unresolved: string[] = [];
  // Placeholders that took a value: one left as written (`$1` with one argument) does not count.
  let filled = 0;
  const text = command.body.replace(
    pattern,
    bounded(command, (match: string, indexed?: string, positional?: string, name?: string) => {
      // `\$1`: the backslash goes, the placeholder stays as written (the pass has moved past it).
      if (match === "\\$") return "$";
      // The project's folder, which cairn knows as Claude Code does; not an argument (nor counted as one).
      if (match === PROJECT_DIR) return projectDir ?? match;
      if (indexed !== undefined || positional !== undefined) {
        const word = words[Number(indexed ?? positional)];
        if (word === undefined) {
          unresolved.push(match);
          return match;
        }
        filled++;
        return word;
      }
      filled++;
      // Without named arguments the regex has no third group, and this slot holds the offset.
      if (typeof name === "string") return words[command.argumentNames.indexOf(name)] ?? "";
      return raw;
    }),
  );
  let out = text;
  // As Claude Code does when the text came out unchanged: a file written for `$1` (counting from
  // 1, as its docs did before 2026) given one argument still gets it, rather than losing it.
  const appended = filled === 0 && raw.trim() !== "";
  if (appended) out = `${withoutTrailingNewlines(out)}\n\nARGUMENTS: ${raw}`;
  return { text: out, appended, unresolved };
}

/** `$NAME`, unless escaped by a `$` just before it (as Codex reads its prompts). */
const CODEX_NAMED = /(?<!\$)\$([A-Z][A-Z0-9_]*)/g;

function codex(command: SlashCommand, raw: string): Omit<Rendered, "inert"> {
  const words = splitWords(raw);
  const names = [...new Set([...command.body.matchAll(CODEX_NAMED)].map((m) => m[1] as string))].filter(
    (name) => name !== "ARGUMENTS",
  );
  if (names.length > 0) {
    const values = new Map<string, string>();
    for (const word of words) {
      const eq = word.indexOf("=");
      if (eq <= 0) {
        throw usageError(
          `${command.name} takes KEY=value arguments (${names.join(", ")}); ${JSON.stringify(word.slice(0, 40))} is not one`,
          `e.g. ${names.map((n) => `${n}=...`).join(" ")}`,
        );
      }
      values.set(word.slice(0, eq), word.slice(eq + 1));
    }
    const missing = names.filter((name) => !values.has(name));
    if (missing.length > 0) throw usageError(`${command.name}: missing required args: ${missing.join(", ")}`);
    const text = command.body.replace(
      CODEX_NAMED,
      bounded(command, (match: string, name: string) => values.get(name) ?? match),
    );
    return { text, appended: false, unresolved: [] };
  }
  const text = command.body.replace(
    /\$\$|\$ARGUMENTS|\$([1-9])/g,
    bounded(command, (match: string, digit?: string) => {
      if (match === "$$") return match;
      if (digit !== undefined) return words[Number(digit) - 1] ?? "";
      return words.join(" ");
    }),
  );
  return { text, appended: false, unresolved: [] };
}

function cursor(command: SlashCommand, raw: string): Omit<Rendered, "inert"> {
  const appended = raw.trim() !== "";
  const text = appended ? `${withoutTrailingNewlines(command.body)}\n\nARGUMENTS: ${raw}` : command.body;
  return { text, appended, unresolved: [] };
}

/**
 * `projectDir` fills Claude Code's `${CLAUDE_PROJECT_DIR}` (in the same pass as the arguments, so
 * one typed as an argument stays as typed); left out, the variable stays as written.
 */
export function renderCommand(command: SlashCommand, raw: string, projectDir?: string): Rendered {
  const filled =
    command.dialect === "codex"
      ? codex(command, raw)
      : command.dialect === "cursor"
        ? cursor(command, raw)
        : claude(command, raw, projectDir);
  // Judged on the text as rendered: a `!` line or `@file` the arguments put there is as inert.
  const inert: string[] = [];
  if (SHELL_LINE.test(filled.text))
    inert.push(
      "`!` shell lines are plain text: cairn ran nothing, so their output is not here; run one yourself only if you judge it safe",
    );
  if (AT_FILE.test(filled.text)) inert.push("`@file` references are plain text: no file was attached");
  return { ...filled, inert };
}

/**
 * The most of a rendered command one answer to a model carries. Claude Code caps a tool result
 * at 25,000 tokens (and warns past 10,000), and the text travels twice (as text and in the
 * structured result): a 100 KB command file (a long workflow prompt) went whole into one answer,
 * past what the client takes. Like a skill's body (32 KB), the rest is read by offset.
 */
export const PAGE_CHARS = 32 * 1024;

/** `text` from `offset`, at most `size` characters, never splitting a surrogate pair. */
export function pageOf(
  text: string,
  offset: number,
  size = PAGE_CHARS,
): { text: string; next_offset: number | null } {
  if (offset > text.length) {
    throw usageError(
      `offset ${offset} is past the end of the command's text (${text.length} characters)`,
      "start again from offset 0, with the same arguments",
    );
  }
  const rest = text.slice(offset);
  // Never an empty page, which would never end: a page of one unit before a pair is that unit.
  const page = cutText(rest, size) || rest.slice(0, size);
  const end = offset + page.length;
  return { text: page, next_offset: end < text.length ? end : null };
}
