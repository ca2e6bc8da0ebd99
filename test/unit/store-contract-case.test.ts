import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/open.js";
import type { Store } from "../../src/store/store.js";
import { contractStores, journaledWrite, storeForSuite } from "../helpers/contract-stores.js";
import { newTask } from "../helpers/new-task.js";
import { testPgUrl } from "../helpers/workspace.js";

/**
 * Case folding is ASCII alone on both stores (SQLite's NOCASE and lower()), for stored text and
 * for the caller's text alike: a glossary term or a task title holding a non-ASCII capital is
 * found, and redefined, by its own spelling. PostgreSQL's lower() of a parameter folds by the
 * database's default collation (Unicode on most servers) unless told otherwise.
 */
const AT = "2026-06-01T00:00:00.000Z";

describe.each(contractStores("case"))("case folding store contract: $name", ({ create }) => {
  const store = storeForSuite(create);
  const write = journaledWrite(store, AT);

  it("a glossary term with a non-ASCII capital is redefined by its spelling, ASCII case folded", async () => {
    const set = (term: string, meaning: string) =>
      write(async (tx) => tx.glossary.upsert({ term, meaning, author: "owner", updatedAt: AT }));
    expect(await set("ÉCOLE", "one")).toEqual({ created: true });
    expect(await set("ÉCOLE", "two")).toEqual({ created: false });
    expect(await set("École", "three")).toEqual({ created: false });
    // É and é differ under ASCII folding: another term.
    expect(await set("école", "four")).toEqual({ created: true });
    const listed = await store.read((tx) => tx.glossary.list());
    expect(listed.map((entry) => [entry.term, entry.meaning])).toEqual([
      ["École", "three"],
      ["école", "four"],
    ]);
  });

  it("a task title with a non-ASCII capital is found by its own spelling", async () => {
    await write(async (tx) => tx.tasks.insert(newTask("Réparer ÉCOLE build", {}), AT));
    const count = async (text: string) =>
      (await store.read((tx) => tx.tasks.list({ text, limit: 10, offset: 0 }))).total;
    expect(await count("ÉCOLE")).toBe(1);
    expect(await count("École")).toBe(1);
    expect(await count("Réparer")).toBe(1);
    expect(await count("école")).toBe(0);
  });

  it("an agent's name is found in any case, for the rule that two names may not differ in case alone", async () => {
    await write(async (tx) =>
      tx.agents.insert({ name: "Bob", role: "builder", grant: "rw", parentId: null, tokenHash: "h-bob" }, AT),
    );
    const found = (name: string) => store.read(async (tx) => (await tx.agents.byNameAnyCase(name))?.name);
    expect(await found("bOB")).toBe("Bob");
    expect(await found("Bob")).toBe("Bob");
    expect(await found("Bo")).toBeUndefined();
  });
});

/**
 * Text PostgreSQL derives rather than reads from a column (a topic taken out of a JSON array)
 * takes the database's default collation, which on most servers is linguistic, not SQLite's
 * byte order. A database whose default is ICU's en-US shows it: "Zeta" sorts after "alpha" there.
 */
describe("byte order on a server whose default collation is linguistic", () => {
  const database = `cairn_icu_${randomUUID().slice(0, 8)}`;
  let admin: pg.Client;
  let store: Store | undefined;
  beforeAll(async () => {
    admin = new pg.Client({ connectionString: testPgUrl() });
    await admin.connect();
    await admin.query(
      `CREATE DATABASE ${database} LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C.UTF-8' TEMPLATE template0`,
    );
  });
  afterAll(async () => {
    await store?.close();
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.end();
  });

  it("topics with equal counts are listed in byte order, as on SQLite", async () => {
    const url = new URL(testPgUrl());
    url.pathname = `/${database}`;
    store = openStore({ kind: "postgres", url: url.toString(), schema: "icu" }, { create: true });
    await store.write(async (tx) => {
      for (const [i, topic] of ["alpha", "Zeta", "beta", "Beta"].entries()) {
        const text = `fact ${i}`;
        await tx.facts.insert({ text, norm: text, topics: [topic], author: "owner" }, AT);
      }
      await tx.journal.append({ at: AT, actor: "owner", action: "test.write", subject: "s", data: {} });
    });
    const topics = await store.read((tx) => tx.facts.topics());
    expect(topics.map((entry) => entry.topic)).toEqual(["Beta", "Zeta", "alpha", "beta"]);
  });

  it("a glossary term and a task title with a non-ASCII capital are found by their spelling there too", async () => {
    const open = store as Store;
    const set = (term: string, meaning: string) =>
      open.write(async (tx) => {
        const made = await tx.glossary.upsert({ term, meaning, author: "owner", updatedAt: AT });
        await tx.journal.append({ at: AT, actor: "owner", action: "test.write", subject: "s", data: {} });
        return made;
      });
    expect(await set("ÉCOLE", "one")).toEqual({ created: true });
    expect(await set("École", "two")).toEqual({ created: false });
    await open.write(async (tx) => {
      await tx.tasks.insert(newTask("Réparer ÉCOLE build", {}), AT);
      await tx.journal.append({ at: AT, actor: "owner", action: "test.write", subject: "s", data: {} });
    });
    const found = await open.read((tx) => tx.tasks.list({ text: "ÉCOLE", limit: 10, offset: 0 }));
    expect(found.total).toBe(1);
  });
});
