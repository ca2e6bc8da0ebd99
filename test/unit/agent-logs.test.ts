import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { LOG_LINE_CHARS, Tail, tailFile } from "../../src/domains/agents/logs.js";
import { scratchDir } from "../helpers/workspace.js";

const scratch = scratchDir();
afterAll(() => scratch.cleanup());

describe("agents logs' tail of a run's log", () => {
  it("returns as many whole lines as asked, however long they are", () => {
    const path = join(scratch.dir, "wide.log");
    const line = (i: number) => `line ${String(i).padStart(4, "0")} ${"0".repeat(900)}`;
    writeFileSync(path, `${Array.from({ length: 500 }, (_, i) => line(i)).join("\n")}\n`);
    const lines = tailFile(path, 400);
    expect(lines).toHaveLength(400);
    // Whole lines only: the first is line 100 from its start, never the end of line 99.
    expect(lines[0]).toBe(line(100));
    expect(lines.at(-1)).toBe(line(499));
  });

  it("cuts a line that never ends, and says so", () => {
    const path = join(scratch.dir, "endless.log");
    writeFileSync(path, `first\n${"x".repeat(3 * 1024 * 1024)}`);
    const lines = tailFile(path, 40);
    expect(lines).toHaveLength(1);
    expect(lines[0]?.length).toBeLessThan(LOG_LINE_CHARS + 100);
    expect(lines[0]).toMatch(/more characters on this line\]$/);
  });
});

describe("what a run's output shows other agents", () => {
  // Another agent's token, as a run that read it from a file or from /proc would print it.
  const token = `cairn_${"A1b2-C3d4_".repeat(4)}xyz`;

  it("masks anything shaped like an agent token in a log's lines", () => {
    const path = join(scratch.dir, "leaky.log");
    writeFileSync(path, `found: ${token}\n`);
    expect(tailFile(path, 40)).toEqual(["found: cairn_[redacted]"]);
  });

  it("masks it in the tails kept for a run's result, its row and its progress", () => {
    const tail = new Tail(64);
    tail.push(Buffer.from(`err: ${token}\n`));
    expect(tail.text()).toBe("err: cairn_[redacted]\n");
    expect(tail.lastLine()).not.toContain(token);
  });
});
