import { LINE_TERMINATOR } from "../../kernel/text.js";

/**
 * Does a sed script run a shell: the `e` command (wherever a command may start, after its
 * address) or a substitution with the `e` flag (`s/x/y/e`, any delimiter, other flags before it)?
 *
 * The substitution half was the pattern /s(.).*\1.*\1[gpiIwmM0-9]*e/, which backtracks through
 * every pair of delimiters from every `s`: a script of 2,000 `s` took 10 s and one of 8 KB (what
 * run_os accepts) about ten minutes, with the server's event loop blocked throughout. The same
 * question is answered here in one pass per line, plus a binary search per `s`.
 */
export function sedScriptRunsShell(script: string): boolean {
  return commandAtStart(script, "e") || substitutionRunsShell(script);
}

/**
 * The scripts of a sed command line: each `-e` / `--expression` value (`-e S`, `-eS`, `-neS`,
 * `--expression=S`, `--ex S`), and the first operand unless an `-e` or `-f` comes before it (GNU
 * sed reads it as the script when there is none, or where POSIXLY_CORRECT stops its options at
 * the first operand). The other operands are files: a file named `errors.log` or `words.txt` is
 * no `e` or `w` command.
 */
export function sedScripts(args: readonly string[]): string[] {
  const scripts: string[] = [];
  let given = false;
  let operand: string | undefined;
  for (let at = 0; at < args.length; at++) {
    const arg = args[at] as string;
    if (arg === "--") {
      if (!given && operand === undefined) operand = args[at + 1];
      break;
    }
    if (arg.startsWith("--")) {
      const equals = arg.indexOf("=");
      const name = equals < 0 ? arg : arg.slice(0, equals);
      const prefixOf = (option: string) => name.length > 2 && option.startsWith(name);
      if (prefixOf("--expression") || prefixOf("--file") || prefixOf("--line-length")) {
        const value = equals < 0 ? args[++at] : arg.slice(equals + 1);
        if (!prefixOf("--line-length")) given = true;
        if (prefixOf("--expression") && value !== undefined) scripts.push(value);
      }
      continue;
    }
    if (arg.startsWith("-") && arg.length > 1) {
      // A cluster of flags; -e, -f and -l take the rest or the next argument, -i a suffix joined to it.
      for (let letter = 1; letter < arg.length; letter++) {
        const flag = arg[letter] as string;
        if (flag === "i") break;
        if (flag === "e" || flag === "f" || flag === "l") {
          const value = letter + 1 < arg.length ? arg.slice(letter + 1) : args[++at];
          if (flag !== "l") given = true;
          if (flag === "e" && value !== undefined) scripts.push(value);
          break;
        }
      }
      continue;
    }
    if (!given && operand === undefined) operand = arg;
  }
  return operand === undefined ? scripts : [...scripts, operand];
}

/** A substitution with the `e` flag, on any line (`.` stops at its end): exported for the test that holds it to the pattern. */
export const substitutionRunsShell = (script: string) =>
  script.split(LINE_TERMINATOR).some((line) => substitutesWith(line, "e", FLAGS_BEFORE_EXEC));

/**
 * Does a sed script write a file: the `w` or `W` command (after any address, as for `e`) or a
 * substitution with the `w` flag (`s/x/y/w FILE`)? The file's name runs to the end of its line;
 * `/dev/stdout` and `/dev/stderr`, GNU sed's names for its own output, write no file.
 */
export function sedScriptWritesFile(script: string): boolean {
  const kept = script
    .split("\n")
    .map((line) => line.replace(TO_OWN_OUTPUT, ""))
    .join("\n");
  return commandAtStart(kept, "wW") || substitutionWritesFile(kept);
}

/** A substitution with the `w` flag, on any line: exported for the test that holds it to the pattern. */
export const substitutionWritesFile = (script: string) =>
  script.split(LINE_TERMINATOR).some((line) => substitutesWith(line, "w", FLAGS_BEFORE_WRITE));

const TO_OWN_OUTPUT = /[wW][ \t]*\/dev\/std(out|err)$/;

/** Where a command may start: after these (and blanks), or at the start of the script. */
const COMMAND_START = new Set([";", "\n", "{", "}"]);
const BLANK = new Set([" ", "\t", "\r", "\f", "\v"]);
/** What an address is made of, besides the regex in it: `1`, `$`, `0~2`, `3,+4`, `1!`, `/x/I`. */
const ADDRESS = new Set("0123456789$~,+! \t");

/**
 * One of the `commands` at any command start, its address skipped: `e id`, `1e id`, `$!e id`,
 * `/x/,/y/e id`, `\%x%Ie id`. An `e` elsewhere (in a regex or replacement) is not a command.
 */
function commandAtStart(script: string, commands: string): boolean {
  for (let at = 0; at < script.length; at++) {
    if (at > 0 && !COMMAND_START.has(script[at - 1] as string)) continue;
    let next = at;
    while (next < script.length) {
      const char = script[next] as string;
      if (ADDRESS.has(char) || BLANK.has(char)) next++;
      else if (char === "/" || char === "\\") next = afterRegexAddress(script, next);
      else break;
    }
    if (next < script.length && commands.includes(script[next] as string)) return true;
  }
  return false;
}

/** Past a regex address opening at `at` (`/re/` or `\cREc`) and its `I` / `M` modifiers. */
function afterRegexAddress(script: string, at: number): number {
  const delimiter = script[at] === "\\" ? script[at + 1] : "/";
  let next = script[at] === "\\" ? at + 2 : at + 1;
  while (next < script.length && script[next] !== delimiter) next += script[next] === "\\" ? 2 : 1;
  next++;
  while (script[next] === "I" || script[next] === "M") next++;
  return next;
}

/** The other flags a substitution's `e` may follow, and those its `w` may follow. */
const FLAGS_BEFORE_EXEC = new Set("gpiIwmM0123456789");
const FLAGS_BEFORE_WRITE = new Set("gpiIemM0123456789");

/** Is there an `s`, a delimiter d after it, then two more d, the last followed by `flags` and `flag`? */
function substitutesWith(line: string, flag: string, flags: ReadonlySet<string>): boolean {
  // The last position of each character that flags and the flag follow.
  const lastBeforeFlag = new Map<string, number>();
  let flagAhead = false;
  for (let at = line.length - 1; at >= 0; at--) {
    const char = line[at] as string;
    if (flagAhead && !lastBeforeFlag.has(char)) lastBeforeFlag.set(char, at);
    if (!flags.has(char)) flagAhead = char === flag;
  }
  if (lastBeforeFlag.size === 0) return false;
  const positions = new Map<string, number[]>();
  for (let at = 0; at < line.length; at++) {
    const char = line[at] as string;
    const list = positions.get(char);
    if (list) list.push(at);
    else positions.set(char, [at]);
  }
  for (let at = line.indexOf("s"); at >= 0 && at + 1 < line.length; at = line.indexOf("s", at + 1)) {
    const delimiter = line[at + 1] as string;
    const last = lastBeforeFlag.get(delimiter);
    if (last === undefined) continue;
    // The delimiter's second occurrence after the one that opens: it must come no later than `last`.
    const list = positions.get(delimiter) as number[];
    const second = list[firstAfter(list, at + 1) + 1];
    if (second !== undefined && second <= last) return true;
  }
  return false;
}

/** The index of the first element of the ascending `list` greater than `value`. */
function firstAfter(list: readonly number[], value: number): number {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((list[middle] as number) <= value) low = middle + 1;
    else high = middle;
  }
  return low;
}
