import { closeSync, constants, fstatSync, openSync, readFileSync } from "node:fs";

/**
 * A catalog file's whole text, read only if it is a regular file. Opened with O_NONBLOCK and
 * judged by the descriptor's own stat: a FIFO in a manifest's place would otherwise hold the
 * read, and the process (an MCP server, the daemon), until someone wrote to it. Anything but a
 * regular file throws an error whose `code` is "ENOTREG".
 */
export function readRegularFile(path: string): string {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    if (!fstatSync(fd).isFile()) {
      throw Object.assign(new Error(`${path} is not a regular file`), { code: "ENOTREG" });
    }
    return readFileSync(fd, "utf8");
  } finally {
    closeSync(fd);
  }
}
