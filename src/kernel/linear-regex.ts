import { parseRegex, type RegexNode, Unsupported } from "./regex-syntax.js";

/**
 * A yes-or-no test for a regular expression that never backtracks: the expression becomes a
 * Thompson automaton, and all its threads advance together one UTF-16 unit at a time (a Pike
 * machine without captures). Its time is the text's length times the automaton's size; a
 * lookahead is an automaton of its own, run at most once per position. Undefined where the
 * expression uses syntax outside the subset `parseRegex` reads.
 *
 * `degree` says what the native engine would cost instead: about (text length)^degree steps at
 * worst, from the unbounded quantifiers one after another, or Infinity where a quantifier repeats
 * something that can match in more than one way (`(?:a|aa)+`), which is exponential.
 */
export function linearTest(regex: RegExp): { test: (text: string) => boolean; degree: number } | undefined {
  let tree: RegexNode;
  try {
    tree = parseRegex(regex.source, regex.flags);
  } catch (error) {
    if (error instanceof Unsupported) return undefined;
    throw error;
  }
  // Compiled at the first test: most globs are short enough for the native engine on every path.
  let program: Program | undefined;
  const test = (text: string) => {
    if (!program) program = compile(tree);
    return new Run(program, text).searches();
  };
  return { test, degree: degreeOf(tree) };
}

/**
 * A lookahead costs what its body does, at each position it is asked: a negated glob (`!*a*a*b`)
 * is the whole glob inside one, 2.4 s against 300 characters.
 */
function degreeOf(node: RegexNode): number {
  switch (node.kind) {
    case "sequence":
      return node.items.reduce((sum, item) => sum + degreeOf(item), 0);
    case "either":
      return node.options.reduce((sum, option) => sum + degreeOf(option), 0);
    case "lookahead":
      return degreeOf(node.body);
    case "repeat": {
      if (Number.isFinite(node.max)) return degreeOf(node.body) * Math.max(1, node.max);
      return ambiguous(node.body) ? Number.POSITIVE_INFINITY : 1 + degreeOf(node.body);
    }
    default:
      return 0;
  }
}

/**
 * Whether a node can match one stretch of text in more than one way: it holds an alternation or
 * a quantifier. A lookahead's body is not searched: once it holds, it is never entered again.
 */
function ambiguous(node: RegexNode): boolean {
  switch (node.kind) {
    case "sequence":
      return node.items.some(ambiguous);
    case "either":
    case "repeat":
      return true;
    default:
      return false;
  }
}

type Instruction =
  | { op: "unit"; matches: (unit: number) => boolean; next: number }
  | { op: "split"; next: number; other: number }
  | { op: "jump"; next: number }
  | { op: "start"; next: number }
  | { op: "end"; next: number }
  | { op: "look"; program: Program; negated: boolean; id: number; next: number }
  | { op: "match" };
type Program = { instructions: Instruction[]; lookaheads: number };

/** The automaton of a tree: instruction 0 is its entry, and `match` its one accepting state. */
function compile(tree: RegexNode, counter = { lookaheads: 0 }): Program {
  const instructions: Instruction[] = [];
  // Each emitter appends a fragment whose exits are patched to the index after it.
  const emit = (node: RegexNode): void => {
    switch (node.kind) {
      case "unit":
        instructions.push({ op: "unit", matches: node.matches, next: instructions.length + 1 });
        return;
      case "start":
      case "end":
        instructions.push({ op: node.kind, next: instructions.length + 1 });
        return;
      case "lookahead":
        instructions.push({
          op: "look",
          program: compile(node.body, counter),
          negated: node.negated,
          id: counter.lookaheads++,
          next: instructions.length + 1,
        });
        return;
      case "sequence":
        for (const item of node.items) emit(item);
        return;
      case "either": {
        const jumps: Extract<Instruction, { op: "jump" }>[] = [];
        // split(option, rest); option; jump end; ... the last option falls through to the end.
        for (const option of node.options.slice(0, -1)) {
          const split = { op: "split" as const, next: instructions.length + 1, other: 0 };
          instructions.push(split);
          emit(option);
          const jump = { op: "jump" as const, next: 0 };
          jumps.push(jump);
          instructions.push(jump);
          split.other = instructions.length;
        }
        emit(node.options.at(-1) as RegexNode);
        for (const jump of jumps) jump.next = instructions.length;
        return;
      }
      case "repeat": {
        for (let copy = 0; copy < node.min; copy++) emit(node.body);
        if (!Number.isFinite(node.max)) {
          // L: split(body, out); body; jump L
          const loop = instructions.length;
          const split = { op: "split" as const, next: loop + 1, other: 0 };
          instructions.push(split);
          emit(node.body);
          instructions.push({ op: "jump", next: loop });
          split.other = instructions.length;
          return;
        }
        const splits: Extract<Instruction, { op: "split" }>[] = [];
        for (let copy = node.min; copy < node.max; copy++) {
          const split = { op: "split" as const, next: instructions.length + 1, other: 0 };
          splits.push(split);
          instructions.push(split);
          emit(node.body);
        }
        for (const split of splits) split.other = instructions.length;
        return;
      }
    }
  };
  emit(tree);
  instructions.push({ op: "match" });
  return { instructions, lookaheads: counter.lookaheads };
}

