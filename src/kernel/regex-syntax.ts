/**
 * The syntax tree of a JavaScript regular expression, for the subset glob compilers write:
 * characters, classes, `.`, groups, alternation, quantifiers (greedy or lazy, the same to a
 * yes-or-no test), `^`, `$` and lookaheads. Anything else (lookbehinds, back-references, word
 * boundaries, named groups, flags other than `i`) throws Unsupported, and the caller keeps the
 * native engine for it.
 */
export type RegexNode =
  | { kind: "unit"; matches: (unit: number) => boolean }
  | { kind: "sequence"; items: RegexNode[] }
  | { kind: "either"; options: RegexNode[] }
  | { kind: "repeat"; body: RegexNode; min: number; max: number }
  | { kind: "start" }
  | { kind: "end" }
  | { kind: "lookahead"; body: RegexNode; negated: boolean };

export class Unsupported extends Error {}

/** The longest bounded repeat expanded (`{0,5}`); picomatch writes `{1,2}` and `{0,1}`. */
const MAX_BOUNDED_REPEAT = 64;

/** A case-blind class of at most this many units is kept as a set rather than a 64 KB table. */
const SMALL_SET = 256;

const LINE_TERMINATORS = new Set([0x0a, 0x0d, 0x2028, 0x2029]);
const DIGIT = (unit: number) => unit >= 0x30 && unit <= 0x39;
const WORD = (unit: number) =>
  DIGIT(unit) || (unit >= 0x41 && unit <= 0x5a) || (unit >= 0x61 && unit <= 0x7a) || unit === 0x5f;
const SPACE = (unit: number) => /\s/.test(String.fromCharCode(unit));

/**
 * The `i` flag without `u`: a unit upper-cased when that gives one unit, but never from beyond
 * ASCII into it (the Kelvin sign is no K).
 */
function canonical(unit: number): number {
  if (unit < 128) return unit >= 0x61 && unit <= 0x7a ? unit - 32 : unit;
  const upper = String.fromCharCode(unit).toUpperCase();
  if (upper.length !== 1) return unit;
  const folded = upper.charCodeAt(0);
  return unit >= 128 && folded < 128 ? unit : folded;
}

type Ranges = { from: number; to: number }[];

