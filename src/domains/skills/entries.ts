import { lstatSync, readdirSync } from "node:fs";
import { join, sep } from "node:path";

export type EntryKind = "dir" | "file" | "link" | "other";

export interface Entry {
  name: string;
  kind: EntryKind;
}

/**
 * A folder's entries, sorted by name, each with its kind as the listing reports it (no stat per
 * entry). File systems that do not report kinds in listings (some network and older ones) get
 * an lstat per entry instead, so nothing is ever missed. Throws when the folder cannot be read.
 */
export function listEntries(dir: string): Entry[] {
  const out = readdirSync(dir, { withFileTypes: true }).map((entry) => {
    let kind: EntryKind = entry.isDirectory()
      ? "dir"
      : entry.isFile()
        ? "file"
        : entry.isSymbolicLink()
          ? "link"
          : "other";
    if (
      kind === "other" &&
      !entry.isFIFO() &&
      !entry.isSocket() &&
      !entry.isBlockDevice() &&
      !entry.isCharacterDevice()
    ) {
      try {
        const stats = lstatSync(join(dir, entry.name));
        kind = stats.isDirectory()
          ? "dir"
          : stats.isFile()
            ? "file"
            : stats.isSymbolicLink()
              ? "link"
              : "other";
      } catch {
        kind = "other";
      }
    }
    return { name: entry.name, kind };
  });
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * A listed entry's path: `dir` (already normal, as roots and real paths are) joined with a name a
 * listing gave (never empty, `.`, `..` or holding a separator). What `join` returns for those,
 * without its normalising pass over the whole path, which a build of a thousand files felt.
 */
export function childPath(dir: string, name: string): string {
  return dir.endsWith(sep) ? dir + name : dir + sep + name;
}
