import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generatedFacts, RECALL_PAIRS } from "../../bench/knowledge-corpus.js";
import { OWNER } from "../../src/domains/identity/actor.js";
import { recall, remember } from "../../src/domains/knowledge/memory.js";
import { normaliseFact } from "../../src/domains/knowledge/text.js";
import { openStore } from "../../src/store/open.js";
import type { Store } from "../../src/store/store.js";
import { scratchDir, testPgUrl } from "../helpers/workspace.js";

/**
 * Recall quality on the bench's corpus (questions phrased unlike the facts they should find,
 * among 2,000 distractors sharing their vocabulary), for both stores: the same bar for each.
 */
const at = "2026-10-01T00:00:00.000Z";
let scratch: { dir: string; cleanup: () => void };
beforeAll(() => {
  scratch = scratchDir();
});
afterAll(() => scratch.cleanup());

async function hitAt5(store: Store): Promise<number> {
  const distractors = generatedFacts(2_000, 7);
  await store.write(async (tx) => {
    for (const fact of distractors) {
      const norm = normaliseFact(fact.text);
      if (await tx.facts.liveByNorm(norm)) continue;
      await tx.facts.insert({ text: fact.text, norm, topics: fact.topics, author: "owner" }, at);
    }
    await tx.journal.append({ at, actor: "owner", action: "test.load", subject: "facts", data: {} });
  });
  const ids = new Map<string, string>();
  for (const pair of RECALL_PAIRS)
    ids.set(pair.fact, (await remember(store, OWNER, { text: pair.fact }, at)).fact.id);
  let found = 0;
  for (const pair of RECALL_PAIRS) {
    const hits = await recall(store, { query: pair.query, limit: 5 }, at);
    if (hits.some((hit) => hit.fact.id === ids.get(pair.fact))) found++;
  }
  await store.close();
  return found / RECALL_PAIRS.length;
}

describe("recall quality, hit@5 on the bench corpus", () => {
  it("SQLite and PostgreSQL both find the right fact in the top 5 for at least 90% of questions", async () => {
    const sqlite = await hitAt5(openStore(join(scratch.dir, "q.db"), { create: true }));
    const postgres = await hitAt5(
      openStore({ kind: "postgres", url: testPgUrl(), schema: `quality-${randomUUID()}` }, { create: true }),
    );
    expect({ sqlite: sqlite >= 0.9, postgres: postgres >= 0.9 }).toEqual({ sqlite: true, postgres: true });
    expect(Math.abs(postgres - sqlite)).toBeLessThanOrEqual(0.05);
  });
});
