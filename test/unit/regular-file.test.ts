import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { hashInputFile, hashWorkFile } from "../../src/domains/goals/git.js";
import { readRegularBytes } from "../../src/kernel/regular-file.js";
import { fifoOpenedLate, scratchDir } from "../helpers/workspace.js";

/**
 * What a check reads of a checkout is judged by the descriptor it reads through: a FIFO in a file's
 * place is refused at once rather than held open (which would hold the whole process), and a link
 * is not followed unless asked.
 */
describe("reading a file only if it is one", () => {
  let scratch: { dir: string; cleanup: () => void };
  const at = (name: string) => join(scratch.dir, name);
  beforeEach(() => {
    scratch = scratchDir("cairn-regular-");
  });
  afterEach(() => scratch.cleanup());

  it("reads a file, refuses a FIFO at once, and follows a link only when told to", () => {
    writeFileSync(at("file"), "content\n");
    symlinkSync("file", at("link"));
    const endWriter = fifoOpenedLate(at("fifo"));
    try {
      const started = performance.now();
      expect(() => readRegularBytes(at("fifo"))).toThrow(expect.objectContaining({ code: "ENOTREG" }));
      expect(() => readRegularBytes(at("fifo"), { follow: true })).toThrow(
        expect.objectContaining({ code: "ENOTREG" }),
      );
      expect(performance.now() - started).toBeLessThan(1_000);
    } finally {
      endWriter();
    }
    expect(readRegularBytes(at("file")).toString()).toBe("content\n");
    expect(() => readRegularBytes(at("link"))).toThrow(expect.objectContaining({ code: "ELOOP" }));
    expect(readRegularBytes(at("link"), { follow: true }).toString()).toBe("content\n");
  });

  it("hashes a FIFO, or a folder holding one, without waiting on it", () => {
    mkdirSync(at("folder"));
    writeFileSync(at("folder/a.txt"), "a\n");
    const endWriters = [fifoOpenedLate(at("fifo")), fifoOpenedLate(at("folder/fifo"))];
    symlinkSync("fifo", at("to-fifo"));
    try {
      const started = performance.now();
      expect(hashWorkFile(scratch.dir, "fifo")).toBe("absent");
      expect(hashInputFile(scratch.dir, "to-fifo")).toMatch(/^sha256:/);
      expect(hashWorkFile(scratch.dir, "folder")).toMatch(/^sha256:/);
      expect(performance.now() - started).toBeLessThan(1_000);
    } finally {
      for (const end of endWriters) end();
    }
  });
});
