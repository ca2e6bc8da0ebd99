import { statSync } from "node:fs";
import { delimiter, isAbsolute } from "node:path";

// Kept apart from child.ts, which loads node:child_process and node:crypto (and with them the
// network and stream modules): recording a setting at `cairn init` or reading one on a CLI call
// starts no process and should not pay for loading what starts one.

/**
 * PATH with its absolute folders only. An empty entry (a trailing `:`, or `::` from
 * `PATH=$PATH:$UNSET`) and a relative one (`.`, `bin`, an unexpanded `~/bin`) are looked up from
 * the child's working folder, which is the workspace agents write: a bare `npm`, `git` or verify
 * command would run a file planted there.
 */
export function absolutePath(path: string): string {
  return path
    .split(delimiter)
    .filter((dir) => dir !== "" && isAbsolute(dir))
    .join(delimiter);
}

/** Whether a folder exists at `path` (through a symlink too). */
export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
