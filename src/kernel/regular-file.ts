import { closeSync, constants, fstatSync, openSync, readFileSync, type Stats } from "node:fs";

/**
 * Open `path` only if it is a regular file. Opened with O_NONBLOCK and judged by the
 * descriptor's own stat: a FIFO in a file's place would otherwise hold the open or the read, and
 * the process with it (an MCP server, the daemon, a SIGTERM handler that cannot run during a
 * blocking call), until someone wrote to it. Anything but a regular file throws an error whose
 * `code` is "ENOTREG". O_NONBLOCK changes nothing for a regular file.
 */
export function openRegularFile(path: string, flags: number = constants.O_RDONLY, mode?: number): number {
  return openRegular(path, flags, mode).fd;
}

/** `openRegularFile`, with the descriptor's stat: what a reader of the bytes may trust them by. */
function openRegular(path: string, flags: number, mode?: number): { fd: number; stats: Stats } {
  const fd = openSync(path, flags | constants.O_NONBLOCK, mode);
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) {
      throw Object.assign(new Error(`${path} is not a regular file`), { code: "ENOTREG" });
    }
    return { fd, stats };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/**
 * A file's whole bytes, read only if it is a regular file (see `openRegularFile`), and never
 * through a symlink unless `follow`: what a check found to be a file when it looked may be
 * swapped for a FIFO or a link before it is read, and the descriptor is what is judged. One
 * larger than `maxBytes` is not read: its error's `code` is "ETOOBIG".
 */
export function readRegularBytes(
  path: string,
  { follow = false, maxBytes = Number.POSITIVE_INFINITY } = {},
): Buffer {
  return readRegular(path, follow, maxBytes).bytes;
}

function readRegular(path: string, follow: boolean, maxBytes: number): { bytes: Buffer; stats: Stats } {
  const { fd, stats } = openRegular(path, constants.O_RDONLY | (follow ? 0 : constants.O_NOFOLLOW));
  try {
    if (stats.size > maxBytes)
      throw Object.assign(new Error(`${path} is larger than ${maxBytes} bytes`), { code: "ETOOBIG" });
    return { bytes: readFileSync(fd), stats };
  } finally {
    closeSync(fd);
  }
}

/** A catalog file's whole text, read only if it is a regular file (see `openRegularFile`). */
export function readRegularFile(path: string): string {
  return readRegularBytes(path, { follow: true }).toString("utf8");
}

/**
 * `readRegularFile`, with the stat of the very file read, taken before its bytes were: a stamp
 * (kernel/stamp-cache.ts) for what was parsed from them, with no stat of the path of its own.
 */
export function readRegularFileStated(path: string): { text: string; stats: Stats } {
  const { bytes, stats } = readRegular(path, true, Number.POSITIVE_INFINITY);
  return { text: bytes.toString("utf8"), stats };
}
