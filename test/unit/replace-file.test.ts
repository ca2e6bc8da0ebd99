import { spawnSync } from "node:child_process";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { replaceFileSync } from "../../src/kernel/leftovers.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "cairn-replace-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("replaceFileSync", () => {
  it("removes the temporary a writer killed between write and rename left, and keeps a live writer's", () => {
    const file = join(dir, "cairn.toml");
    // A process that has ended: its pid runs no more (kill -9 left its temporary behind).
    const dead = spawnSync(process.execPath, ["-e", ""]).pid as number;
    writeFileSync(`${file}.${dead}.tmp`, "half a file");
    // The parent of this test runs: its temporary may be a write under way.
    writeFileSync(`${file}.${process.ppid}.tmp`, "a write under way");
    // Names that only start alike are not this file's temporaries.
    writeFileSync(`${file}.${dead}.tmp.keep`, "not ours");
    replaceFileSync(file, "whole\n");
    expect(readFileSync(file, "utf8")).toBe("whole\n");
    expect(readdirSync(dir).sort()).toEqual(
      ["cairn.toml", `cairn.toml.${dead}.tmp.keep`, `cairn.toml.${process.ppid}.tmp`].sort(),
    );
  });

  it("writes through no link planted at its temporary's name, and leaves the file a file", () => {
    const file = join(dir, "cairn.toml");
    const victim = join(dir, "victim");
    writeFileSync(victim, "untouched\n");
    symlinkSync(victim, `${file}.${process.pid}.tmp`);
    replaceFileSync(file, "whole\n");
    expect(readFileSync(victim, "utf8")).toBe("untouched\n");
    expect(lstatSync(file).isFile()).toBe(true);
    expect(readFileSync(file, "utf8")).toBe("whole\n");
  });

  it("leaves no temporary when the rename fails, and says why", () => {
    // A folder with something in it cannot be replaced by a file.
    const target = join(dir, "a-folder");
    mkdirSync(join(target, "inside"), { recursive: true });
    expect(() => replaceFileSync(target, "text")).toThrow(/EISDIR|ENOTEMPTY|EEXIST/);
    expect(existsSync(`${target}.${process.pid}.tmp`)).toBe(false);
  });
});
