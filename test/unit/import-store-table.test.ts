import { describe, expect, it } from "vitest";
import { withoutStoreTable } from "../../src/domains/transfer/transfer.js";

describe("importing the cairn.toml of a shared-store workspace", () => {
  it("drops the [store] table (the import is a local SQLite store) and keeps every other table", () => {
    const config =
      '[workspace]\nname = "x"\n# [store] in a comment stays\n\n[store]\nurl = "postgres://u@h:5432/db"\nschema = "s"\n\n[roles.b]\nsummary = "y"\n';
    const kept = withoutStoreTable(config);
    expect(kept).not.toMatch(/^\[store\]/m);
    expect(kept).not.toContain("postgres://");
    expect(kept).toBe(
      '[workspace]\nname = "x"\n# [store] in a comment stays\n\n\n[roles.b]\nsummary = "y"\n',
    );
    expect(withoutStoreTable('[workspace]\nname = "x"\n')).toBe('[workspace]\nname = "x"\n');
  });
});
