import { fstatSync, statSync } from "node:fs";
import { usageError } from "./outcome.js";
import { quoteValue } from "./text.js";

/** This process's streams that carry a protocol (`cairn mcp`: stdin and stdout), by what they are on disk. */
let reserved: { name: string; dev: number; ino: number }[] = [];

/**
 * `cairn mcp` reserves its stdin and stdout: they carry the protocol, so no command it runs may
 * read or write them as a file (`export --out /dev/stdout` would print a workspace into the
 * message stream, `import /dev/stdin` would swallow the client's messages). A pipe is recognised
 * under any name (`/dev/stdout`, `/proc/self/fd/1`, `/dev/fd/1`) by its device and inode.
 */
export function reserveProtocolStreams(): void {
  reserved = [
    ["stdin", 0],
    ["stdout", 1],
  ].flatMap(([name, fd]) => {
    try {
      const { dev, ino } = fstatSync(fd as number);
      return [{ name: name as string, dev, ino }];
    } catch {
      return [];
    }
  });
}

/** Refuse (a usage error) a path that is one of the reserved protocol streams. */
export function requireNotProtocolStream(path: string, given: string = path): void {
  if (reserved.length === 0) return;
  let found: { dev: number; ino: number } | undefined;
  try {
    found = statSync(path);
  } catch {
    return; // nothing there yet (a new file), or nothing to open: the command's own error says so
  }
  const stream = reserved.find((r) => r.dev === found.dev && r.ino === found.ino);
  if (stream) {
    throw usageError(
      `${quoteValue(given)} is this server's ${stream.name}, which carries the MCP protocol`,
      "name a file instead",
    );
  }
}
