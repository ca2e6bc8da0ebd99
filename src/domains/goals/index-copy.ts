/**
 * Copies of a git index file, for a git of cairn's own to read in place of the original. git
 * trusts an entry whose recorded stat matches its file only if the file changed before the index
 * was written; an entry whose file changed no earlier is racily clean, and git reads the file. So
 * what a copy makes git read depends on the time the copy carries, and every copy here sets it.
 */
import { closeSync, fstatSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { openRegularFile } from "../../kernel/regular-file.js";

/** One reading of an index: its bytes, and the time of that very file. */
export interface IndexReading {
  content: Buffer;
  mtime: Date;
}

/**
 * Read an index once, through one descriptor: git replaces an index by renaming a new file into
 * place, so the bytes and the time read are always of the same file. Null where there is none, or
 * where something other than a file stands in its place (a FIFO would have held the whole process
 * in its open until someone wrote to it; see `openRegularFile`).
 */
export function readIndex(path: string): IndexReading | null {
  let fd: number;
  try {
    fd = openRegularFile(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTREG") return null;
    throw error;
  }
  try {
    const mtime = fstatSync(fd).mtime;
    return { content: readFileSync(fd), mtime };
  } finally {
    closeSync(fd);
  }
}

/**
 * Write `reading` to `to`, dated:
 * - `"as-read"`: the index's own time, so git trusts what it would have trusted in the original.
 *   A copy dated now would pass for a later index and trust a file edited in the second the index
 *   was written. The time is the original's to the millisecond, never later (a Date drops the
 *   nanoseconds), so a copy never trusts more than the original did.
 * - `"epoch"`: the epoch's first second, so every entry is racily clean and git reads every file,
 *   taking no stat on trust.
 */
export function writeIndexCopy(to: string, reading: IndexReading, dated: "as-read" | "epoch"): void {
  writeFileSync(to, reading.content);
  const time = dated === "epoch" ? 1 : reading.mtime;
  utimesSync(to, time, time);
}
