import { closeSync, constants, fstatSync, openSync, realpathSync, statSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { isInside } from "../../kernel/inside.js";
import { notFound, refuse } from "../../kernel/outcome.js";

/**
 * The one way into a skill's folder. A caller's path is judged as text first, before the disk
 * is touched (absolute, `..`, NUL, backslashes, drive letters: refused); then it is resolved to
 * its real path, which must stay inside the skill's real folder with a separator boundary
 * (`/skills/pdf-evil` is not inside `/skills/pdf`), so a symlink pointing out is caught. The
 * file is opened without following a last-moment symlink and re-checked by inode, so a swap
 * between check and open is caught too. A regular file with more than one hard link is refused:
 * its other name may be anywhere on the same filesystem, outside the skill.
 *
 * Real paths come from `realpathSync.native` (one realpath(3) call) throughout the skills and
 * commands code: the JavaScript `realpathSync` lstats every component of every path, which was
 * most of a 500-skill catalog build. Both resolve every link the same way.
 */

const refusePath = (reason: string) =>
  refuse("skill_path", reason, "give a path relative to the skill folder, as its file index lists it");

/** Judge a relative path as text. Returns its `/`-separated segments. */
export function checkRelativePath(path: string): string[] {
  if (path.length === 0) throw refusePath("the path is empty");
  if (path.length > 1_024) throw refusePath("the path is longer than 1024 characters");
  if (path.includes("\0")) throw refusePath("the path contains a NUL byte");
  if (path.includes("\\")) throw refusePath("the path contains a backslash; use `/`");
  if (isAbsolute(path) || /^[A-Za-z]:/.test(path) || path.startsWith("~")) {
    throw refusePath(`the path ${JSON.stringify(path.slice(0, 80))} is absolute`);
  }
  const segments = path.split("/").filter((segment) => segment !== "" && segment !== ".");
  if (segments.some((segment) => segment === "..")) {
    throw refusePath(`the path ${JSON.stringify(path.slice(0, 80))} climbs out with \`..\``);
  }
  if (segments.length === 0) throw refusePath("the path names the skill folder itself");
  return segments;
}

/**
 * A path to serve as a skill's text (skill_read, the extension's resources), judged as text: a
 * dotfile or a dot-folder (`.env`, `.git/config`) is never served. The index leaves them out, and
 * they hold settings and secrets a skill's own scripts may read but no agent needs to.
 */
export function checkServedPath(path: string): string[] {
  const segments = checkRelativePath(path);
  if (segments.some((segment) => segment.startsWith(".")))
    throw refuse(
      "skill_path",
      `${JSON.stringify(path.slice(0, 80))} is a hidden file (a name starting with a dot): a skill's dotfiles are not served`,
      "read one of the files the skill's index lists",
    );
  return segments;
}

export interface OpenedFile {
  fd: number;
  real: string;
  size: number;
  /** Its mode as opened (permission bits included): a copy keeps what may run. */
  mode: number;
}

/** Open a file of the skill for reading, or refuse. The caller closes `fd`. */
export function openInside(realDir: string, path: string, within: string = realDir): OpenedFile {
  const segments = checkRelativePath(path);
  const joined = join(realDir, ...segments);
  let real: string;
  try {
    real = realpathSync.native(joined);
  } catch {
    throw notFound(
      `no file ${JSON.stringify(path.slice(0, 200))} in this skill`,
      "read the skill's file index",
    );
  }
  if (!isInside(within, real) || real === within) {
    throw refusePath(
      `${JSON.stringify(path.slice(0, 80))} resolves outside ${within === realDir ? "the skill folder" : "its scripts/ folder"} (a symlink)`,
    );
  }
  let isDirectory: boolean;
  try {
    isDirectory = statSync(real).isDirectory();
  } catch {
    throw notFound(
      `no file ${JSON.stringify(path.slice(0, 200))} in this skill`,
      "read the skill's file index",
    );
  }
  if (isDirectory) {
    throw refuse(
      "skill_path",
      `${JSON.stringify(path.slice(0, 80))} is a folder`,
      "read one of the files the index lists under it",
    );
  }
  let fd: number;
  try {
    // O_NONBLOCK: a FIFO in a skill's folder cannot hold the open (and the server) forever.
    fd = openSync(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    throw refusePath(`${JSON.stringify(path.slice(0, 80))} changed while it was opened`);
  }
  const opened = fstatSync(fd);
  if (!opened.isFile()) {
    closeSync(fd);
    throw refuse(
      "skill_path",
      `${JSON.stringify(path.slice(0, 80))} is not a regular file`,
      "read one of the files the index lists",
    );
  }
  // A hard link is the same file under a second name, and nothing in the skill's folder says
  // where the other name is: `ln ~/.ssh/id_ed25519 skills/demo/notes.txt` resolves inside. A
  // file with more than one name is refused, as a symlink out is.
  if (opened.nlink > 1) {
    closeSync(fd);
    throw refusePath(
      `${JSON.stringify(path.slice(0, 80))} has ${opened.nlink} hard links: a hard link may name a file outside the skill folder`,
    );
  }
  let again: string | undefined;
  try {
    again = realpathSync.native(joined);
  } catch {
    again = undefined;
  }
  let now: ReturnType<typeof statSync> | undefined;
  try {
    now = again ? statSync(again) : undefined;
  } catch {
    now = undefined;
  }
  if (again !== real || !now || now.ino !== opened.ino || now.dev !== opened.dev || !opened.isFile()) {
    closeSync(fd);
    throw refusePath(`${JSON.stringify(path.slice(0, 80))} changed while it was opened (a swapped symlink)`);
  }
  return { fd, real, size: opened.size, mode: opened.mode };
}
