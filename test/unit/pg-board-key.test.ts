import { describe, expect, it } from "vitest";
import { boardKey } from "../../src/domains/workspace/store-location.js";

/**
 * A process cairn started is refused the owner's powers on the board it was started for, which
 * it names by boardKey. A PostgreSQL board reached by another spelling of the same server (an
 * IPv4 shorthand, localhost, a host or port parameter, an escaped database name, no database at
 * all) is the same board: a verify command an agent wrote ran `cairn` as the owner through
 * `postgres://127.1:PORT/postgres` where the workspace said `127.0.0.1`.
 */
const key = (url: string, schema = "team", env: NodeJS.ProcessEnv = {}) =>
  boardKey({ kind: "postgres", url, schema }, env);

describe("one board key per PostgreSQL workspace, however the server is spelt", () => {
  const canonical = key("postgres://cairn@127.0.0.1:5432/postgres");
  for (const url of [
    "postgres://cairn@127.1:5432/postgres",
    "postgres://cairn@localhost/postgres",
    "postgresql://other:pw@[::1]:5432/postgres",
    "postgres://cairn@db.example/postgres?host=127.0.0.1",
    "postgres://cairn@127.0.0.1:1/postgres?port=5432",
    "postgres://cairn@127.0.0.1:5432/%70ostgres",
    "postgres://postgres@127.0.0.1:5432",
    "postgres://cairn@127.0.0.1:5432/postgres?schema=team",
  ]) {
    it(url, () => expect(key(url)).toBe(canonical));
  }

  it("no database in the URL: PGDATABASE, else the user, as the driver connects", () => {
    expect(key("postgres://127.0.0.1", "team", { PGDATABASE: "postgres" })).toBe(canonical);
    expect(key("postgres://127.0.0.1", "team", { PGUSER: "postgres" })).toBe(canonical);
  });

  it("another database or schema is another board", () => {
    expect(key("postgres://cairn@127.0.0.1:5432/other")).not.toBe(canonical);
    expect(key("postgres://cairn@127.0.0.1:5432/postgres", "Team")).not.toBe(canonical);
  });
});
