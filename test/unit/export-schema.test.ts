import { describe, expect, it } from "vitest";
import { readsExportsOf } from "../../src/store/export-schema.js";
import { MIGRATIONS } from "../../src/store/sqlite/migrations/index.js";

describe("which exports a store imports", () => {
  it("its own schema, and older ones only across migrations that changed indexes alone", () => {
    const current = MIGRATIONS.length;
    expect(readsExportsOf(current, current)).toBe(true);
    for (let schema = 1; schema < current; schema++) {
      const since = MIGRATIONS.slice(schema);
      expect(readsExportsOf(schema, current), `schema ${schema}`).toBe(since.every((m) => m.indexOnly));
    }
    for (const never of [0, -1, current + 1, 1.5, Number.NaN])
      expect(readsExportsOf(never, current)).toBe(false);
  });

  it("marks as index only no migration that makes or changes a table", () => {
    for (const migration of MIGRATIONS.filter((m) => m.indexOnly)) {
      const statements = migration.sql
        .split(";")
        .map((part) => part.trim())
        .filter(Boolean);
      for (const statement of statements)
        expect(statement, migration.name).toMatch(/^(CREATE (UNIQUE )?INDEX|DROP INDEX)\b/i);
    }
  });
});
