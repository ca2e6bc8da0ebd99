import { basename, join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { openStore } from "../../src/store/open.js";
import type { Store, Tx } from "../../src/store/store.js";
import { scratchDir, testPgUrl } from "./workspace.js";

/** A store a contract test opens in its scratch folder; `readonly` opens an existing one to read. */
export interface ContractStore {
  name: "sqlite" | "postgres";
  create: (dir: string, readonly?: boolean) => Store;
}

/**
 * Both stores, as every store contract test runs them: SQLite in the scratch folder, PostgreSQL in
 * a schema of the test server named after the folder (`<prefix>-<folder>`), so files never meet.
 */
export function contractStores(schemaPrefix: string): ContractStore[] {
  const options = (readonly?: boolean) => (readonly ? { readonly: true } : { create: true });
  return [
    { name: "sqlite", create: (dir, readonly) => openStore(join(dir, "cairn.db"), options(readonly)) },
    {
      name: "postgres",
      create: (dir, readonly) =>
        openStore(
          { kind: "postgres", url: testPgUrl(), schema: `${schemaPrefix}-${basename(dir)}` },
          options(readonly),
        ),
    },
  ];
}

/**
 * The store a contract suite works on: opened in a scratch folder before its tests, closed and
 * the folder removed after. What it returns forwards to that store, so a suite declares it once.
 */
export function storeForSuite(create: ContractStore["create"]): Store {
  let scratch: { dir: string; cleanup: () => void } | undefined;
  let store: Store | undefined;
  beforeAll(() => {
    scratch = scratchDir();
    store = create(scratch.dir);
  });
  afterAll(async () => {
    await store?.close();
    scratch?.cleanup();
  });
  return new Proxy({} as Store, {
    get(_, key) {
      if (!store) throw new Error("the suite's store is opened in beforeAll");
      const value = Reflect.get(store, key);
      return typeof value === "function" ? value.bind(store) : value;
    },
  });
}

/** A journal event by the owner, as every write must append one. */
export const journalEvent = (action: string, at = "2026-01-01T00:00:00.000Z") => ({
  at,
  actor: "owner",
  action,
  subject: "s",
  data: {},
});

/** One write transaction around `work`, with the journal event every write must append. */
export const journaledWrite =
  (store: Store, at: string) =>
  <T>(work: (tx: Tx) => Promise<T>): Promise<T> =>
    store.write(async (tx) => {
      const result = await work(tx);
      await tx.journal.append(journalEvent("test.write", at));
      return result;
    });
