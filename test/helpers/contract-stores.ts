import { basename, join } from "node:path";
import { openStore } from "../../src/store/open.js";
import type { Store } from "../../src/store/store.js";
import { testPgUrl } from "./workspace.js";

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
