import { basename, join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OWNER } from "../../src/domains/identity/actor.js";
import { recall, remember } from "../../src/domains/knowledge/memory.js";
import { rememberAll } from "../../src/domains/knowledge/remember-all.js";
import { openStore, type StoreLocation } from "../../src/store/open.js";
import type { Store } from "../../src/store/store.js";
import { scratchDir, testPgUrl } from "../helpers/workspace.js";

const at = "2026-05-01T00:00:00.000Z";

/**
 * A small corpus with what makes bulk loading easy to get wrong: restatements (in other case
 * and punctuation) that must reinforce and merge topics, accents, a NUL character, quotes and
 * backslashes in text and topics, a fact already in the store before the import.
 */
const CORPUS: { text: string; topics?: string[] }[] = [
  { text: "The staging Postgres database listens on port 6543.", topics: ["db", "staging"] },
  { text: "Deploys are frozen on Friday after 15:00 UTC.", topics: ["deploy"] },
  { text: "the STAGING postgres database listens on port 6543", topics: ["ports"] },
  { text: "Café au lait: the naïve résumé parser drops accents." },
  { text: "A NUL \u0000 byte and a 'quote' and a back\\slash survive.", topics: ["it's", "a\\b"] },
  { text: "Billing retries failed webhooks five times with backoff.", topics: ["billing"] },
  { text: "Deploys are frozen on Friday after 15:00 UTC!", topics: ["freeze"] },
  ...Array.from({ length: 40 }, (_, i) => ({
    text: `Service ${i} in region ${i % 3} owns queue q${i % 7} and retries ${i % 5} times.`,
    topics: [`svc${i % 4}`],
  })),
];
const QUERIES = [
  "staging port",
  "deploy freeze friday",
  "cafe resume",
  "retries queue",
  "webhooks",
  "nul byte",
];

/** Load the same inputs both ways: one remember per input, and one rememberAll. */
async function loadBothWays(open: (label: string) => Store): Promise<{ one: Store; bulk: Store }> {
  const one = open("one");
  const bulk = open("bulk");
  for (const store of [one, bulk])
    await remember(store, OWNER, { text: "Billing retries failed webhooks five times with backoff" }, at);
  for (const input of CORPUS) await remember(one, OWNER, input, at);
  expect(await rememberAll(bulk, OWNER, CORPUS, at)).toEqual({
    remembered: CORPUS.length - 3,
    reinforced: 3,
  });
  return { one, bulk };
}

async function recalls(store: Store) {
  const out: unknown[] = [];
  for (const query of QUERIES) out.push(await recall(store, { query, limit: 5 }, at));
  out.push(await recall(store, { topic: "svc1", limit: 5 }, at));
  return out;
}

describe("rememberAll leaves the workspace exactly as remember one by one", () => {
  let scratch: { dir: string; cleanup: () => void };
  let raw: pg.Client;
  beforeAll(async () => {
    scratch = scratchDir();
    raw = new pg.Client({ connectionString: testPgUrl() });
    await raw.connect();
  });
  afterAll(async () => {
    await raw.end();
    scratch.cleanup();
  });

  it("on SQLite: the same exported rows and the same recall", async () => {
    const { one, bulk } = await loadBothWays((label) =>
      openStore(join(scratch.dir, `${label}.db`), { create: true }),
    );
    try {
      const dump = async (store: Store) => store.read((tx) => tx.transfer.dump());
      expect(await dump(bulk)).toEqual(await dump(one));
      expect(await recalls(bulk)).toEqual(await recalls(one));
    } finally {
      await Promise.all([one.close(), bulk.close()]);
    }
  });

  it("on PostgreSQL: the same rows in every table (search columns, term counts, counters, journal) and the same recall", async () => {
    const run = basename(scratch.dir);
    const location = (label: string): StoreLocation => ({
      kind: "postgres",
      url: testPgUrl(),
      schema: `bulk-${label}-${run}`,
    });
    const { one, bulk } = await loadBothWays((label) => openStore(location(label), { create: true }));
    try {
      const table = async (label: string, sql: string) => {
        const rows = await raw.query(`SET search_path TO "bulk-${label}-${run}"; ${sql}`);
        return (rows as unknown as pg.QueryResult[])[1]?.rows;
      };
      for (const sql of [
        "SELECT *, _tsv::text AS tsv FROM facts ORDER BY seq",
        "SELECT * FROM facts_terms ORDER BY term",
        "SELECT * FROM facts_stats",
        "SELECT * FROM cairn_counters ORDER BY name",
        "SELECT * FROM events ORDER BY id",
      ]) {
        const expected = await table("one", sql);
        expect(expected?.length).toBeGreaterThan(0);
        expect(await table("bulk", sql)).toEqual(expected);
      }
      expect(await recalls(bulk)).toEqual(await recalls(one));
      // And the bulk-loaded index keeps counting right afterwards.
      for (const store of [one, bulk])
        await remember(store, OWNER, { text: "Café au lait with a résumé" }, at);
      expect(await table("bulk", "SELECT * FROM facts_terms ORDER BY term")).toEqual(
        await table("one", "SELECT * FROM facts_terms ORDER BY term"),
      );
    } finally {
      await Promise.all([one.close(), bulk.close()]);
    }
  });

  it("refuses the whole batch when one input is invalid, writing nothing", async () => {
    const store = openStore(join(scratch.dir, "refuse.db"), { create: true });
    try {
      await expect(
        rememberAll(store, OWNER, [{ text: "fine" }, { text: "x".repeat(5_000) }], at),
      ).rejects.toThrow(/at most/);
      expect(await store.read((tx) => tx.journal.recent(5))).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
