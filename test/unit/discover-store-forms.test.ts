import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  discoverWorkspace,
  namesStore,
  STORE_KEY,
  STORE_TABLE,
} from "../../src/domains/workspace/discover.js";
import { elapsed, randomTexts } from "../helpers/random-texts.js";
import { scratchDir } from "../helpers/workspace.js";

/**
 * A checkout whose cairn.toml names a shared store (and so has no database file of its own) is a
 * workspace whatever TOML form names it: discovery must not walk past it to a workspace above.
 */
describe("a shared store named in any TOML form", () => {
  const cleanups: (() => void)[] = [];
  afterEach(() => {
    for (const cleanup of cleanups.splice(0)) cleanup();
  });

  it.each([
    ["a table", '[store]\nurl = "postgres://u@h/db"\n'],
    ["an inline table", 'store = { url = "postgres://u@h/db", schema = "s" }\n'],
    ["dotted keys", 'store.url = "postgres://u@h/db"\nstore.schema = "s"\n'],
    ["a quoted key", '"store" = { url = "postgres://u@h/db" }\n'],
    ["a table with spaces", '[ store ]\nurl = "postgres://u@h/db"\n'],
  ])("%s makes the checkout a workspace", (_, toml) => {
    const scratch = scratchDir();
    cleanups.push(scratch.cleanup);
    // A workspace above, which discovery would otherwise find.
    mkdirSync(join(scratch.dir, ".cairn"));
    writeFileSync(join(scratch.dir, ".cairn", "cairn.db"), "");
    const checkout = join(scratch.dir, "team-checkout");
    mkdirSync(join(checkout, ".cairn"), { recursive: true });
    writeFileSync(join(checkout, ".cairn", "cairn.toml"), `${toml}[workspace]\nname = "x"\n`);
    expect(discoverWorkspace(join(checkout), {})?.root).toBe(checkout);
  });

  it("a store key inside another table, or only in a comment, names none", () => {
    expect(namesStore('[workspace]\nstore = "shelf"\n')).toBe(false);
    expect(namesStore('# store = { url = "x" }\n[workspace]\n')).toBe(false);
    expect(namesStore('[roles.store]\nsummary = "x"\n')).toBe(false);
  });
});

describe("a workspace found by walking up", () => {
  it("serves only the user who owns it; CAIRN_DIR names one deliberately", () => {
    const scratch = scratchDir();
    try {
      mkdirSync(join(scratch.dir, ".cairn"));
      writeFileSync(join(scratch.dir, ".cairn", "cairn.db"), "");
      const below = join(scratch.dir, "project", "src");
      mkdirSync(below, { recursive: true });
      expect(discoverWorkspace(below, {})?.root).toBe(scratch.dir);
      // As another user would see it: a .cairn/ planted in a shared parent (/tmp) is not theirs.
      const uid = process.getuid?.() ?? 0;
      const asOther = vi.spyOn(process, "getuid").mockReturnValue(uid + 1);
      try {
        expect(() => discoverWorkspace(below, {})).toThrow(/belongs to another user/);
        expect(discoverWorkspace(below, { CAIRN_DIR: scratch.dir })?.root).toBe(scratch.dir);
      } finally {
        asOther.mockRestore();
      }
    } finally {
      scratch.cleanup();
    }
  });
});

describe("a linked git worktree", () => {
  it("whose main checkout is gone serves no other workspace in its stead", () => {
    const scratch = scratchDir();
    try {
      mkdirSync(join(scratch.dir, ".cairn"));
      writeFileSync(join(scratch.dir, ".cairn", "cairn.db"), "");
      const worktree = join(scratch.dir, "feature");
      mkdirSync(worktree);
      writeFileSync(
        join(worktree, ".git"),
        `gitdir: ${join(scratch.dir, "gone", ".git", "worktrees", "feature")}\n`,
      );
      expect(() => discoverWorkspace(worktree, {})).toThrow(/linked git worktree .* is gone/);
      expect(discoverWorkspace(worktree, { CAIRN_DIR: scratch.dir })?.root).toBe(scratch.dir);
    } finally {
      scratch.cleanup();
    }
  });
});

describe("telling whether a cairn.toml names a store takes one pass", () => {
  const OLD_STORE_TABLE = /^\s*\[\s*["']?store["']?\s*[\].]/m;
  const OLD_STORE_KEY = /^\s*["']?store["']?\s*[.=]/m;

  it("says what the former patterns said, on 20,000 random files", () => {
    const pieces = ["store", "[", "]", ".", "=", '"', "'", " ", "\t", "\n", "\r", "\u2028", "x"];
    for (const text of randomTexts(20_000, pieces, 40)) {
      expect(STORE_TABLE.test(text), JSON.stringify(text)).toBe(OLD_STORE_TABLE.test(text));
      expect(STORE_KEY.test(text), JSON.stringify(text)).toBe(OLD_STORE_KEY.test(text));
    }
  });

  it("reads a cairn.toml of 5 MB of blank lines at once", () => {
    // The former patterns rescanned the blanks from every line start: 36 s at 100 000 blank
    // lines, hours at 5 MB, and every cairn command in the folder waited on it.
    const blank = "\n".repeat(5_000_000);
    expect(elapsed(() => expect(namesStore(blank)).toBe(false))).toBeLessThan(2_000);
    expect(elapsed(() => expect(namesStore(`${blank}[store]\n`)).toBe(true))).toBeLessThan(2_000);
  });
});
