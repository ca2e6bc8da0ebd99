import { Command as Commander, CommanderError, InvalidArgumentError, Option } from "commander";
import { type CliTable, cliTableFor } from "../../commands/cli-table.js";
import type { CallControls, Session } from "../../commands/context.js";
import type { AnyCommand } from "../../commands/define.js";
import { dispatch } from "../../commands/dispatch.js";
import { type CairnError, EXIT_CODES, exitCodeOf, usageError } from "../../kernel/outcome.js";
import { cutText, quoteValue } from "../../kernel/text.js";
import { CAIRN_VERSION } from "../../kernel/version.js";
import { stderrIsTerminal } from "./fd-output.js";
import { fieldShape, flagOf } from "./options.js";
import { errorJson, escapeControls, type Output, renderOutcome } from "./render.js";

/** 128 + SIGINT, what a shell reports for an interrupted command. */
export const EXIT_CANCELLED = 130;

/** How long a second Ctrl-C waits for what the call supervised to record its end (as a stop signal does). */
const STOP_GRACE_MS = 5_000;

/**
 * A repeated flag gathers its values in one array, grown in place: copying what was gathered at
 * every repeat made a flag given 100,000 times (through the `cli` tool, say) block for minutes.
 */
function gather<T>(value: T, previous: T[] | undefined): T[] {
  if (previous === undefined) return [value];
  previous.push(value);
  return previous;
}

const collect = (value: string, previous: string[] | undefined) => gather(value, previous);

/**
 * A flag that takes one value, given twice (`--priority must --priority could`), is a usage error
 * rather than the last one silently winning: an argv put together from parts (a script, the
 * `cli` tool) then says which it meant. `parse` is what the option parsed with before (choices, a
 * number), still applied to the one value.
 */
const once =
  (flag: string, parse: ((value: string, previous: unknown) => unknown) | undefined) =>
  (value: string, previous: unknown): unknown => {
    if (previous !== undefined)
      throw new InvalidArgumentError(`${flag} was given more than once; give it once`);
    return parse ? parse(value, undefined) : value;
  };

