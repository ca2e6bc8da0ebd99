import { lstatSync, mkdirSync, readdirSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { crypto } from "../../kernel/builtins.js";
import { ownProcessStart, sameProcessAlive } from "../../kernel/processes.js";
import { readRegularBytes } from "../../kernel/regular-file.js";
import { type AuditEvent, SEVERITIES } from "./chain.js";

/**
 * A write call under way, kept as a file in `.cairn/audit-pending/` from before its handler runs
 * until its audit line is appended. A call's write commits before its line is appended: a process
 * killed in between (kill -9, a crash, the OOM killer) kept the write and lost the line. The next
 * append by any cairn process, under the log's lock, finds the file of a process that runs no
 * more and appends the line for it, its outcome `interrupted`: whether the call changed anything
 * the journal says, and the log no longer leaves a change unrecorded. The file goes just after its
 * own line is written, under the lock: a process killed between the two gets a second line, the
 * interrupted one, after its real one (at least once, never lost).
 */

const PENDING_DIR = "audit-pending";
const FORMAT = "cairn-audit-pending/1";

interface PendingRecord {
  format: typeof FORMAT;
  pid: number;
  start: string | null;
  /** The line to append if the call's process ends before it appends its own. */
  event: AuditEvent;
}

/** Record a call about to run; the file to remove once its line is written (undefined: not kept). */
export function beginPending(stateDir: string, event: AuditEvent): string | undefined {
  const dir = join(stateDir, PENDING_DIR);
  const file = join(dir, `${process.pid}-${crypto().randomBytes(6).toString("hex")}.json`);
  const record: PendingRecord = { format: FORMAT, pid: process.pid, start: ownProcessStart(), event };
  const text = JSON.stringify(record);
  try {
    try {
      writeFileSync(file, text, { flag: "wx", mode: 0o600 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      mkdirSync(dir, { recursive: true });
      writeFileSync(file, text, { flag: "wx", mode: 0o600 });
    }
    return file;
  } catch {
    // Unkept (created but not written, on a full disk), the call runs as before: its line is
    // still appended when it ends.
    endPending(file);
    return undefined;
  }
}

/** Remove a call's record: one unlink (rmSync loads its own module at first use, milliseconds). */
export function endPending(file: string | undefined): void {
  if (!file) return;
  try {
    unlinkSync(file);
  } catch {
    // Gone already (settled by its line, then by the call's end).
  }
}

/**
 * The calls whose process ended before appending their line, each with the file to remove once
 * the line is written. A file that does not parse was being written when its process died, before
 * its call ran: it goes with nothing to append.
 */
export function interruptedCalls(stateDir: string): { file: string; event?: AuditEvent }[] {
  const dir = join(stateDir, PENDING_DIR);
  let names: string[];
  try {
    // Only the folder itself: a link put in its place would have records read, and removed, elsewhere.
    if (!lstatSync(dir).isDirectory()) return [];
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const found: { file: string; event?: AuditEvent }[] = [];
  for (const name of names.sort()) {
    const named = /^(\d+)-[0-9a-f]+\.json$/.exec(name);
    // This process's own calls are under way.
    if (!named || Number(named[1]) === process.pid) continue;
    const file = join(dir, name);
    const record = readRecord(file);
    const pid = record?.pid ?? Number(named[1]);
    if (pid === process.pid || sameProcessAlive(pid, record?.start ?? null)) continue;
    found.push({ file, event: record?.event });
  }
  return found;
}

/** A record is a few kilobytes (its input is bounded): anything larger is not one cairn wrote. */
const MAX_RECORD_BYTES = 64 * 1024;

function readRecord(file: string): PendingRecord | undefined {
  try {
    // A regular file, not followed through a link, read only if it is a record's size.
    const text = readRegularBytes(file, { maxBytes: MAX_RECORD_BYTES }).toString("utf8");
    const record = JSON.parse(text) as PendingRecord;
    const { event } = record;
    if (
      record.format !== FORMAT ||
      !Number.isSafeInteger(record.pid) ||
      typeof event?.event !== "string" ||
      typeof event.actor !== "string" ||
      !SEVERITIES.includes(event.severity) ||
      typeof event.data !== "object" ||
      event.data === null
    )
      return undefined;
    return record;
  } catch {
    return undefined;
  }
}

/**
 * The line appended for an interrupted call, from its record. The record is a file any process
 * that can write `.cairn/` could have planted: cairn appends it as its own line (`actor: cairn`),
 * naming the caller only as the record claims it, so a planted record frames no one.
 */
export function recoveredLine(event: AuditEvent): AuditEvent {
  return {
    severity: event.severity,
    event: event.event,
    actor: RECOVERED_BY,
    data: {
      ...event.data,
      outcome: "interrupted",
      caller_claimed: event.actor,
      recovered:
        "from the call's record in .cairn/audit-pending, kept before it ran: the caller is as that file says, which whatever can write .cairn could have written",
    },
  };
}

/** Who appends a recovered line: cairn itself, not the caller its record names. */
export const RECOVERED_BY = "cairn";
