import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { isInside } from "./inside.js";
import { ownWorkFolder } from "./temp-dir.js";

/**
 * A private copy of a folder that a run starts from (a skill's, for its script; an enabled
 * project agent's, for its command), written from the very bytes the operator's digest was
 * checked over (digestSkill with a copy). Checking the folder and then running it by path left a
 * window between the two: whoever can write the folder, swapping a script by rename in a loop,
 * had a script the operator never enabled run within a few tries. In the copy, what runs is what
 * was hashed, its sibling files and modules included.
 *
 * Links are made again as the digest names them: one naming a place inside the folder points at
 * that place in the copy, one out of the folder at the same target (the operator enabled that
 * target by name). A FIFO or socket has nothing to copy. The copy is the run's: removed when it ends.
 */
export interface FolderCopy {
  /** The copy's real path: the folder a run sees (its cwd, and SKILL_DIR or AGENT_HOME). */
  readonly dir: string;
  file(path: string, content: Buffer, mode: number): void;
  link(path: string, target: string): void;
  remove(): void;
}

/**
 * `parent` is the machine's own folder for copies (CAIRN_HOME), never the shared temp directory:
 * Node resolves a script's bare `require` in every folder above it, and a `/tmp/node_modules`
 * that anyone may plant would have been loaded by an enabled skill's script. `prefix` names the
 * copies of one kind, whose leftovers a later run removes once their process runs no more.
 */
export function startFolderCopy(realDir: string, parent: string, prefix: string): FolderCopy {
  // What a cairn killed outright (kill -9) left here goes once its pid runs no more.
  const folder = ownWorkFolder(prefix, parent);
  const dir = realpathSync.native(folder.path);
  const placeOf = (path: string) => {
    const place = join(dir, ...path.split("/"));
    mkdirSync(dirname(place), { recursive: true, mode: 0o700 });
    return place;
  };
  return {
    dir,
    file(path, content, mode) {
      // Executable bits are kept (a script may run a sibling); nothing is writable by others.
      writeFileSync(placeOf(path), content, { mode: mode & 0o755, flag: "wx" });
    },
    link(path, target) {
      if (target.startsWith("\0")) return;
      const named = resolve(dirname(join(realDir, path)), target);
      // A target named inside the folder is the copy's, whatever that place is in the folder by
      // now: resolved there, a folder the walk hashed, swapped for a link out of the folder before
      // this, had the copy point at the folder, and the run load what the link led to.
      if (isInside(realDir, named)) {
        symlinkSync(join(dir, relative(realDir, named)), placeOf(path));
        return;
      }
      let real: string;
      try {
        real = realpathSync.native(named);
      } catch {
        return; // dangling now: dangling in the copy too
      }
      symlinkSync(isInside(realDir, real) ? join(dir, relative(realDir, real)) : named, placeOf(path));
    },
    remove: folder.remove,
  };
}
