import type { TestProject } from "vitest/node";
import { type PgServer, startPostgres } from "./pg-server.js";

declare module "vitest" {
  export interface ProvidedContext {
    pgUrl: string;
  }
}

/**
 * One PostgreSQL for the whole run: embedded (started here, about half a second) unless
 * CAIRN_TEST_PG_URL names another server. Each test workspace lives in its own schema; on
 * another server they are left behind, so point it at a scratch database
 * (CAIRN_TEST_PG_URL=postgres://postgres@127.0.0.1:5432/cairn_test, Debian's PostgreSQL 15 passes).
 */
export default async function setup(project: TestProject) {
  let server: PgServer | undefined;
  const external = process.env.CAIRN_TEST_PG_URL;
  if (!external) server = await startPostgres();
  project.provide("pgUrl", external ?? (server as PgServer).url);
  return async () => {
    await server?.stop();
  };
}
