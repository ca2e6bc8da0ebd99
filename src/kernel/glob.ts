import picomatch from "picomatch";
import { linearTest } from "./linear-regex.js";

/** Whether a path matches any of a set of globs. */
export type PathMatcher = (path: string) => boolean;

/**
 * Globs have picomatch's meaning (`dot: true`): the same regular expression decides. The native
 * engine backtracks, at a cost of about the path's length to the power of the glob's stars:
 * `*a*a*b` against 4,000 characters takes 8 s, and three segments of `*-*` (then `x`) against
 * three names of 255 dashes take longer still. Paths come from agents (a task's traces, the files
 * of a checkout), so where that power passes NATIVE_STEPS, the expression is run instead by an
 * automaton whose time is the path's length times the expression's size
 * (src/kernel/linear-regex.ts), ten to thirty times slower on an everyday path, hence not always.
 * A glob whose expression the automaton cannot read (an escape such as `\1` or `\B`, which
 * picomatch passes on as a back-reference or a word boundary) keeps the native engine.
 */
export function globMatcher(globs: readonly string[], options: { nocase?: boolean } = {}): PathMatcher {
  const tests = globs.map((glob) => globTest(glob, options.nocase === true));
  return (path) => tests.some((test) => test(path));
}

/** The native engine's worst case allowed on one path: about 0.2 ms. */
const NATIVE_STEPS = 2 ** 18;

function globTest(glob: string, nocase: boolean): PathMatcher {
  const regex = picomatch.makeRe(glob, { dot: true, nocase });
  const linear = linearTest(regex);
  const test = (path: string) =>
    !linear || linear.degree <= 1 || path.length ** linear.degree <= NATIVE_STEPS
      ? regex.test(path)
      : linear.test(path);
  // picomatch's own matcher: an empty path matches nothing, and a path equal to the glob matches.
  return (path) => path !== "" && (path === glob || test(path));
}
