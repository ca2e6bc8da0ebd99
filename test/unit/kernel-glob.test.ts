import picomatch from "picomatch";
import { describe, expect, it } from "vitest";
import { globMatcher } from "../../src/kernel/glob.js";
import { linearTest } from "../../src/kernel/linear-regex.js";
import { elapsed, randomTexts } from "../helpers/random-texts.js";

// Glob pieces picomatch reads specially (stars, globstars, classes, braces, ranges, extglobs,
// negation, escapes) and plain ones, so random globs reach every construct its parser writes.
const GLOB_PIECES = [
  "a",
  "B",
  ".",
  "-",
  "*",
  "?",
  "**",
  "/",
  "./",
  "/**/",
  "..",
  "{",
  "}",
  ",",
  "[",
  "]",
  "a-z",
  "[:alpha:]",
  "{1..3}",
  "1",
  "!",
  "!(",
  "*(",
  "+(",
  "@(",
  "?(",
  "a|b)",
  ")",
  "|",
  "^",
  "$",
  "\\",
];
// Paths with dot segments, dotfiles, empty segments, case pairs (with the Kelvin sign and a
// dotted capital I, which fold differently), and characters globs give meaning to.
const PATH_PIECES = [
  "a",
  "b",
  "A",
  ".",
  "-",
  "/",
  "..",
  "./",
  "k",
  "\u212A",
  "İ",
  "1",
  "{",
  "(",
  "[",
  "!",
  "$",
  "\n",
];

describe("the automaton that runs glob expressions", () => {
  it("answers as the native engine does for every expression picomatch writes", () => {
    const globs = randomTexts(2_500, GLOB_PIECES, 8, 3).filter((glob) => glob !== "");
    const paths = randomTexts(160, PATH_PIECES, 10, 5);
    const differ: string[] = [];
    let compared = 0;
    let unread = 0;
    for (const nocase of [false, true]) {
      for (const glob of globs) {
        const regex = picomatch.makeRe(glob, { dot: true, nocase });
        const linear = linearTest(regex);
        if (!linear) {
          unread++;
          continue;
        }
        for (const path of paths) {
          if (linear.test(path) !== regex.test(path))
            differ.push(`${glob} against ${JSON.stringify(path)}, nocase ${nocase}`);
          compared++;
        }
      }
    }
    expect(differ).toEqual([]);
    expect(compared).toBeGreaterThan(700_000);
    // Only globs that escape a digit or B (a back-reference, a word boundary) are left unread.
    expect(unread).toBeLessThan(globs.length / 50);
  });

  it("reads classes, bounded repeats and escapes as the native engine does", () => {
    const cases: [RegExp, string[]][] = [
      [/^[a-c\d_]{2,3}$/i, ["ab", "A1_", "abcd", "", "Z9"]],
      [/^(?:x|yz)+\.ts$/, ["xyzx.ts", "xy.ts", ".ts"]],
      [/^[^/]\x41\u0042\/?$/i, ["zab", "zAB/", "/AB"]],
      [/^\s\S\w\W\d\D$/, [" a_-1x", "a a_-1x"]],
      [/^[\b]a{2}b{1,}c?$/, ["\baab", "\baabbbc", "aab"]],
      [/a.c/, ["xxabcxx", "a\nc", "ac"]],
    ];
    for (const [regex, texts] of cases) {
      const linear = linearTest(regex);
      expect(linear, regex.source).toBeDefined();
      for (const text of texts)
        expect(linear?.test(text), `${regex} ${JSON.stringify(text)}`).toBe(regex.test(text));
    }
    // Outside the subset: the caller keeps the native engine.
    for (const regex of [/(a)\1/, /(?<=a)b/, /\bword/, /a/u, /a/g])
      expect(linearTest(regex), regex.source).toBeUndefined();
  });
});

describe("globMatcher", () => {
  it("matches as picomatch does, with dot files, whatever the case when asked", () => {
    const globs = randomTexts(1_500, GLOB_PIECES, 8, 9).filter((glob) => glob !== "");
    const paths = randomTexts(120, PATH_PIECES, 10, 13);
    const differ: string[] = [];
    for (const nocase of [false, true]) {
      for (const glob of globs) {
        const ours = globMatcher([glob], { nocase });
        const theirs = picomatch(glob, { dot: true, nocase });
        for (const path of paths)
          if (ours(path) !== theirs(path))
            differ.push(`${glob} against ${JSON.stringify(path)}, nocase ${nocase}`);
      }
    }
    expect(differ).toEqual([]);
    expect(globMatcher([])("a")).toBe(false);
    expect(globMatcher(["docs/**", "*.md"])("docs/a/b.txt")).toBe(true);
    expect(globMatcher(["docs/**", "*.md"])("src/a.ts")).toBe(false);
  });

  // Each took the native engine seconds to minutes (measured beside each); an agent chooses the
  // path: a trace, or a file it creates in the checkout.
  it("matches a hostile path against a glob of many stars in bounded time", () => {
    const dashes = (count: number) => "-".repeat(count);
    const cases: [string, string, boolean][] = [
      // 8 s for the native engine
      ["*a*a*b", "a".repeat(4_000), false],
      // three names of 100 dashes: 0.4 s; of 255, several seconds
      ["*-*/*-*/*-*x", `${dashes(255)}/${dashes(255)}/${dashes(255)}`, false],
      ["*-*/*-*/*-*x", `${dashes(255)}/${dashes(255)}/${dashes(254)}x`, true],
      // 0.2 s at 600 characters, growing as the fourth power
      ["**/a/**/a/**/a/**/b", `${"a/".repeat(1_500)}c`, false],
      ["**/a/**/a/**/a/**/b", `${"a/".repeat(1_500)}b`, true],
      // 1.2 s against a 250-character name
      ["**/*_*_*_*_test.py", `x/${"_".repeat(250)}`, false],
      ["**/*_*_*_*_test.py", `x/${"_".repeat(250)}test.py`, true],
      ["tests/*-*-*-*.ts", `tests/${dashes(4_000)}`, false],
      // a negated glob is the glob inside a lookahead: 2.4 s against 300 characters
      ["!*a*a*a*b", "a".repeat(4_000), true],
      ["!*a*a*a*b", `${"a".repeat(4_000)}b`, false],
    ];
    for (const [glob, path, expected] of cases) {
      const took = elapsed(() => expect(globMatcher([glob])(path), glob).toBe(expected));
      expect(took, glob).toBeLessThan(1_000);
    }
  });
});
