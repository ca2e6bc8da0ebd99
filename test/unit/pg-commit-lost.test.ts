import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/open.js";
import type { Store } from "../../src/store/store.js";
import { journalEvent as event } from "../helpers/contract-stores.js";
import { pgProxy } from "../helpers/pg-proxy.js";
import { testPgUrl } from "../helpers/workspace.js";

/**
 * A connection lost while COMMIT is on its way: the server may have committed, so the caller is
 * told the change may have been saved (and to look before retrying), never that nothing was.
 * A proxy between the store and the server forwards COMMIT, lets the server answer it, and cuts
 * both sides before the answer reaches the store.
 */

let proxy: Awaited<ReturnType<typeof pgProxy>>;
let cutAtCommit = false;

beforeAll(async () => {
  proxy = await pgProxy(({ client, server }) => {
    let cut = false;
    return {
      toServer(chunk) {
        // COMMIT itself, not a BEGIN that states READ COMMITTED.
        if (cutAtCommit && !cut && /\bCOMMIT\b/.test(chunk.toString("latin1"))) {
          cut = true;
          cutAtCommit = false;
          // The server commits; its answer never reaches the store.
          setTimeout(() => {
            client.destroy();
            server.destroy();
          }, 300);
        }
        return true;
      },
      toClient: () => !cut,
    };
  });
});
afterAll(() => proxy.close());

describe("PostgreSQL store: the connection lost at COMMIT", () => {
  it("says the change may have been saved, and it was", async () => {
    const schema = `commit-lost-${randomUUID()}`;
    const store: Store = openStore({ kind: "postgres", url: proxy.url, schema }, { create: true });
    const direct: Store = openStore({ kind: "postgres", url: testPgUrl(), schema });
    try {
      await store.write(async (tx) => {
        await tx.journal.append(event("before"));
      });
      cutAtCommit = true;
      const failure = await store
        .write(async (tx) => {
          await tx.journal.append(event("committed unseen"));
        })
        .then(
          () => undefined,
          (error: unknown) => error as Error,
        );
      expect(failure).toBeInstanceOf(Error);
      expect(failure?.message).not.toMatch(/nothing unacknowledged was saved/);
      expect(failure?.message).toMatch(/may have been saved/);
      expect(`${(failure as { hint?: string }).hint}`).toMatch(/before retrying/);
      const actions = await direct.read(async (tx) => (await tx.journal.recent(10)).map((e) => e.action));
      expect(actions).toContain("committed unseen");
      // The store reconnects for the next call.
      await store.write(async (tx) => {
        await tx.journal.append(event("after"));
      });
    } finally {
      await store.close();
      await direct.close();
    }
  });
});
