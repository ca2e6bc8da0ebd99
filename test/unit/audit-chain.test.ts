import { linkSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { boundData, GENESIS, MAX_LINE_BYTES, parseLine } from "../../src/domains/audit/chain.js";
import { AUDIT_FILE, AuditLog, segmentsIn } from "../../src/domains/audit/log.js";
import { verifyAudit } from "../../src/domains/audit/verify.js";
import { scratchDir } from "../helpers/workspace.js";

let scratch: { dir: string; cleanup: () => void };
beforeEach(() => {
  scratch = scratchDir("cairn-audit-");
});
afterEach(() => scratch.cleanup());

const event = (n: number) => ({
  severity: "info" as const,
  event: "command",
  actor: "owner",
  data: { command: "task add", input: { title: `task ${n} — é ✓` } },
});

function fill(count: number, options: { maxBytes?: number } = {}): AuditLog {
  const log = new AuditLog(scratch.dir, options);
  for (let i = 0; i < count; i++) log.append(event(i));
  return log;
}

describe("audit chain", () => {
  it("links the first line to the genesis and each next line to the one before", () => {
    fill(3).close();
    const lines = readFileSync(join(scratch.dir, AUDIT_FILE), "utf8").trimEnd().split("\n");
    const entries = lines.map((line) => {
      const parsed = parseLine(line);
      if (!parsed.ok) throw new Error(parsed.reason);
      return parsed.entry;
    });
    expect(entries.map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(entries[0]?.prev).toBe(GENESIS);
    expect(entries[1]?.prev).toBe(entries[0]?.hash);
    expect(entries[2]?.prev).toBe(entries[1]?.hash);
    expect(verifyAudit(scratch.dir)).toMatchObject({ ok: true, entries: 3, from: "genesis" });
  });

  it("detects a one-byte change at every byte of the log, naming a line at or after the edit", () => {
    fill(4).close();
    const path = join(scratch.dir, AUDIT_FILE);
    const original = readFileSync(path);
    const lineOf = (offset: number) => original.subarray(0, offset).toString("utf8").split("\n").length;
    let checked = 0;
    for (let offset = 0; offset < original.length; offset++) {
      const edited = Buffer.from(original);
      // Every byte, changed to a different printable one (a newline becomes a space).
      edited[offset] = edited[offset] === 0x41 ? 0x42 : 0x41;
      writeFileSync(path, edited);
      const verdict = verifyAudit(scratch.dir);
      expect(verdict.ok, `edit at byte ${offset} went unnoticed`).toBe(false);
      expect(verdict.broken?.line).toBeGreaterThanOrEqual(Math.min(lineOf(offset), 4));
      checked++;
    }
    // Removing a byte, and adding one at the end, are caught too.
    writeFileSync(path, original.subarray(0, original.length - 1));
    expect(verifyAudit(scratch.dir).broken).toMatchObject({ line: 4 });
    writeFileSync(path, Buffer.concat([original, Buffer.from("x")]));
    expect(verifyAudit(scratch.dir).broken).toMatchObject({ line: 5 });
    expect(checked).toBe(original.length);
  });

  it("names the first broken line when a middle line is removed or two are swapped", () => {
    fill(5).close();
    const path = join(scratch.dir, AUDIT_FILE);
    const lines = readFileSync(path, "utf8").trimEnd().split("\n");
    writeFileSync(path, `${[...lines.slice(0, 2), ...lines.slice(3)].join("\n")}\n`);
    expect(verifyAudit(scratch.dir).broken).toMatchObject({ file: AUDIT_FILE, line: 3 });
    const swapped = [lines[0], lines[2], lines[1], lines[3], lines[4]];
    writeFileSync(path, `${swapped.join("\n")}\n`);
    expect(verifyAudit(scratch.dir).broken).toMatchObject({ line: 2 });
  });

  it("rotates past its size with a seam linking to the sealed segment; verify walks both", () => {
    const log = fill(30, { maxBytes: 2_000 });
    log.close();
    const segments = segmentsIn(scratch.dir);
    expect(segments.length).toBeGreaterThan(2);
    const verdict = verifyAudit(scratch.dir);
    expect(verdict).toMatchObject({ ok: true, from: "genesis" });
    // Every append is kept, plus one seam per rotation.
    expect(verdict.entries).toBe(30 + segments.length);
    const live = readFileSync(join(scratch.dir, AUDIT_FILE), "utf8").split("\n")[0] as string;
    const seam = parseLine(live);
    expect(seam.ok && seam.entry.event).toBe("audit_rotated");
    // An edit inside a sealed segment is found, in that segment.
    const oldest = join(scratch.dir, segments[0] as string);
    writeFileSync(oldest, readFileSync(oldest, "utf8").replace("task 1 ", "task 9 "));
    expect(verifyAudit(scratch.dir).broken).toMatchObject({ file: segments[0], line: 2 });
  });

  it("a rotation killed midway neither starts a fresh chain nor passes verify with one", () => {
    fill(8).close();
    const live = join(scratch.dir, AUDIT_FILE);
    // Killed after the sealed name was linked, before the seamed file replaced the live one:
    // the next append seals the same file under that name, and the chain stays whole.
    const sealed = "audit-20260101T000000.jsonl";
    linkSync(live, join(scratch.dir, sealed));
    const before = segmentsIn(scratch.dir).length;
    fill(1, { maxBytes: 2_000 }).close();
    expect(segmentsIn(scratch.dir)).toHaveLength(before);
    expect(readFileSync(live, "utf8")).toContain(`"rotated_to":"${sealed}"`);
    expect(verifyAudit(scratch.dir)).toMatchObject({ ok: true, from: "genesis" });
    // Without hard links, killed between renaming the live file aside and putting the seamed one
    // in its place: the next append puts the seamed file in place first.
    const seam = `${readFileSync(live, "utf8").split("\n")[0] as string}\n`;
    rmSync(live);
    writeFileSync(join(scratch.dir, "audit.next"), seam);
    fill(1, { maxBytes: 2_000 }).close();
    expect(readFileSync(live, "utf8").startsWith(seam)).toBe(true);
    expect(verifyAudit(scratch.dir)).toMatchObject({ ok: true, from: "genesis" });
    // The old order's cut (live renamed aside, no seam written): a fresh chain is not intact.
    renameSync(live, join(scratch.dir, "audit-20990101T000000.jsonl"));
    fill(2).close();
    expect(verifyAudit(scratch.dir)).toMatchObject({ ok: false, broken: { file: AUDIT_FILE, line: 1 } });
  });

  it("bounds any data to the line's cap and keeps the words naming the event, however deep the rest", () => {
    // Wider than the members a cut keeps (40 by 40 long strings: too long after the first cut and
    // the second), and deeper than any cut walks (eight levels): forty members at each of four
    // levels, 2.5 million leaves, took 9 s to build and said no more.
    const level = (depth: number, width: number): unknown =>
      depth === 0
        ? "y".repeat(5_000)
        : Object.fromEntries(Array.from({ length: width }, (_, n) => [`k${n}`, level(depth - 1, width)]));
    const data = {
      command: "task add",
      outcome: "refused",
      policy: "ownership",
      input: { wide: level(2, 40), deep: level(8, 2) },
    };
    const bounded = boundData(data);
    expect(bounded).toMatchObject({ command: "task add", outcome: "refused", policy: "ownership" });
    expect(Buffer.byteLength(JSON.stringify(bounded))).toBeLessThanOrEqual(MAX_LINE_BYTES / 2);
    // Many words past their limit are each cut, not replaced by one digest.
    const wide = Object.fromEntries(Array.from({ length: 100 }, (_, n) => [`f${n}`, "é".repeat(3_000)]));
    const cut = boundData({ command: "note add", ...wide });
    expect(cut.command).toBe("note add");
    expect(Buffer.byteLength(JSON.stringify(cut))).toBeLessThanOrEqual(MAX_LINE_BYTES / 2);
  });

  it("tail returns as many entries as asked, however long their lines", () => {
    const log = new AuditLog(scratch.dir);
    const wide = Object.fromEntries(Array.from({ length: 7 }, (_, i) => [`k${i}`, "w".repeat(1_000)]));
    for (let i = 0; i < 30; i++) log.append({ ...event(i), data: { n: i, ...wide } });
    const tail = log.tail(20);
    log.close();
    expect(tail.map((entry) => entry.data.n)).toEqual(Array.from({ length: 20 }, (_, i) => i + 10));
  });

  it("keeps appending after a torn last line, and verify names the torn line the chain runs across", () => {
    fill(2).close();
    const path = join(scratch.dir, AUDIT_FILE);
    writeFileSync(path, `${readFileSync(path, "utf8")}{"seq":3,"ts":"2026`);
    expect(verifyAudit(scratch.dir).broken).toMatchObject({ line: 3 });
    fill(1).close();
    const text = readFileSync(path, "utf8");
    expect(text.endsWith("\n")).toBe(true);
    expect(verifyAudit(scratch.dir)).toMatchObject({ ok: true, entries: 3, torn: [{ line: 3 }] });
    // Torn again by the next writer: both fragments are crossed by the line after them.
    writeFileSync(path, `${readFileSync(path, "utf8")}{"seq":4,"ts"`);
    writeFileSync(path, `${readFileSync(path, "utf8")}\n{"seq":4,"ts":"20`);
    fill(1).close();
    expect(verifyAudit(scratch.dir)).toMatchObject({
      ok: true,
      entries: 4,
      torn: [{ line: 3 }, { line: 5 }, { line: 6 }],
    });
  });
});
