import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyStore } from "../../src/store/copy.js";
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
/** Cut the connection that sends a `store copy`'s first row (its answer never comes). */
let cutAtCopy = false;

beforeAll(async () => {
  proxy = await pgProxy(({ client, server }) => {
    let cut = false;
    return {
      toServer(chunk) {
        // COMMIT itself, not a BEGIN that states READ COMMITTED.
        if (cutAtCopy && !cut && /INSERT INTO "events"/.test(chunk.toString("latin1"))) {
          cut = true;
          cutAtCopy = false;
          client.destroy();
          server.destroy();
          return false;
        }
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

describe("store copy: the connection to the target lost mid-copy", () => {
  it("names the server in a typed error, writes nothing, and the copy runs again", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cairn-copy-cut-"));
    const source = { kind: "sqlite" as const, path: join(dir, "cairn.db") };
    const schema = `copy-cut-${randomUUID()}`;
    const seeded = openStore(source, { create: true });
    try {
      await seeded.write(async (tx) => {
        await tx.journal.append(event("to copy"));
      });
    } finally {
      await seeded.close();
    }
    try {
      cutAtCopy = true;
      const failure = await copyStore(source, { kind: "postgres", url: proxy.url, schema }).then(
        () => undefined,
        (error: unknown) => error as Error & { errorKind?: string },
      );
      expect(failure?.errorKind).toBe("operational");
      expect(failure?.message).toContain(`PostgreSQL at ${new URL(proxy.url).host}`);
      await copyStore(source, { kind: "postgres", url: testPgUrl(), schema });
    } finally {
      cutAtCopy = false;
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
