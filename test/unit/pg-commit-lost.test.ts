import { randomUUID } from "node:crypto";
import { createServer, type Server, type Socket, connect as tcpConnect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/open.js";
import type { Store } from "../../src/store/store.js";
import { journalEvent as event } from "../helpers/contract-stores.js";
import { testPgUrl } from "../helpers/workspace.js";

/**
 * A connection lost while COMMIT is on its way: the server may have committed, so the caller is
 * told the change may have been saved (and to look before retrying), never that nothing was.
 * A proxy between the store and the server forwards COMMIT, lets the server answer it, and cuts
 * both sides before the answer reaches the store.
 */

let proxy: Server;
let proxyPort = 0;
let cutAtCommit = false;
const sockets = new Set<Socket>();

beforeAll(async () => {
  const upstream = new URL(testPgUrl());
  proxy = createServer((client) => {
    const server = tcpConnect(Number(upstream.port || 5432), upstream.hostname);
    for (const socket of [client, server]) {
      sockets.add(socket);
      socket.on("error", () => {});
      socket.on("close", () => sockets.delete(socket));
    }
    let cut = false;
    client.on("data", (chunk) => {
      server.write(chunk);
      if (cutAtCommit && !cut && chunk.includes("COMMIT")) {
        cut = true;
        cutAtCommit = false;
        // The server commits; its answer never reaches the store.
        setTimeout(() => {
          client.destroy();
          server.destroy();
        }, 300);
      }
    });
    server.on("data", (chunk) => {
      if (!cut) client.write(chunk);
    });
    client.on("close", () => server.destroy());
    server.on("close", () => client.destroy());
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  proxyPort = (proxy.address() as { port: number }).port;
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => proxy.close(resolve));
});

describe("PostgreSQL store: the connection lost at COMMIT", () => {
  it("says the change may have been saved, and it was", async () => {
    const schema = `commit-lost-${randomUUID()}`;
    const viaProxy = new URL(testPgUrl());
    viaProxy.port = String(proxyPort);
    const store: Store = openStore({ kind: "postgres", url: viaProxy.toString(), schema }, { create: true });
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
