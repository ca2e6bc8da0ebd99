import { join } from "node:path";
import { afterEach, beforeEach } from "vitest";
import { openStore } from "../../src/store/open.js";
import type { Store } from "../../src/store/store.js";
import { scratchDir } from "./workspace.js";

/** A new SQLite store in a scratch folder for each test of the file, closed and removed after it. */
export function storePerTest(): () => Store {
  let scratch: ReturnType<typeof scratchDir> | undefined;
  let store: Store | undefined;
  beforeEach(() => {
    scratch = scratchDir();
    store = openStore(join(scratch.dir, "cairn.db"), { create: true });
  });
  afterEach(async () => {
    await store?.close();
    scratch?.cleanup();
  });
  return () => store as Store;
}
