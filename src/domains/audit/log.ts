import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  linkSync,
  lstatSync,
  readdirSync,
  readSync,
  renameSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { FileLock } from "../../kernel/file-lock.js";
import { operational } from "../../kernel/outcome.js";
import { openRegularFile } from "../../kernel/regular-file.js";
import {
  type Anchor,
  type AuditEntry,
  type AuditEvent,
  boundData,
  formatLine,
  GENESIS,
  parseLine,
} from "./chain.js";
import { endPending, interruptedCalls, recoveredLine } from "./pending.js";

/**
 * The audit log: `.cairn/audit.jsonl`, append-only, hash-chained (see chain.ts). Appends from
 * every cairn process on the machine are serialised by a lock held across read-the-tail and
 * append, so no two lines ever claim the same predecessor and none is lost; each append is
 * fsync'd before the lock is let go. Past `maxBytes` the live file is sealed under a dated name
 * and the new file opens with a seam entry linking to the sealed file's last hash.
 */

export const AUDIT_FILE = "audit.jsonl";
const LOCK_FILE = "audit.lock";
/** The next live file while a rotation writes its seam. */
const NEXT_FILE = "audit.next";
export const SEGMENT_PATTERN = /^audit-\d{8}T\d{6}(?:-\d+)?\.jsonl$/;
/** The last line is found in the file's tail; lines are far shorter than this. */
const TAIL_WINDOW = 64 * 1024;
/**
 * The log is opened only as a regular file: a FIFO planted in its place would make every
 * append's write, and `audit verify` or `audit tail`'s open, wait for a peer that never comes.
 */
const APPEND = constants.O_RDWR | constants.O_APPEND | constants.O_CREAT;
const LOG_MODE = 0o644;
export const DEFAULT_MAX_BYTES = 32 * 1024 * 1024;

export interface AuditOptions {
  /** Rotate once the live file is larger than this. */
  maxBytes?: number;
  now?: () => string;
}

/** The complete lines at the end of an open file (a torn, unterminated fragment excluded). */
function lastLines(fd: number, size: number, window = TAIL_WINDOW): { lines: string[]; torn: boolean } {
  if (size === 0) return { lines: [], torn: false };
  const length = Math.min(size, window);
  const buffer = Buffer.alloc(length);
  readSync(fd, buffer, 0, length, size - length);
  const text = buffer.toString("utf8");
  const torn = !text.endsWith("\n");
  const parts = text.split("\n");
  parts.pop();
  // The first part may be cut by the window.
  if (length < size) parts.shift();
  return { lines: parts, torn };
}

function tailOf(fd: number, size: number): { seq: number; hash: string; torn: boolean } | undefined {
  const { lines, torn } = lastLines(fd, size);
  for (let i = lines.length - 1; i >= 0; i--) {
    const parsed = parseLine(lines[i] as string);
    if (parsed.ok) return { seq: parsed.entry.seq, hash: parsed.entry.hash, torn };
  }
  return size > 0 ? { seq: 0, hash: GENESIS, torn } : undefined;
}

/**
 * Whether the file's last lines hold `anchor` and run from it to the last line, each linked to
 * the one before (the window's lines, so an anchor far behind the tail is not found).
 */
function runsFrom(fd: number, size: number, anchor: Anchor): boolean {
  const { lines } = lastLines(fd, size);
  let previous: AuditEntry | undefined;
  for (const line of lines) {
    const parsed = parseLine(line);
    if (!previous) {
      if (parsed.ok && parsed.entry.seq === anchor.seq && parsed.entry.hash === anchor.hash)
        previous = parsed.entry;
    } else if (!parsed.ok || parsed.entry.prev !== previous.hash || parsed.entry.seq !== previous.seq + 1) {
      return false;
    } else previous = parsed.entry;
  }
  return previous !== undefined;
}

function stamp(ts: string): string {
  return ts
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "")
    .replace("Z", "")
    .slice(0, 15);
}

const unauditable = (path: string, why: string) =>
  operational(
    `the audit log ${path} cannot be appended to (${why}): nothing was done, since every write is recorded`,
    "the owner puts the audit log back as a regular file (`cairn audit verify` checks it), then retries",
  );

export class AuditLog {
  readonly path: string;
  private readonly lock: FileLock;
  private readonly maxBytes: number;
  private readonly now: () => string;

  constructor(
    readonly stateDir: string,
    options: AuditOptions = {},
  ) {
    this.path = join(stateDir, AUDIT_FILE);
    this.lock = new FileLock(join(stateDir, LOCK_FILE));
    this.maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
    this.now = options.now ?? (() => new Date().toISOString());
  }

