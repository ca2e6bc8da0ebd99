import { lstatSync } from "node:fs";
import Database from "better-sqlite3";
import { sqliteBinding } from "../../kernel/sqlite-addon.js";

/**
 * Whether the SQLite file at `path` holds nothing at all: no table, no index, nothing committed.
 * That is what an init killed between creating the file and committing its schema leaves (its
 * schema comes in one transaction), and no workspace ever holds it. Anything else (a database
 * with tables, a file SQLite cannot read, something other than a regular file) is not blank.
 */
export function isBlankSqliteDatabase(path: string): boolean {
  try {
    if (!lstatSync(path).isFile()) return false;
    const db = new Database(path, { readonly: true, fileMustExist: true, nativeBinding: sqliteBinding() });
    try {
      const row = db.prepare<[], { n: number }>("SELECT count(*) AS n FROM sqlite_master").get();
      return row?.n === 0;
    } finally {
      db.close();
    }
  } catch {
    return false;
  }
}
