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

  it("drops an inline or dotted top-level store too; refuses one it cannot cut out", () => {
    const inline = 'store = { url = "postgres://u@h/db", schema = "s" }\n[workspace]\nname = "x"\n';
    expect(withoutStoreTable(inline)).toBe('[workspace]\nname = "x"\n');
    const dotted = 'store.url = "postgres://u@h/db"\n"store".schema = "s"\n[roles.b]\nsummary = "y"\n';
    expect(withoutStoreTable(dotted)).toBe('[roles.b]\nsummary = "y"\n');
    const subtable = '[store.extra]\nx = 1\n[roles.b]\nsummary = "y"\n';
    expect(withoutStoreTable(subtable)).toBe('[roles.b]\nsummary = "y"\n');
    // A key named store inside another table is that table's: it stays.
    expect(withoutStoreTable('[workspace]\nstore = "shelf"\n')).toBe('[workspace]\nstore = "shelf"\n');
    // A multi-line string whose later line sets the store: cut the first line, the rest still names it.
    expect(() => withoutStoreTable('store = {\n url = "postgres://u@h/db" }\n')).toThrow(/cannot be cut out/);
  });
});