  /**
   * Append one event; returns the entry as written. `written` is told the entry while the lock is
   * still held, so what it keeps of the head (the machine's witness) follows the order of appends,
   * and `descends`, whether the new line's chain runs from an entry it kept: so it can tell a chain
   * grown from that entry from one cut and grown back anew.
   */
  append(
    event: AuditEvent,
    written?: (entry: AuditEntry, descends: (anchor: Anchor) => boolean) => void,
    settles?: string,
  ): AuditEntry {
    return this.lock.hold(() => {
      this.settleHeld();
      return this.appendHeld(event, written, settles);
    });
  }

  /**
   * Append the lines of calls whose process ended before appending their own (see pending.ts);
   * answers how many. Each append does it first; `audit verify` too, so a crash that no write
   * followed is in the log it checks.
   */
  settleInterrupted(): number {
    return this.lock.hold(() => this.settleHeld());
  }

  private settleHeld(): number {
    const interrupted = interruptedCalls(this.stateDir);
    for (const { file, event } of interrupted) {
      if (event) this.appendHeld(recoveredLine(event), undefined, file);
      else endPending(file);
    }
    return interrupted.length;
  }

  /** `settles`: the pending record of the call this line ends (pending.ts), gone once the line is. */
  private appendHeld(
    event: AuditEvent,
    written?: (entry: AuditEntry, descends: (anchor: Anchor) => boolean) => void,
    settles?: string,
  ): AuditEntry {
    const next = join(this.stateDir, NEXT_FILE);
    // A rotation without hard links cut short between its two renames: its seamed file goes live.
    if (!existsSync(this.path) && existsSync(next)) renameSync(next, this.path);
    let fd = openRegularFile(this.path, APPEND, LOG_MODE);
    try {
      let size = fstatSync(fd).size;
      let rotated: ReturnType<AuditLog["rotate"]> | undefined;
      if (size > this.maxBytes) {
        closeSync(fd);
        fd = -1;
        rotated = this.rotate();
        fd = openRegularFile(this.path, APPEND, LOG_MODE);
        size = fstatSync(fd).size;
      }
      const tail = tailOf(fd, size);
      // Past a rotation the line extends the sealed file's last entry, through the seam just written.
      const seamed = rotated && tail?.seq === rotated.seam.seq && tail.hash === rotated.seam.hash;
      const from = seamed ? rotated?.sealed : tail;
      const descends = (anchor: Anchor) =>
        (from?.seq === anchor.seq && from.hash === anchor.hash) || (!rotated && runsFrom(fd, size, anchor));
      const ts = this.now();
      const data = boundData(event.data);
      const seq = (tail?.seq ?? 0) + 1;
      const line = formatLine({ ...event, data }, seq, ts, tail?.hash ?? GENESIS);
      // A torn fragment left by a crash stays in the file; ours starts clean and links across it
      // to the entry before, which is how verify tells a torn write from an edit.
      const bytes = Buffer.from(`${tail?.torn ? "\n" : ""}${line}\n`);
      // A full disk or a file size limit (RLIMIT_FSIZE) takes part of the line and says so only
      // in the count: the part is cut off again, and the line is not taken for appended (nor
      // witnessed: the next line would then pass for a rewrite of it).
      let taken = 0;
      try {
        taken = writeSync(fd, bytes);
      } finally {
        if (taken < bytes.length) ftruncateSync(fd, size);
      }
      if (taken < bytes.length)
        throw operational(
          `the audit log ${this.path} took ${taken} of a line's ${bytes.length} bytes (the disk is full, or the file is at its size limit): the line was not appended`,
          "free disk space; the line of a call whose process has ended is appended by the next write",
        );
      // Before the fsync, which takes milliseconds: a process killed once the line is written keeps
      // it, and its record gone, the line is not appended again as interrupted.
      endPending(settles);
      fsyncSync(fd);
      const entry = { ...(parseLine(line) as { entry: AuditEntry }).entry };
      written?.(entry, descends);
      return entry;
    } finally {
      if (fd >= 0) closeSync(fd);
    }
  }

  /**
   * Refuse (operational) unless the live file is a regular file this process can append to:
   * checked before a write is done, so a write whose audit line could not be kept (a folder, a
   * link to /dev/null or a FIFO put in the log's place) does not happen at all.
   */
  assertWritable(): void {
    let fd: number;
    try {
      fd = openRegularFile(this.path, APPEND | constants.O_NOFOLLOW, LOG_MODE);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw unauditable(this.path, code === "ENOTREG" ? "not a regular file" : (code ?? String(error)));
    }
    closeSync(fd);
  }

