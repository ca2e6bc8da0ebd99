import { type CairnError, conflict, operational } from "../../kernel/outcome.js";

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
