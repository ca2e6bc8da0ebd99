import { readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { processAlive } from "./processes.js";

/**
 * What work killed outright (kill -9, a crash) left in `dir`: files it named `<prefix><pid><tail>`
 * while it ran (a temporary export, a staging database). Each goes once its pid runs no more; a
 * live pid may be the same work under way in another process, and this process's own are its own.
 * `tail` must match what follows the pid, so a name that merely starts alike is left alone. A
 * folder goes whole (a link goes, never what it points to). Returns how many went.
 */
export function removeLeftoversOfDeadProcesses(dir: string, prefix: string, tail: RegExp): number {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const named = /^(\d+)(.*)$/s.exec(name.slice(prefix.length));
    if (!named || !tail.test(named[2] ?? "")) continue;
    const pid = Number(named[1]);
    if (!Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid || processAlive(pid)) continue;
    try {
      rmSync(join(dir, name), { force: true, recursive: true });
      removed++;
    } catch {
      // Another user's, or gone since we looked: left as it is.
    }
  }
  return removed;
}

/**
 * Write `path` whole by renaming a temporary beside it (`<path>.<pid>.tmp`) over it, so a reader
 * never sees half of it. A process killed between the write and the rename left its temporary
 * there for good: the next writer of the same file removes those of processes no longer running.
 * The temporary goes if the write or the rename fails.
 */
export function replaceFileSync(path: string, text: string, mode?: number): void {
  const dir = dirname(path);
  removeLeftoversOfDeadProcesses(dir, `${basename(path)}.`, /^\.tmp$/);
  const temporary = `${path}.${process.pid}.tmp`;
  try {
    // Made new, never opened as found: a link planted at the name a pid predicts sent the text
    // through it to its target, and the rename then put the link in the file's place. Whatever is
    // there is this process's own leftover or such a link: it goes, and a link planted again
    // between the two calls fails the write (EEXIST) rather than being followed.
    rmSync(temporary, { force: true });
    writeFileSync(temporary, text, { flag: "wx", ...(mode === undefined ? {} : { mode }) });
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}