export function parseRegex(source: string, flags: string): RegexNode {
  if (!/^i?$/.test(flags)) throw new Unsupported(`flags ${flags}`);
  const nocase = flags === "i";
  let at = 0;
  const peek = () => source[at];
  const fail = (what: string): never => {
    throw new Unsupported(`${what} at ${at}`);
  };

  /** A set of units as a test, case-blind under `i` (a table of canonical units, built once). */
  const setOf = (ranges: Ranges, negated: boolean, extra: ((unit: number) => boolean)[] = []) => {
    const inRanges = (unit: number) => ranges.some(({ from, to }) => unit >= from && unit <= to);
    if (!nocase) return (unit: number) => (inRanges(unit) || extra.some((test) => test(unit))) !== negated;
    // By canonical unit: the members' own, in a set when they are few (a glob's `[^/]`, dozens
    // of them in one expression), else in a table of every unit (and for \d, \w, \s, every
    // unit's that passes).
    const size = ranges.reduce((sum, { from, to }) => sum + to - from + 1, 0);
    if (extra.length === 0 && size <= SMALL_SET) {
      const members = new Set<number>();
      for (const { from, to } of ranges)
        for (let unit = from; unit <= to; unit++) members.add(canonical(unit));
      return (unit: number) => members.has(canonical(unit)) !== negated;
    }
    const table = new Uint8Array(0x10000);
    for (const { from, to } of ranges) for (let unit = from; unit <= to; unit++) table[canonical(unit)] = 1;
    if (extra.length > 0)
      for (let unit = 0; unit < 0x10000; unit++)
        if (extra.some((test) => test(unit))) table[canonical(unit)] = 1;
    return (unit: number) => (table[canonical(unit)] === 1) !== negated;
  };
  const literal = (unit: number): RegexNode => {
    if (!nocase) return { kind: "unit", matches: (other) => other === unit };
    const folded = canonical(unit);
    return { kind: "unit", matches: (other) => other === unit || canonical(other) === folded };
  };

  /** `\d`, `\w`, `\s` and their negations, or undefined for any other escape letter. */
  const classEscape = (letter: string): ((unit: number) => boolean) | undefined => {
    const test = { d: DIGIT, w: WORD, s: SPACE }[letter.toLowerCase()];
    if (!test) return undefined;
    return letter === letter.toLowerCase() ? test : (unit: number) => !test(unit);
  };

  /** The unit an escape stands for (after the backslash), where it stands for one. */
  const escapedUnit = (inClass: boolean): number => {
    const letter = source[at++] ?? fail("a trailing backslash");
    const simple: Record<string, number> = { n: 0x0a, r: 0x0d, t: 0x09, f: 0x0c, v: 0x0b, "0": 0 };
    if (letter in simple && !(letter === "0" && DIGIT(source.charCodeAt(at))))
      return simple[letter] as number;
    if (letter === "b" && inClass) return 0x08;
    if (letter === "x" || letter === "u") {
      const digits = letter === "x" ? 2 : 4;
      const hex = source.slice(at, at + digits);
      if (!new RegExp(`^[0-9a-fA-F]{${digits}}$`).test(hex)) fail(`\\${letter} without ${digits} hex digits`);
      at += digits;
      return Number.parseInt(hex, 16);
    }
    // Back-references, word boundaries and control letters are not read here.
    if (/[0-9bBck]/.test(letter)) fail(`\\${letter}`);
    return letter.charCodeAt(0);
  };

  const characterClass = (): RegexNode => {
    at++; // [
    const negated = peek() === "^";
    if (negated) at++;
    const ranges: Ranges = [];
    const extra: ((unit: number) => boolean)[] = [];
    const member = (): number | ((unit: number) => boolean) => {
      if (peek() !== "\\") return source.charCodeAt(at++);
      at++;
      const test = classEscape(source[at] ?? "");
      if (test) {
        at++;
        return test;
      }
      return escapedUnit(true);
    };
    while (peek() !== "]") {
      if (at >= source.length) fail("an unclosed class");
      const from = member();
      if (peek() === "-" && source[at + 1] !== "]" && at + 1 < source.length) {
        at++;
        const to = member();
        if (typeof from !== "number" || typeof to !== "number") fail("a range of classes");
        if ((from as number) > (to as number)) fail("a range out of order");
        ranges.push({ from: from as number, to: to as number });
      } else if (typeof from === "number") ranges.push({ from, to: from });
      else extra.push(from);
    }
    at++; // ]
    return { kind: "unit", matches: setOf(ranges, negated, extra) };
  };

  const group = (): RegexNode => {
    at++; // (
    let lookahead: boolean | undefined;
    if (peek() === "?") {
      const kind = source.slice(at, at + 2);
      if (kind === "?:") at += 2;
      else if (kind === "?=" || kind === "?!") {
        lookahead = kind === "?!";
        at += 2;
      } else fail("a lookbehind or named group");
    }
    const body = disjunction();
    if (peek() !== ")") fail("an unclosed group");
    at++;
    return lookahead === undefined ? body : { kind: "lookahead", body, negated: lookahead };
  };

  const atom = (): RegexNode => {
    const char = peek() as string;
    if (char === "(") return group();
    if (char === "[") return characterClass();
    at++;
    if (char === ".") return { kind: "unit", matches: (unit) => !LINE_TERMINATORS.has(unit) };
    if (char === "^") return { kind: "start" };
    if (char === "$") return { kind: "end" };
    if (char === "\\") {
      const test = classEscape(peek() ?? "");
      if (test) {
        at++;
        return { kind: "unit", matches: test };
      }
      return literal(escapedUnit(false));
    }
    if (char === "*" || char === "+" || char === "?" || char === ")") fail(`a bare ${char}`);
    return literal(char.charCodeAt(0));
  };

  /** A quantifier after an atom, as [min, max], or undefined. `{` that is not one is a character. */
  const quantifier = (): [number, number] | undefined => {
    const char = peek();
    let bounds: [number, number] | undefined;
    if (char === "*") bounds = [0, Number.POSITIVE_INFINITY];
    else if (char === "+") bounds = [1, Number.POSITIVE_INFINITY];
    else if (char === "?") bounds = [0, 1];
    else if (char === "{") {
      const written = /^\{(\d+)(,(\d*))?\}/.exec(source.slice(at));
      if (!written) return undefined;
      const min = Number(written[1]);
      const max =
        written[2] === undefined ? min : written[3] === "" ? Number.POSITIVE_INFINITY : Number(written[3]);
      if (min > MAX_BOUNDED_REPEAT || (Number.isFinite(max) && max > MAX_BOUNDED_REPEAT))
        fail("a long repeat");
      if (max < min) fail("a repeat out of order");
      at += written[0].length - 1;
      bounds = [min, max];
    } else return undefined;
    at++;
    if (peek() === "?") at++; // lazy: the same set of matches
    return bounds;
  };

  const alternative = (): RegexNode => {
    const items: RegexNode[] = [];
    while (at < source.length && peek() !== "|" && peek() !== ")") {
      const item = atom();
      const bounds = quantifier();
      if (!bounds) items.push(item);
      else if (item.kind === "start" || item.kind === "end" || item.kind === "lookahead")
        fail("a repeated assertion");
      else items.push({ kind: "repeat", body: item, min: bounds[0], max: bounds[1] });
    }
    return items.length === 1 ? (items[0] as RegexNode) : { kind: "sequence", items };
  };

  function disjunction(): RegexNode {
    const options = [alternative()];
    while (peek() === "|") {
      at++;
      options.push(alternative());
    }
    return options.length === 1 ? (options[0] as RegexNode) : { kind: "either", options };
  }

  const tree = disjunction();
  if (at !== source.length) fail("an unmatched )");
  return tree;
}
