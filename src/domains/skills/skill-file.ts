import { isUtf8 } from "node:buffer";
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { join } from "node:path";
import { openInside } from "./paths.js";

/**
 * Reading a skill's SKILL.md, its head for the catalog or its whole text for loading. The
 * common case, a regular SKILL.md in a folder whose real path is known, is opened directly with
 * O_NOFOLLOW (a link in its place fails to open) and checked by inode against the entry the
 * folder listing saw: two system calls where the general path (`openInside`: real path, stat,
 * open, fstat, real path again, stat again) takes six. Anything else — a SKILL.md that is a
 * link, a swap between listing and open — goes through `openInside`, which judges links.
 */

export interface SkillText {
  text: string;
  /** The whole file's size (the text may be only its head). */
  bytes: number;
}

/** A file that is not UTF-8 text: its skill is dropped with that reason. */
export class NotUtf8Error extends Error {}

function openSkillFile(
  realDir: string,
  expected?: { ino: number; dev: number },
): { fd: number; size: number } {
  if (expected) {
    let fd: number | undefined;
    try {
      fd = openSync(join(realDir, "SKILL.md"), constants.O_RDONLY | constants.O_NOFOLLOW);
      const stats = fstatSync(fd);
      if (stats.isFile() && stats.ino === expected.ino && stats.dev === expected.dev) {
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

/** Up to `limit` bytes of SKILL.md as text, cut before a multi-byte character split at the edge. */
export function readSkillText(
  realDir: string,
  limit: number,
  expected?: { ino: number; dev: number },
): SkillText {
  const opened = openSkillFile(realDir, expected);
  try {
    const length = Math.min(opened.size, limit);
    const buffer = Buffer.allocUnsafe(length);
    const read = readSync(opened.fd, buffer, 0, length, 0);
    let end = read;
    if (opened.size > read) {
      while (end > 0 && ((buffer[end - 1] as number) & 0xc0) === 0x80) end--;
      if (end > 0 && (buffer[end - 1] as number) >= 0xc0) end--;
    }
    const bytes = buffer.subarray(0, end);
    if (!isUtf8(bytes)) throw new NotUtf8Error("SKILL.md is not UTF-8 text");
    // A byte-order mark stays in the text: the front matter reader strips it with a warning.
    return { text: bytes.toString("utf8"), bytes: opened.size };
  } finally {
    closeSync(opened.fd);
  }
}