  /**
   * Seal the live file under a dated name; the new live file opens with the linking seam. The
   * live name never goes missing nor starts without its seam: the sealed name is linked to the
   * live file first, the seam written to a side file, and that file renamed over the live one.
   * Killed at any step, the live file is still the whole old log (rotated again at the next
   * append, under the same sealed name) or the seamed new one. Answers the seam and the sealed
   * file's last entry, which it links to.
   */
  private rotate(): { seam: Anchor; sealed?: Anchor } {
    const fd = openRegularFile(this.path);
    let tail: ReturnType<typeof tailOf>;
    let live: { dev: number; ino: number };
    try {
      const stat = fstatSync(fd);
      live = { dev: stat.dev, ino: stat.ino };
      tail = tailOf(fd, stat.size);
    } finally {
      closeSync(fd);
    }
    const ts = this.now();
    // A rotation cut short left the sealed name linked to this very file: seal it under that name.
    let name = segmentsIn(this.stateDir).find((segment) => {
      try {
        const stat = lstatSync(join(this.stateDir, segment));
        return stat.isFile() && stat.dev === live.dev && stat.ino === live.ino;
      } catch {
        return false;
      }
    });
    // Where the file system has no hard links, the live file is renamed aside once the seamed
    // file is written; an append finding only that file puts it in place (see `append`).
    let linked = true;
    if (name === undefined) {
      for (let n = 0; ; n++) {
        const candidate = `audit-${stamp(ts)}${n === 0 ? "" : `-${n}`}.jsonl`;
        try {
          if (linked) linkSync(this.path, join(this.stateDir, candidate));
          else if (existsSync(join(this.stateDir, candidate))) continue;
          name = candidate;
          break;
        } catch (error) {
          const code = (error as NodeJS.ErrnoException).code;
          if (code === "EPERM" || code === "ENOTSUP" || code === "EOPNOTSUPP" || code === "ENOSYS") {
            linked = false;
            n--;
          } else if (code !== "EEXIST") throw error;
        }
      }
    }
    const seam = formatLine(
      {
        severity: "notice",
        event: "audit_rotated",
        actor: "cairn",
        data: { rotated_to: name, entries: tail?.seq ?? 0, tail_hash: tail?.hash ?? GENESIS },
      },
      (tail?.seq ?? 0) + 1,
      ts,
      tail?.hash ?? GENESIS,
    );
    const next = join(this.stateDir, NEXT_FILE);
    const out = openRegularFile(
      next,
      constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW,
      LOG_MODE,
    );
    try {
      writeSync(out, `${seam}\n`);
      fsyncSync(out);
    } finally {
      closeSync(out);
    }
    if (!linked) renameSync(this.path, join(this.stateDir, name));
    renameSync(next, this.path);
    const seamEntry = (parseLine(seam) as { entry: AuditEntry }).entry;
    return {
      seam: { seq: seamEntry.seq, hash: seamEntry.hash },
      sealed: tail && tail.seq > 0 ? { seq: tail.seq, hash: tail.hash } : undefined,
    };
  }

  /** The last `count` entries of the live file, oldest first (unparseable lines skipped). */
  tail(count: number): AuditEntry[] {
    if (!existsSync(this.path)) return [];
    const fd = openRegularFile(this.path);
    try {
      const size = fstatSync(fd).size;
      // Lines run up to MAX_LINE_BYTES: the window widens until it holds `count` of them.
      let window = Math.min(size, Math.max(TAIL_WINDOW, count * 2048));
      for (;;) {
        const entries = lastLines(fd, size, window)
          .lines.map(parseLine)
          .flatMap((parsed) => (parsed.ok ? [parsed.entry] : []));
        if (entries.length >= count || window >= size) return entries.slice(-count);
        window = Math.min(size, window * 2);
      }
    } finally {
      closeSync(fd);
    }
  }

  close(): void {
    this.lock.close();
  }
}

/** `audit-STAMP.jsonl` sorts before `audit-STAMP-1.jsonl`, sealed later in the same second. */
const segmentKey = (name: string) => {
  const [, stampPart = "", n = "0"] = /^audit-(\w+?)(?:-(\d+))?\.jsonl$/.exec(name) ?? [];
  return `${stampPart}-${n.padStart(6, "0")}`;
};

/** Sealed segments beside the live file, oldest first. */
export function segmentsIn(stateDir: string): string[] {
  try {
    return readdirSync(stateDir)
      .filter((name) => SEGMENT_PATTERN.test(name))
      .sort((a, b) => segmentKey(a).localeCompare(segmentKey(b)));
  } catch {
    return [];
  }
}
