/**
 * Recall at 100,000 facts on both stores, loaded the product's way: `rememberAll` (the same rows
 * as one `remember` per fact, see test/unit/remember-all.test.ts), with the recall-quality
 * targets spread through the corpus so hit@5 is measured at full size.
 */
import { OWNER } from "../src/domains/identity/actor.js";
import { recall } from "../src/domains/knowledge/memory.js";
import { rememberAll } from "../src/domains/knowledge/remember-all.js";
import type { Store } from "../src/store/store.js";
import { generatedFacts, RECALL_PAIRS } from "./knowledge-corpus.js";
import { ms, percentile, report } from "./report.js";

export const FACTS = 100_000;
const at = "2026-10-01T00:00:00.000Z";
const QUERIES = [
  "redis staging",
  "thursday deploy",
  "billing timeout",
  "kafka consumer lag",
  "auth token rotation",
];

/** The corpus: generated distractors with one target fact every FACTS / targets positions. */
export function recallCorpus(): { text: string; topics?: string[] }[] {
  const corpus: { text: string; topics?: string[] }[] = generatedFacts(FACTS - RECALL_PAIRS.length, 11);
  const step = Math.floor(corpus.length / RECALL_PAIRS.length);
  RECALL_PAIRS.forEach((pair, i) => {
    corpus.splice(i * (step + 1), 0, { text: pair.fact });
  });
  return corpus;
}

export interface RecallFigures {
  loadMs: number;
  samples: number[];
  hit5: number;
}

export async function benchRecall(store: Store): Promise<RecallFigures> {
  const corpus = recallCorpus();
  const started = performance.now();
  await rememberAll(store, OWNER, corpus, at);
  const loadMs = performance.now() - started;
  // Warm the caches the way a running server has them, then measure.
  for (const query of QUERIES) await recall(store, { query, limit: 10 }, at);
  const samples: number[] = [];
  for (let i = 0; i < 100; i++) {
    const t = performance.now();
    await recall(store, { query: QUERIES[i % QUERIES.length] as string, limit: 10 }, at);
    samples.push(performance.now() - t);
  }
  let hits = 0;
  for (const pair of RECALL_PAIRS) {
    const found = await recall(store, { query: pair.query, limit: 5 }, at);
    if (found.some((hit) => hit.fact.text === pair.fact)) hits++;
  }
  return { loadMs, samples, hit5: hits / RECALL_PAIRS.length };
}

export function reportRecall(sqlite: RecallFigures, postgres: RecallFigures): void {
  const p = (s: number[]) => `p50 ${ms(percentile(s, 50))} p99 ${ms(percentile(s, 99))}`;
  const n = FACTS.toLocaleString("en");
  report({
    name: `bulk load ${n} facts (rememberAll), postgres`,
    figure: `${(postgres.loadMs / 1000).toFixed(1)} s`,
    baseline: `sqlite ${(sqlite.loadMs / 1000).toFixed(1)} s`,
  });
  report({
    name: `recall on ${n} facts, postgres`,
    figure: p(postgres.samples),
    baseline: `sqlite ${p(sqlite.samples)}`,
    goal: "≤ 10 ms p50",
    met: percentile(postgres.samples, 50) <= 10,
  });
  report({
    name: `recall hit@5 on ${n} facts, postgres`,
    figure: postgres.hit5.toFixed(2),
    baseline: `sqlite ${sqlite.hit5.toFixed(2)}`,
    goal: "≥ 0.90",
    met: postgres.hit5 >= 0.9,
  });
}
