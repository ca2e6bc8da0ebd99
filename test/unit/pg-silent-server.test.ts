import { randomUUID } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/open.js";
import type { Store } from "../../src/store/store.js";
import { journalEvent as event } from "../helpers/contract-stores.js";
import { pgProxy } from "../helpers/pg-proxy.js";
import { testPgUrl } from "../helpers/workspace.js";

/**
 * A server that stops answering without closing the connection (a host gone away, a network
 * path that drops packets, a stuck proxy): no statement timeout of the server's can fire, since
 * the server never hears the statement or its answer is lost. A call must still end, with an
 * error, and the next call must connect again once the server answers.
 */

let proxy: Awaited<ReturnType<typeof pgProxy>>;
/** While set, nothing goes either way on the connections already open; new ones still work. */
let silent = false;

beforeAll(async () => {
  proxy = await pgProxy(() => {
    const opened = silent;
    const passes = () => !(silent && !opened);
    return { toServer: passes, toClient: passes };
  });
});
afterAll(() => proxy.close());

const before = process.env.CAIRN_PG_TIMEOUT_MS;
afterEach(() => {
  silent = false;
  if (before === undefined) delete process.env.CAIRN_PG_TIMEOUT_MS;
  else process.env.CAIRN_PG_TIMEOUT_MS = before;
});

describe("PostgreSQL store: a server that goes silent", () => {
  it("fails the call in flight within its timeouts, saves nothing, and the next call reconnects", async () => {
    // The workspace is made first, under the usual timeouts: making one takes locks every
    // workspace on the server shares, which other suites running at once may hold for a while.
    const schema = `silent-${randomUUID()}`;
    const made = openStore({ kind: "postgres", url: testPgUrl(), schema }, { create: true });
    await made.read(async () => undefined);
    await made.close();
    // Statement timeout 600 ms, lock timeout 300 ms: the call is given up on soon after.
    process.env.CAIRN_PG_TIMEOUT_MS = "300";
    const store: Store = openStore({ kind: "postgres", url: proxy.url, schema });
    try {
      await store.write(async (tx) => {
        await tx.journal.append(event("before"));
      });
      silent = true;
      const started = Date.now();
      const outcome = await Promise.race([
        store
          .write(async (tx) => {
            await tx.journal.append(event("unheard"));
          })
          .then(
            () => "saved",
            (error: unknown) => error as Error,
          ),
        new Promise((resolve) => setTimeout(() => resolve("still waiting"), 8_000)),
      ]);
      expect(outcome).toBeInstanceOf(Error);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect((outcome as Error).message).toMatch(/PostgreSQL at 127\.0\.0\.1:\d+ stopped answering/);
      silent = false;
      const actions = await store.read(async (tx) => (await tx.journal.recent(10)).map((e) => e.action));
      expect(actions).toEqual(["before"]);
    } finally {
      await store.close();
    }
  });
});
