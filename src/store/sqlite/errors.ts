import { lstatSync, statSync } from "node:fs";
import { type CairnError, conflict, operational } from "../../kernel/outcome.js";

/**
 * What stands at the database's path when it is not a file (a FIFO, a folder, a device, a link to
 * nothing): SQLite says only "disk I/O error" or "unable to open", which sends the user to free
 * disk space or check permissions. A link is followed, as SQLite follows it.
 */
function notAFile(databasePath: string): string | undefined {
  const stat = statSync(databasePath, { throwIfNoEntry: false });
  if (!stat)
    return lstatSync(databasePath, { throwIfNoEntry: false })?.isSymbolicLink()
      ? "a link to nothing"
      : undefined;
  if (stat.isFile()) return undefined;
  if (stat.isDirectory()) return "a folder";
  if (stat.isFIFO()) return "a named pipe (FIFO)";
  if (stat.isSocket()) return "a socket";
  return "not a regular file";
}

/** Turn a driver error into a typed one that tells the user what happened and what to do. */
export function translateSqliteError(error: unknown, databasePath: string): CairnError | undefined {
  const code = (error as { code?: unknown })?.code;
  if (typeof code !== "string" || !code.startsWith("SQLITE_")) return undefined;
  const detail = (error as Error).message;
  if (code === "SQLITE_NOTADB" || code.startsWith("SQLITE_CORRUPT")) {
    return operational(
      `the workspace database ${databasePath} is damaged or is not a cairn database (${detail})`,
      "restore it from a `cairn export` backup into a new workspace, or move it aside and run `cairn init`",
    );
  }
  const standing =
    code.startsWith("SQLITE_CANTOPEN") || code.startsWith("SQLITE_IOERR")
      ? notAFile(databasePath)
      : undefined;
  if (standing) {
    return operational(
      `the workspace database ${databasePath} is ${standing}, not a database file (${detail})`,
      "move it aside, then restore the workspace from a `cairn export` backup (`cairn import`) or run `cairn init`",
    );
  }
  if (code.startsWith("SQLITE_READONLY") || code.startsWith("SQLITE_CANTOPEN") || code === "SQLITE_PERM") {
    return operational(
      `the workspace database ${databasePath} cannot be written (${detail})`,
      "check the permissions of the .cairn directory and its files",
    );
  }
  if (code.startsWith("SQLITE_BUSY")) {
    return operational(
      `the workspace database stayed locked by another process past the busy timeout (${detail})`,
      "retry; if it persists, look for a stuck cairn process",
    );
  }
  if (code.startsWith("SQLITE_CONSTRAINT")) {
    return conflict(`the change conflicts with stored data (${detail})`);
  }
  if (code === "SQLITE_FULL" || code.startsWith("SQLITE_IOERR")) {
    return operational(
      `the workspace database could not be written to disk (${detail})`,
      "free disk space and retry",
    );
  }
  return operational(`database error ${code}: ${detail}`);
}
