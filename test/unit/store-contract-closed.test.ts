import { describe, expect, it } from "vitest";
import { CairnError } from "../../src/kernel/outcome.js";
import type { Store } from "../../src/store/store.js";
import { contractStores, journalEvent } from "../helpers/contract-stores.js";
import { sockets, socketsSettleAt } from "../helpers/processes.js";
import { scratchDir } from "../helpers/workspace.js";

/**
 * The store contract for close: what was asked before close still runs; what is asked after is
 * refused and opens nothing. A PostgreSQL store that reconnected for a late write (a lease renewal
 * still running when the CLI closed its store) held the process open with a connection nobody
 * would ever close.
 */
const IMPLEMENTATIONS = contractStores("closed");

const eventCount = (store: Store) => store.read(async (tx) => (await tx.journal.recent(100)).length);

describe.each(IMPLEMENTATIONS)("closed store contract: $name", ({ create }) => {
  it("runs what was queued before close, then refuses reads and writes and opens nothing", async () => {
    const scratch = scratchDir();
    const before = sockets();
    const store = create(scratch.dir);
    try {
      expect(await eventCount(store)).toBe(0);
      // Asked for, not yet run, when close is called: it still commits.
      const queued = store.write((tx) => tx.journal.append(journalEvent("test.before_close")));
      const closing = store.close();
      await expect(queued).resolves.toBeGreaterThan(0);
      await closing;

      for (const late of [
        () => store.read((tx) => tx.journal.recent(1)),
        () => store.write((tx) => tx.journal.append(journalEvent("test.after_close"))),
      ]) {
        const refused = await late().then(
          () => undefined,
          (error: unknown) => error,
        );
        expect(refused).toBeInstanceOf(CairnError);
        expect(refused).toMatchObject({ errorKind: "operational", message: expect.stringMatching(/closed/) });
      }
      // Listening for changes after close starts no connection either.
      store.changes.subscribe(() => {})();
      store.changes.version();
      expect(await socketsSettleAt(before)).toBe(before);
    } finally {
      await store.close();
    }
    // The write queued before close is there, and nothing after it.
    const reopened = create(scratch.dir);
    try {
      const actions = await reopened.read(async (tx) => (await tx.journal.recent(10)).map((e) => e.action));
      expect(actions).toEqual(["test.before_close"]);
    } finally {
      await reopened.close();
      scratch.cleanup();
    }
  });
});
