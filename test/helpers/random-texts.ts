import { rng } from "../../bench/knowledge-corpus.js";

/**
 * `count` texts, the same every run, each up to `maxPieces` pieces drawn from `alphabet`: for the
 * tests that hold a hand-written scanner to the pattern it replaced, where a short text over the
 * pattern's significant characters reaches every branch.
 */
export function randomTexts(
  count: number,
  alphabet: readonly string[],
  maxPieces: number,
  seed = 1,
): string[] {
  const random = rng(seed);
  return Array.from({ length: count }, () => {
    let text = "";
    for (let piece = Math.floor(random() * (maxPieces + 1)); piece > 0; piece--)
      text += alphabet[Math.floor(random() * alphabet.length)];
    return text;
  });
}

/** Milliseconds `run` takes. */
export function elapsed(run: () => unknown): number {
  const started = performance.now();
  run();
  return performance.now() - started;
}
