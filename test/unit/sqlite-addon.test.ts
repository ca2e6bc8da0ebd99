import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { addonIn, packageRoot, sqliteAddon } from "../../src/kernel/sqlite-addon.js";
import { REPO_ROOT, scratchDir } from "../helpers/workspace.js";

describe("better-sqlite3's native addon", () => {
  it("is the installed build/Release addon, and opens a database", () => {
    const path = sqliteAddon();
    expect(path).toBe(
      join(REPO_ROOT, "node_modules", "better-sqlite3", "build", "Release", "better_sqlite3.node"),
    );
    const db = new Database(":memory:", { nativeBinding: path });
    expect(db.prepare("select 1 + 1 as two").get()).toEqual({ two: 2 });
    db.close();
  });

  it("is found by `bindings` from the package's own directory when it is not in build/Release", () => {
    const root = scratchDir("cairn-addon-");
    const pkg = join(root.dir, "better-sqlite3");
    mkdirSync(join(pkg, "build", "Debug"), { recursive: true });
    mkdirSync(join(pkg, "node_modules"));
    writeFileSync(join(pkg, "package.json"), '{"name":"better-sqlite3"}');
    writeFileSync(join(pkg, "build", "Debug", "better_sqlite3.node"), "");
    symlinkSync(join(REPO_ROOT, "node_modules", "bindings"), join(pkg, "node_modules", "bindings"));
    try {
      expect(addonIn(pkg)).toBe(join(pkg, "build", "Debug", "better_sqlite3.node"));
    } finally {
      root.cleanup();
    }
  });

  it("is looked for where Node resolves the package when no searched folder holds it", () => {
    const resolve = Object.assign(
      (request: string) => `/elsewhere/better-sqlite3/${request.split("/").at(-1)}`,
      {
        paths: () => ["/nonexistent/node_modules"],
      },
    );
    expect(packageRoot({ resolve })).toBe("/elsewhere/better-sqlite3");
    expect(packageRoot()).toBe(join(REPO_ROOT, "node_modules", "better-sqlite3"));
  });
});
