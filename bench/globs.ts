/**
 * Glob matching (role scopes, frozen evaluator inputs): cairn's matcher beside picomatch's own on
 * everyday paths, where both run the native engine, and on paths an agent can choose, where
 * picomatch's backtracking expression takes the path's length to the power of the glob's stars.
 */
import picomatch from "picomatch";
import { globMatcher } from "../src/kernel/glob.js";
import { header, ms, report } from "./report.js";

/** Microseconds per path, over enough rounds to read. */
function perPath(match: (path: string) => boolean, paths: readonly string[]): number {
  let rounds = 0;
  const started = performance.now();
  do {
    for (const path of paths) match(path);
    rounds++;
  } while (performance.now() - started < 200);
  return ((performance.now() - started) * 1000) / (rounds * paths.length);
}

function once(match: (path: string) => boolean, path: string): number {
  const started = performance.now();
  match(path);
  return performance.now() - started;
}

export async function benchGlobs(): Promise<void> {
  header("globs: cairn's matcher beside picomatch (dot: true)");
  const files = Array.from(
    { length: 5_000 },
    (_, i) => `src/domains/area${i % 50}/part${i % 7}/file-${i}${i % 3 === 0 ? ".test" : ""}.ts`,
  );
  for (const glob of ["src/**", "**/*.test.ts", "src/*/area1/**", "*.md"]) {
    const ours = perPath(globMatcher([glob]), files);
    const theirs = perPath(picomatch(glob, { dot: true }), files);
    report({
      name: `everyday path, ${glob}`,
      figure: `${ours.toFixed(2)} µs`,
      baseline: `picomatch ${theirs.toFixed(2)} µs`,
    });
  }
  const dashes = (count: number) => "-".repeat(count);
  // Sizes where picomatch still answers within seconds; cairn's time grows with the length alone.
  const hostile: [string, string][] = [
    ["*a*a*b", "a".repeat(4_000)],
    ["tests/*-*-*-*.ts", `tests/${dashes(200)}`],
    ["*-*/*-*/*-*x", `${dashes(100)}/${dashes(100)}/${dashes(100)}`],
    ["**/a/**/a/**/a/**/b", `${"a/".repeat(300)}c`],
    ["!*a*a*a*b", "a".repeat(250)],
  ];
  for (const [glob, path] of hostile) {
    const ours = once(globMatcher([glob]), path);
    const theirs = once(picomatch(glob, { dot: true }), path);
    report({
      name: `agent's path, ${glob} (${path.length} chars)`,
      figure: ms(ours),
      baseline: `picomatch ${ms(theirs)}`,
      goal: "bounded by the length",
    });
  }
}
