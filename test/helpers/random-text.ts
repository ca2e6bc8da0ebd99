/**
 * Seeded random texts over a small alphabet of pieces (characters or words), to compare a
 * pattern's replacement with the pattern itself on thousands of inputs, the same ones every run.
 */
export function randomTexts(pieces: readonly string[], count: number, maxPieces = 40, seed = 7): string[] {
  let state = seed;
  const random = () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
  const texts: string[] = [];
  for (let round = 0; round < count; round++) {
    const length = Math.floor(random() * maxPieces);
    let text = "";
    for (let i = 0; i < length; i++) text += pieces[Math.floor(random() * pieces.length)];
    texts.push(text);
  }
  return texts;
}

/** Milliseconds `run` takes. */
export function elapsed(run: () => unknown): number {
  const started = performance.now();
  run();
  return performance.now() - started;
}
