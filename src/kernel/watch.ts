import { type FSWatcher, readdirSync, watch } from "node:fs";
import { join } from "node:path";

/**
 * Watch a folder and its direct subfolders (one agent or skill per subfolder), non-recursively.
 * Node 20's recursive watch on Linux polls every file under the tree, which costs a daemon idle
 * CPU and a server its start; inotify on each folder costs neither. Call again after a change
 * to pick up new subfolders.
 */
export function watchShallow(
  dir: string,
  onChange: (change: { folder: string; file: string | null }) => void,
): FSWatcher[] {
  const watchers: FSWatcher[] = [];
  const add = (path: string) => {
    try {
      // Which folder and which file changed (the file's name, when the platform gives it).
      const watcher = watch(path, { persistent: false }, (_event, file) =>
        onChange({ folder: path, file: file === null ? null : String(file) }),
      );
      watcher.on("error", () => watcher.close());
      watchers.push(watcher);
    } catch {
      // Gone, or not a folder we may read: nothing to watch there.
    }
  };
  add(dir);
  try {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory() || entry.isSymbolicLink()) add(join(dir, entry.name));
    }
  } catch {
    // Not a folder: the single watch above is all there is.
  }
  return watchers;
}
