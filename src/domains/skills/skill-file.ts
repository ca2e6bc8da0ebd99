import { isUtf8 } from "node:buffer";
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from "node:fs";
import { join } from "node:path";
import { childPath } from "./entries.js";
import { openInside } from "./paths.js";

/**
 * Reading a skill's SKILL.md, its head for the catalog or its whole text for loading. The
 * common case, a regular SKILL.md in a folder whose real path is known, is opened directly with
 * O_NOFOLLOW (a link in its place fails to open) and O_NONBLOCK (a FIFO in its place cannot
 * stall the build), and judged by the descriptor's own stat. Anything else — a SKILL.md that is
 * a link, a file with more than one hard link, a swap between listing and open — goes through
 * `openInside`, which judges links.
 */

export interface SkillText {
  text: string;
  /** The whole file's size (the text may be only its head). */
  bytes: number;
}

/** A file that is not UTF-8 text: its skill is dropped with that reason. */
export class NotUtf8Error extends Error {}

const DIRECT = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

function openSkillFile(
  realDir: string,
  expected?: { ino: number; dev: number },
): { fd: number; size: number } {
  if (expected) {
    let fd: number | undefined;
    try {
      fd = openSync(join(realDir, "SKILL.md"), DIRECT);
      const stats = fstatSync(fd);
      if (stats.isFile() && stats.nlink === 1 && stats.ino === expected.ino && stats.dev === expected.dev) {
        return { fd, size: stats.size };
      }
    } catch {
      // A link, or gone: the general path below decides what that means.
    }
    if (fd !== undefined) closeSync(fd);
  }
  const opened = openInside(realDir, "SKILL.md");
  return { fd: opened.fd, size: opened.size };
}

/**
 * Where heads are read: one buffer for every catalog-sized read (the text is copied out of it),
 * rather than a fresh allocation outside Node's small-buffer pool for each of a thousand files.
 */
const scratch = Buffer.allocUnsafe(4 * 1024);

/**
 * Where a header opened by `---` and free of carriage returns ends: just after the first line
 * that is `---` or `...` (spaces and tabs after it allowed). -1 for anything else (no header,
 * CRLF, a BOM), which is decoded whole. A catalog needs no more of a described skill than its
 * header, and decoding only that spares a thousand-file build most of its garbage. The front
 * matter reader finds the very same header in the shorter text: such a line closes it there
 * too, and any close it finds first (after a U+2028, say) lies before it. The cut falls on a
 * line end, never inside a character.
 */
function headerEnd(bytes: Buffer): number {
  const length = bytes.length;
  if (length < 4 || bytes[0] !== 0x2d || bytes[1] !== 0x2d || bytes[2] !== 0x2d || bytes[3] !== 0x0a)
    return -1;
  if (bytes.indexOf(0x0d) !== -1) return -1;
  let start = 4;
  while (start < length) {
    const newline = bytes.indexOf(0x0a, start);
    const end = newline === -1 ? length : newline;
    const first = bytes[start];
    if (
      (first === 0x2d || first === 0x2e) &&
      end - start >= 3 &&
      bytes[start + 1] === first &&
      bytes[start + 2] === first
    ) {
      let rest = start + 3;
      while (rest < end && (bytes[rest] === 0x20 || bytes[rest] === 0x09)) rest++;
      if (rest === end) {
        return newline === -1 ? length : newline + 1;
      }
    }
    if (newline === -1) return -1;
    start = newline + 1;
  }
  return -1;
}

/** Up to `limit` bytes of an open SKILL.md of `size` bytes, cut before a split multi-byte character. */
function readHead(fd: number, size: number, limit: number, headerOnly = false): SkillText {
  const length = Math.min(size, limit);
  const buffer = length <= scratch.length ? scratch : Buffer.allocUnsafe(length);
  const read = readSync(fd, buffer, 0, length, 0);
  let end = read;
  if (size > read) {
    while (end > 0 && ((buffer[end - 1] as number) & 0xc0) === 0x80) end--;
    if (end > 0 && (buffer[end - 1] as number) >= 0xc0) end--;
  }
  const bytes = buffer.subarray(0, end);
  if (!isUtf8(bytes)) throw new NotUtf8Error("SKILL.md is not UTF-8 text");
  // A byte-order mark stays in the text: the front matter reader strips it with a warning.
  const header = headerOnly ? headerEnd(bytes) : -1;
  return { text: bytes.toString("utf8", 0, header === -1 ? bytes.length : header), bytes: size };
}

/** Up to `limit` bytes of SKILL.md as text, cut before a multi-byte character split at the edge. */
export function readSkillText(
  realDir: string,
  limit: number,
  expected?: { ino: number; dev: number },
): SkillText {
  const opened = openSkillFile(realDir, expected);
  try {
    return readHead(opened.fd, opened.size, limit);
  } finally {
    closeSync(opened.fd);
  }
}

/** What one look at a regular SKILL.md gave: its stat, and its head read at that stat (or why not). */
export interface SkillProbe {
  stats: Stats;
  head: SkillText | { error: unknown };
}

/**
 * A catalog build's one look at a SKILL.md it has not parsed before: opened directly, stat'ed
 * from the descriptor (the stamp the cache keeps is the one of the bytes read) and its head
 * read, four system calls. The text is the header alone when `headerEnd` finds one: a
 * skill it does not describe (no description, a header YAML rejects) reads as cut short, and
 * is read again longer, as any head that fell short is. Undefined when it is not a regular file opened that way (missing,
 * a link, a folder, a FIFO, unreadable, a file with more than one hard link): the caller takes the
 * general path, which judges each.
 */
export function probeSkillFile(realDir: string, limit: number): SkillProbe | undefined {
  let fd: number;
  try {
    fd = openSync(childPath(realDir, "SKILL.md"), DIRECT);
  } catch {
    return undefined;
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile() || stats.nlink > 1) return undefined;
    let head: SkillProbe["head"];
    try {
      head = readHead(fd, stats.size, limit, true);
    } catch (error) {
      head = { error };
    }
    return { stats, head };
  } finally {
    closeSync(fd);
  }
}
