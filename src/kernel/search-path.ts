import { statSync } from "node:fs";
import { delimiter, isAbsolute } from "node:path";

// PATH and folder questions that both a check's recorded setting (setting.ts) and the process
// runner (child.ts) ask. They lived in child.ts once, and when it still loaded node:child_process
// at import, every `cairn status` paid for it through setting.ts; neither module needs the other.

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