/** Structured fields (objects, maps) are given as JSON text; a value that is not JSON stays text for the schema to name. */
function fromJson(value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

const collectJson = (value: string, previous: unknown[] | undefined) => gather(fromJson(value), previous);

/**
 * What a terminal lends a call: Ctrl-C cancels it (long work kills its children), and progress
 * is drawn on stderr when stderr is a terminal. Removed again when the call returns.
 */
function terminalControls(): { controls: CallControls; release: () => void } {
  const abort = new AbortController();
  const onInterrupt = () => {
    if (!abort.signal.aborted) {
      abort.abort();
      return;
    }
    // A second Ctrl-C while the call is still stopping: stop now. What the call started runs in
    // process groups of its own, which the terminal's signal never reaches, so it goes first.
    void import("../../kernel/child.js")
      .then(({ stopEverything }) => stopEverything(STOP_GRACE_MS))
      .finally(() => process.exit(EXIT_CANCELLED));
  };
  process.on("SIGINT", onInterrupt);
  const controls: CallControls = { signal: abort.signal };
  let drawn = false;
  if (stderrIsTerminal()) {
    controls.progress = ({ progress, total, message }) => {
      const width = 24;
      const filled = total ? Math.round((progress / total) * width) : 0;
      const bar = total
        ? `[${"#".repeat(filled)}${".".repeat(width - filled)}] ${progress}/${total}`
        : `${progress}`;
      // The message may quote a command's output: its control characters are shown, not obeyed.
      process.stderr.write(`\r\x1b[2K${bar} ${escapeControls(message ?? "")}`);
      drawn = true;
    };
  }
  return {
    controls,
    release: () => {
      process.removeListener("SIGINT", onInterrupt);
      if (drawn) process.stderr.write("\r\x1b[2K");
    },
  };
}

/**
 * Every flag says what it takes: the schema's description, else its name in words; a list says
 * the flag repeats, and a required flag says so.
 */
function describeFlag(name: string, field: ReturnType<typeof fieldShape>, help: string | undefined): string {
  const base = field.description ?? help ?? name.replaceAll("_", " ");
  const repeat = field.kind === "array" ? " (repeat the flag for each)" : "";
  return `${base}${repeat}${field.required ? " (required)" : ""}`;
}

/** A number as JSON writes it: what a tool call carries for the same field. */
const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

function toNumber(value: string): number | string {
  // Number() also reads 0x10, 0o7, 0b1, "+5" and padded text: a typo or a paste read as some
  // other number. Only JSON's notation is a number, so both faces take the same values.
  const number = JSON_NUMBER.test(value) ? Number(value) : Number.NaN;
  // Leave a non-number as text: the command's schema then names the field in its error.
  return Number.isFinite(number) ? number : value;
}

/** Attach one table command under its `group verb` path, with args and flags read from its schema. */
function attach(
  root: Commander,
  command: AnyCommand,
  groups: CliTable["groups"],
  session: Session,
  out: Output,
  exit: (code: number) => void,
  lent: CallControls | undefined,
) {
  const words = command.name.split(" ");
  let parent = root;
  for (const word of words.slice(0, -1)) {
    parent =
      parent.commands.find((c) => c.name() === word) ??
      parent
        .command(word)
        .description(groups[word] ?? `${word} commands`)
        .showHelpAfterError();
  }
  const leaf = parent.command(words.at(-1) as string).description(command.summary);
  const shape = command.input.shape as Record<string, import("zod").ZodType>;
  const positional = new Set<string>(command.positional ?? []);
  const rest = command.restOfLine ? command.positional?.at(-1) : undefined;
  for (const name of command.positional ?? []) {
    const field = fieldShape(shape[name] as import("zod").ZodType);
    const variadic = field.kind === "array" || name === rest ? "..." : "";
    leaf.argument(field.required ? `<${name}${variadic}>` : `[${name}${variadic}]`, field.description ?? "");
  }
  for (const [name, schema] of Object.entries(shape)) {
    if (positional.has(name)) continue;
    const field = fieldShape(schema);
    const flag = flagOf(name);
    const help = (command.flagHelp as Record<string, string> | undefined)?.[name];
    const option =
      field.kind === "boolean"
        ? new Option(flag, describeFlag(name, field, help))
        : new Option(`${flag} <${field.kind === "array" ? "value" : name}>`, describeFlag(name, field, help));
    if (field.choices) option.choices(field.choices);
    if (field.kind === "number") option.argParser(toNumber);
    if (field.kind === "array") {
      if (field.element === "other") option.argParser(collectJson);
      else option.argParser(collect);
    }
    if (field.kind === "other") option.argParser(fromJson);
    if (field.kind !== "array" && field.kind !== "boolean") option.argParser(once(flag, option.parseArg));
    if (field.required) option.makeOptionMandatory();
    leaf.addOption(option);
  }
  leaf.option("--json", "print the result as JSON");
  leaf.action(async (...args: unknown[]) => {
    const options = leaf.opts() as Record<string, unknown>;
    const input: Record<string, unknown> = {};
    (command.positional ?? []).forEach((name, index) => {
      const value =
        name === rest && Array.isArray(args[index]) ? asTyped(args[index] as string[]) : args[index];
      if (value !== undefined) input[name] = value;
    });
    for (const name of Object.keys(shape)) {
      if (positional.has(name)) continue;
      const key = flagOf(name)
        .slice(2)
        .replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());
      if (options[key] !== undefined) input[name] = options[key];
    }
    // Embedded in another face (the MCP `cli` tool), that face's cancel, progress and audience
    // hold, not this process's terminal.
    const terminal = lent ? { controls: lent, release: () => {} } : terminalControls();
    const outcome = await dispatch(command, input, session, terminal.controls).finally(terminal.release);
    // Hints name MCP tools; rewording them needs the whole tool table, so only a hint loads it.
    const shown =
      outcome.kind === "ok" ? outcome : (await import("../../commands/hints.js")).inFace("cli", outcome);
    renderOutcome(shown, options.json === true, out, command.render);
    if (terminal.controls.signal?.aborted) {
      // The first Ctrl-C stopped the work (and killed what it ran): say so, exit as shells expect.
      out.stderr(`cairn: cancelled: ${command.name} was interrupted; what it started was stopped\n`);
      exit(EXIT_CANCELLED);
      return;
    }
    exit(outcome.kind === "ok" && command.exitCode ? command.exitCode(outcome.value) : exitCodeOf(outcome));
  });
}

/**
 * Words the shell split, as one line that splits back into them (a `restOfLine` positional): a
 * word with a space, a quote or a backslash in it is put in double quotes, `"` and `\` escaped.
 * One word is the line as typed, as it always was (`cairn command get fix "123 high"`); none at
 * all is no value, so the field keeps its default.
 */
