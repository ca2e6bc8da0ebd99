import { closeSync, constants, fstatSync, openSync, readFileSync } from "node:fs";

/**
 * Open `path` only if it is a regular file. Opened with O_NONBLOCK and judged by the
 * descriptor's own stat: a FIFO in a file's place would otherwise hold the open or the read, and
 * the process with it (an MCP server, the daemon, a SIGTERM handler that cannot run during a
 * blocking call), until someone wrote to it. Anything but a regular file throws an error whose
 * `code` is "ENOTREG". O_NONBLOCK changes nothing for a regular file.
 */
export function openRegularFile(path: string, flags: number = constants.O_RDONLY, mode?: number): number {
  const fd = openSync(path, flags | constants.O_NONBLOCK, mode);
  try {
    if (!fstatSync(fd).isFile()) {
      throw Object.assign(new Error(`${path} is not a regular file`), { code: "ENOTREG" });
    }
    return fd;
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
  const fd = openRegularFile(path, constants.O_RDONLY | (follow ? 0 : constants.O_NOFOLLOW));
  try {
    if (fstatSync(fd).size > maxBytes)
      throw Object.assign(new Error(`${path} is larger than ${maxBytes} bytes`), { code: "ETOOBIG" });
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** A catalog file's whole text, read only if it is a regular file (see `openRegularFile`). */
export function readRegularFile(path: string): string {
  return readRegularBytes(path, { follow: true }).toString("utf8");
}
