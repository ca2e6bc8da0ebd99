import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { isInside } from "../../kernel/inside.js";
import { removeLeftoversOfDeadProcesses } from "../../kernel/leftovers.js";
import { workFolder } from "../../kernel/temp-dir.js";

/**
 * A private copy of a skill that a script run starts from, written from the very bytes the
 * operator's digest was checked over (digestSkill with a copy). Checking the folder and then
 * running it by path left a window between the two: whoever can write the skill folder, swapping
 * a script by rename in a loop, had a script the operator never enabled run within a few tries.
 * In the copy, what runs is what was hashed, its sibling files and modules included.
 *
 * Links are made again as the digest names them: one naming a place inside the skill points at
 * that place in the copy, one out of the skill at the same target (the operator enabled that
 * target by name). A FIFO or socket has nothing to copy. The copy is the run's: removed when it ends.
 * A local agent acting as the identity the operator enabled runs from such a copy of its folder too.
 */
const COPY_PREFIX = "cairn-skill-run-";

export interface SkillCopy {
  /** The copy's real path: the skill folder a run sees (its cwd and SKILL_DIR). */
  readonly dir: string;
  file(path: string, content: Buffer, mode: number): void;
  link(path: string, target: string): void;
  remove(): void;
}

/**
 * `parent` is the machine's own folder for copies (CAIRN_HOME), never the shared temp directory:
 * Node resolves a script's bare `require` in every folder above it, and a `/tmp/node_modules`
 * that anyone may plant would have been loaded by an enabled skill's script.
 */
export function startSkillCopy(realDir: string, parent: string, prefix = COPY_PREFIX): SkillCopy {
  // What a cairn killed outright (kill -9) left here goes once its pid runs no more.
  removeLeftoversOfDeadProcesses(parent, prefix, /^-.+$/);
  const folder = workFolder(`${prefix}${process.pid}-`, parent);
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
      // A target named inside the skill is the copy's, whatever that place is in the folder by
      // now: resolved there, a folder the walk hashed, swapped for a link out of the skill before
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
