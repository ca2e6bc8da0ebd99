import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { defaultSchema } from "../../src/domains/workspace/store-location.js";
import { openStore } from "../../src/store/open.js";
import { checkSchemaName } from "../../src/store/postgres/location.js";
import { testPgUrl } from "../helpers/workspace.js";

/**
 * A new workspace's schema is its own: never PostgreSQL's system schemas (information_schema,
 * where a superuser's `cairn init` created the workspace's tables among the catalog's views;
 * pg_*, which the server refuses with a bare error 42939) nor cairn's shared cairn_extensions.
 */
const workspace = (root: string) => ({ root, databasePath: `${root}/.cairn/cairn.db` }) as never;

describe("workspace schema names", () => {
  for (const name of ["information_schema", "pg_tools", "cairn_extensions"]) {
    it(`a new workspace in ${name} is refused with a usage error, nothing created`, async () => {
      const store = openStore({ kind: "postgres", url: testPgUrl(), schema: name }, { create: true });
      try {
        await expect(store.read(async () => undefined)).rejects.toThrow(/not usable for a new workspace/);
      } finally {
        await store.close();
      }
    });
  }

  it("a directory named like a reserved schema gets a usable default", () => {
    for (const dir of ["pg_tools", "information_schema", "cairn_extensions"]) {
      const schema = defaultSchema(workspace(`/tmp/${dir}`));
      expect(schema).toBe(`w_${dir}`);
      expect(checkSchemaName(schema)).toBe(schema);
    }
    expect(defaultSchema(workspace(`/tmp/team-${randomUUID().slice(0, 4)}`))).toMatch(/^team-/);
  });
});
