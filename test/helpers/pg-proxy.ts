import { createServer, type Socket, connect as tcpConnect } from "node:net";
import { testPgUrl } from "./workspace.js";

/** One connection through the proxy: the store's side and the server's. */
export interface Proxied {
  client: Socket;
  server: Socket;
}

/** Whether each chunk passes, per direction; a filter may also cut the connection. */
export interface Filters {
  toServer(chunk: Buffer): boolean;
  toClient(chunk: Buffer): boolean;
}

/**
 * A TCP proxy in front of the run's PostgreSQL, for the store's network fault tests (a server
 * gone silent, a connection cut at COMMIT): `opened` gives each new connection its filters.
 * Returns the URL that reaches the server through it.
 */
export async function pgProxy(opened: (connection: Proxied) => Filters) {
  const upstream = new URL(testPgUrl());
  const sockets = new Set<Socket>();
  const proxy = createServer((client) => {
    const server = tcpConnect(Number(upstream.port || 5432), upstream.hostname);
    for (const socket of [client, server]) {
      sockets.add(socket);
      socket.on("error", () => {});
      socket.on("close", () => sockets.delete(socket));
    }
    const filters = opened({ client, server });
    client.on("data", (chunk: Buffer) => {
      if (filters.toServer(chunk)) server.write(chunk);
    });
    server.on("data", (chunk: Buffer) => {
      if (filters.toClient(chunk)) client.write(chunk);
    });
    client.on("close", () => server.destroy());
    server.on("close", () => client.destroy());
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  const url = new URL(upstream);
  url.port = String((proxy.address() as { port: number }).port);
  return {
    url: url.toString(),
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => proxy.close(resolve));
    },
  };
}