/**
 * The scratch space of one automaton, kept between tests: the threads of this position and the
 * next (each instruction at most once per position, by its mark) and the stack of `add`.
 */
class Scratch {
  readonly marks: Int32Array;
  readonly stack: Int32Array;
  current: Int32Array;
  next: Int32Array;
  generation = 0;

  constructor(size: number) {
    this.marks = new Int32Array(size);
    // An instruction can be pushed once per edge into it before it is visited: at most two each.
    this.stack = new Int32Array(2 * size + 1);
    this.current = new Int32Array(size);
    this.next = new Int32Array(size);
  }

  /** A fresh generation of marks: every instruction unvisited. */
  advance(): number {
    if (this.generation === 0x7fffffff) {
      this.marks.fill(0);
      this.generation = 0;
    }
    return ++this.generation;
  }
}

const scratchOf = new WeakMap<Program, Scratch>();

/** What `add` answers when a thread reaches `match`. */
const MATCHED = -1;

/** One test of one text: each lookahead's answer is kept per position, asked at most once. */
class Run {
  /** Per lookahead, per position: 0 not asked yet, 1 holds, 2 fails. */
  private readonly answers: Uint8Array;

  constructor(
    private readonly program: Program,
    private readonly text: string,
  ) {
    this.answers = new Uint8Array(program.lookaheads * (text.length + 1));
  }

  /** Whether the expression matches anywhere in the text, as `RegExp.prototype.test` does. */
  searches(): boolean {
    // An expression that starts with `^` can only match from the first position.
    const anchored = this.program.instructions[0]?.op === "start";
    return this.from(this.program, 0, !anchored);
  }

  /**
   * Whether `program` reaches `match` from position `start` (and, `anywhere`, from any later
   * position too, a fresh thread entering at each).
   */
  private from(program: Program, start: number, anywhere: boolean): boolean {
    let scratch = scratchOf.get(program);
    if (!scratch) {
      scratch = new Scratch(program.instructions.length);
      scratchOf.set(program, scratch);
    }
    const text = this.text;
    scratch.advance();
    let count = this.add(program, scratch, scratch.current, 0, 0, start);
    for (let position = start; position < text.length && (count > 0 || anywhere); position++) {
      if (count === MATCHED) return true;
      const current = scratch.current;
      const next = scratch.next;
      scratch.advance();
      const unit = text.charCodeAt(position);
      let length = 0;
      for (let index = 0; index < count && length !== MATCHED; index++) {
        const instruction = program.instructions[current[index] as number] as Extract<
          Instruction,
          { op: "unit" }
        >;
        if (instruction.matches(unit))
          length = this.add(program, scratch, next, length, instruction.next, position + 1);
      }
      if (anywhere && length !== MATCHED) length = this.add(program, scratch, next, length, 0, position + 1);
      count = length;
      scratch.current = next;
      scratch.next = current;
    }
    return count === MATCHED;
  }

  /**
   * Add a thread at `pc` to `list` (which holds `length` already), following jumps, splits and
   * assertions at `position`: the list's new length, or MATCHED when a path reaches `match`.
   */
  private add(
    program: Program,
    scratch: Scratch,
    list: Int32Array,
    length: number,
    pc: number,
    position: number,
  ): number {
    const { marks, stack } = scratch;
    const generation = scratch.generation;
    let depth = 0;
    let size = length;
    stack[depth++] = pc;
    while (depth > 0) {
      const at = stack[--depth] as number;
      if (marks[at] === generation) continue;
      marks[at] = generation;
      const instruction = program.instructions[at] as Instruction;
      switch (instruction.op) {
        case "match":
          return MATCHED;
        case "unit":
          list[size++] = at;
          break;
        case "jump":
          stack[depth++] = instruction.next;
          break;
        case "split":
          stack[depth++] = instruction.other;
          stack[depth++] = instruction.next;
          break;
        case "start":
          if (position === 0) stack[depth++] = instruction.next;
          break;
        case "end":
          if (position === this.text.length) stack[depth++] = instruction.next;
          break;
        case "look":
          if (this.looks(instruction, position) !== instruction.negated) stack[depth++] = instruction.next;
          break;
      }
    }
    return size;
  }

  private looks(look: Extract<Instruction, { op: "look" }>, position: number): boolean {
    const key = look.id * (this.text.length + 1) + position;
    const known = this.answers[key];
    if (known) return known === 1;
    const answer = this.from(look.program, position, false);
    this.answers[key] = answer ? 1 : 2;
    return answer;
  }
}
