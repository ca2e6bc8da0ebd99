import { describe, expect, it } from "vitest";
import { withoutStoreTable, withoutStoreTables } from "../../src/domains/transfer/store-table.js";
import { STORE_COMMENT } from "../../src/domains/workspace/init.js";
import { elapsed, randomTexts } from "../helpers/random-texts.js";

describe("importing the cairn.toml of a shared-store workspace", () => {
  it("drops the [store] table (the import names its own store) and keeps every other table", () => {
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

  it("takes the section's own comment with it, also where an earlier version wrote it above the table", () => {
    const url = 'url = "postgres://u@h:5432/db"\nschema = "s"\n';
    const now = `[workspace]\nname = "x"\n\n[store]\n${STORE_COMMENT}${url}`;
    const before = `[workspace]\nname = "x"\n\n${STORE_COMMENT}[store]\n${url}`;
    for (const config of [now, before]) {
      expect(withoutStoreTable(config)).toBe('[workspace]\nname = "x"\n\n');
    }
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

describe("cutting the store table out takes one pass", () => {
  const OLD_STORE_TABLES = /^[ \t]*\[[ \t]*["']?store["']?[ \t]*[\].][^\n]*\n?(?:(?!\s*\[)[^\n]*\n?)*/gm;

  it("cuts what the former pattern cut, on 20,000 random files", () => {
    const pieces = [
      "[store]\n",
      "[store.x]",
      "[",
      "]",
      "store",
      "x",
      "=",
      " ",
      "\t",
      "\n",
      "\n",
      "\r",
      "\u2028",
    ];
    for (const text of randomTexts(20_000, pieces, 40)) {
      expect(withoutStoreTables(text), JSON.stringify(text)).toBe(text.replace(OLD_STORE_TABLES, ""));
    }
  });

  it("cuts a store table followed by 5 MB of blank lines at once", () => {
    // The former pattern looked over all the blank lines after each one: 21 s at 100 000 blank
    // lines, hours at 5 MB.
    const blank = "\n".repeat(5_000_000);
    let kept = "";
    expect(elapsed(() => (kept = withoutStoreTables(`[store]\nurl = "x"\n${blank}[a]\n`)))).toBeLessThan(
      2_000,
    );
    expect(kept).toBe(`${blank}[a]\n`);
    expect(elapsed(() => (kept = withoutStoreTables(`[store]\n${blank}x = 1\n`)))).toBeLessThan(2_000);
    expect(kept).toBe("");
  });
});
