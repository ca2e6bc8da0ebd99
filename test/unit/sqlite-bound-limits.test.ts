import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../helpers/workspace.js";

/**
 * SQLite as better-sqlite3 12 bundles it (3.53) reads a LIMIT or OFFSET that is a bare bound
 * parameter when it plans the statement, and compiles the statement again whenever that
 * parameter is bound, which better-sqlite3 does at every run: a profile shows the time in
 * sqlite3Reprepare under each run. Every `LIMIT ?` read was parsed and planned anew each time:
 * ~14 µs for a one-row lookup, ~90 µs for a brief's decisions, a tenth of a brief in all.
 * `LIMIT +?` is the same value as an expression, planned once, like a literal. This holds every
 * statement in the SQLite store to that form.
 */
const SQLITE_SOURCES = join(REPO_ROOT, "src", "store", "sqlite");
// SQL keywords are upper case throughout; `${…}` splices a number into the text, not a parameter.
const BARE_BOUND = /\b(LIMIT|OFFSET)\s+(?:\(\s*)*(?:\?\d*|[@:]\w+|\$(?!\{)\w+)/g;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

function bareBoundLimits(source: string): string[] {
  return [...source.matchAll(BARE_BOUND)].map((match) => match[0]);
}

describe("bound LIMIT and OFFSET in SQLite statements", () => {
  it("finds the forms SQLite compiles again at every run, and passes the one it plans once", () => {
    expect(bareBoundLimits("SELECT 1 FROM t ORDER BY seq LIMIT ?")).toEqual(["LIMIT ?"]);
    expect(bareBoundLimits("... LIMIT @limit OFFSET @offset")).toEqual(["LIMIT @limit", "OFFSET @offset"]);
    expect(bareBoundLimits("... LIMIT (?)")).toEqual(["LIMIT (?"]);
    expect(bareBoundLimits("... LIMIT $n OFFSET ?2")).toEqual(["LIMIT $n", "OFFSET ?2"]);
    expect(bareBoundLimits("... LIMIT +? OFFSET +@offset")).toEqual([]);
    expect(bareBoundLimits(["... LIMIT 20 OFFSET $", "{COMMON_DOCS}"].join(""))).toEqual([]);
  });

  it("binds every LIMIT and OFFSET of the SQLite store as an expression", () => {
    const found = sources(SQLITE_SOURCES).flatMap((path) =>
      bareBoundLimits(readFileSync(path, "utf8")).map((form) => `${relative(REPO_ROOT, path)}: ${form}`),
    );
    expect(found).toEqual([]);
  });
});