export function asTyped(words: readonly string[]): string | undefined {
  if (words.length <= 1) return words[0];
  return words
    .map((word) => (word === "" || /[\s"'\\]/.test(word) ? `"${word.replace(/["\\]/g, "\\$&")}"` : word))
    .join(" ");
}

/**
 * The commands main.ts parses itself, listed below the table's: commander's "after" text, which
 * `helpInformation()` leaves out, so a bare `cairn` adds it as `--help` does.
 */
const OWN_PARSERS_HELP =
  "\n  cairn mcp [--profile worker|planner|operator|all]   serve MCP over stdio\n  cairn ui [--port N] [--open]                        a read-only dashboard on 127.0.0.1\n  cairn daemon [--once] [--dry-run] [--json]          run scheduled local agents";

/**
 * The parser over `table`: the whole command table, or the part one invocation can reach.
 * `lent` is what an embedding face lends each call in place of the terminal's controls.
 */
export function buildProgram(
  table: CliTable,
  session: Session,
  out: Output,
  exit: (code: number) => void,
  lent?: CallControls,
  argv: readonly string[] = [],
): Commander {
  const root = new Commander("cairn")
    .description("A local-first control plane for AI coding agents")
    .version(CAIRN_VERSION)
    .showHelpAfterError()
    .addHelpText("after", OWN_PARSERS_HELP);
  for (const command of table.commands) attach(root, command, table.groups, session, out, exit, lent);
  const configure = (c: Commander) => {
    c.exitOverride();
    // The parser's complaints quote what was typed, which may be pasted text: shown escaped too.
    c.configureOutput({
      writeOut: out.stdout,
      writeErr: (text) => out.stderr(escapeControls(clipArgvWords(text, argv))),
    });
    for (const sub of c.commands) configure(sub);
  };
  configure(root);
  return root;
}

/**
 * Run one CLI invocation without touching the process: the `cli` MCP tool runs it in-process
 * and returns what `--json` printed.
 */
export async function runCli(
  argv: readonly string[],
  session: Session,
  out: Output,
  lent?: CallControls,
): Promise<number> {
  let code: number = EXIT_CODES.ok;
  const program = buildProgram(
    await cliTableFor(argv),
    session,
    out,
    (exitCode) => {
      code = exitCode;
    },
    lent,
    argv,
  );
  if (argv.length === 0) {
    // No command is a usage error: the help goes to stderr, stdout stays empty for pipes.
    out.stderr(`${program.helpInformation()}${OWN_PARSERS_HELP}\n`);
    return EXIT_CODES.usage;
  }
  try {
    await program.parseAsync([...argv], { from: "user" });
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    // Help asked for (`--help`, `help queue`) and the version are successes. Help the parser shows
    // because nothing it can run was named (a group without its command, `help` of an unknown
    // word: its exit code is 1) is a usage error, as every other parser complaint is.
    const benign =
      error.code === "commander.helpDisplayed" ||
      error.code === "commander.version" ||
      (error.code === "commander.help" && error.exitCode === 0);
    if (benign) return EXIT_CODES.ok;
    // The parser has told a person on stderr; a script that asked for JSON reads stdout, so it
    // gets the same error object a command's own usage error prints.
    if (asksForJson(argv)) out.stdout(errorJson(parserError(error, program, argv)));
    return EXIT_CODES.usage;
  }
  return code;
}

/** `--json` among the options: after a `--` it is a positional value. */
function asksForJson(argv: readonly string[]): boolean {
  const end = argv.indexOf("--");
  return (end === -1 ? argv : argv.slice(0, end)).includes("--json");
}

/** The parser's complaint as a usage error, pointing at the help of the command it was parsing. */
function parserError(error: CommanderError, program: Commander, argv: readonly string[]): CairnError {
  const path: string[] = [];
  let current = program;
  for (const word of argv) {
    const sub = current.commands.find((command) => command.name() === word);
    if (!sub) break;
    path.push(word);
    current = sub;
  }
  const help = `see \`cairn ${[...path, "--help"].join(" ")}\``;
  // A group given options alone (`cairn note --json`, the cli tool's `["note"]`), or cairn itself
  // (the cli tool's `["--"]`): the complaint would be about the option, where what is missing is
  // the command.
  const rest = argv.slice(path.length);
  const names = current.commands.map((command) => command.name()).filter((name) => name !== "help");
  if (names.length > 0 && rest.every((word) => word.startsWith("-")))
    return usageError(
      path.length > 0
        ? `\`cairn ${path.join(" ")}\` needs a command: ${names.join(", ")}`
        : "name a command: `cairn --help` lists them",
      help,
    );
  // `help WORD` of a word that names no command: the parser's own message is a placeholder.
  if (error.code === "commander.help" && rest[0] === "help") {
    const word = rest.slice(1).find((w) => !w.startsWith("-")) ?? "";
    const where = path.length > 0 ? `\`cairn ${path.join(" ")}\` has` : "cairn has";
    return usageError(`${where} no command ${quoteValue(word)}`, help);
  }
  return usageError(clipArgvWords(error.message.replace(/^error: /, ""), argv), help);
}

/** How much of one argv word the parser's complaint may quote. */
const QUOTED_WORD_CHARS = 60;

/**
 * The parser's complaints quote the word they reject (`unknown option '--…'`, an argument not
 * among the choices): a hostile word, megabytes through the `cli` tool, is cut as every value
 * cairn echoes is, rather than turning one usage error into megabytes on stdout and stderr.
 */
function clipArgvWords(text: string, argv: readonly string[]): string {
  let clipped = text;
  for (const word of new Set(argv)) {
    if (word.length <= QUOTED_WORD_CHARS || !clipped.includes(word)) continue;
    clipped = clipped.replaceAll(word, `${cutText(word, QUOTED_WORD_CHARS)}… (${word.length} characters)`);
  }
  return clipped;
}
