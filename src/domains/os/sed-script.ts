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
  return runsExecCommand(script) || substitutionRunsShell(script);
}

/** A substitution with the `e` flag, on any line (`.` stops at its end): exported for the test that holds it to the pattern. */
export const substitutionRunsShell = (script: string) =>
  script.split(LINE_TERMINATOR).some(substitutesWithShell);

/** Where a command may start: after these (and blanks), or at the start of the script. */
const COMMAND_START = new Set([";", "\n", "{", "}"]);
const BLANK = new Set([" ", "\t", "\r", "\f", "\v"]);
/** What an address is made of, besides the regex in it: `1`, `$`, `0~2`, `3,+4`, `1!`, `/x/I`. */
const ADDRESS = new Set("0123456789$~,+! \t");

/**
 * The `e` command at any command start, its address skipped: `e id`, `1e id`, `$!e id`,
 * `/x/,/y/e id`, `\%x%Ie id`. An `e` elsewhere (in a regex or replacement) is not a command.
 */
function runsExecCommand(script: string): boolean {
  for (let at = 0; at < script.length; at++) {
    if (at > 0 && !COMMAND_START.has(script[at - 1] as string)) continue;
    let next = at;
    while (next < script.length) {
      const char = script[next] as string;
      if (ADDRESS.has(char) || BLANK.has(char)) next++;
      else if (char === "/" || char === "\\") next = afterRegexAddress(script, next);
      else break;
    }
    if (script[next] === "e") return true;
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

const SUBSTITUTION_FLAGS = new Set("gpiIwmM0123456789");

/** Is there an `s`, a delimiter d after it, then two more d, the last followed by flags and `e`? */
function substitutesWithShell(line: string): boolean {
  // The last position of each character that flags and an `e` follow.
  const lastBeforeExec = new Map<string, number>();
  let execAhead = false;
  for (let at = line.length - 1; at >= 0; at--) {
    const char = line[at] as string;
    if (execAhead && !lastBeforeExec.has(char)) lastBeforeExec.set(char, at);
    if (!SUBSTITUTION_FLAGS.has(char)) execAhead = char === "e";
  }
  if (lastBeforeExec.size === 0) return false;
  const positions = new Map<string, number[]>();
  for (let at = 0; at < line.length; at++) {
    const char = line[at] as string;
    const list = positions.get(char);
    if (list) list.push(at);
    else positions.set(char, [at]);
  }
  for (let at = line.indexOf("s"); at >= 0 && at + 1 < line.length; at = line.indexOf("s", at + 1)) {
    const delimiter = line[at + 1] as string;
    const last = lastBeforeExec.get(delimiter);
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
