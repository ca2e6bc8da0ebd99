import { realpathSync } from "node:fs";
import { delimiter, isAbsolute, relative, resolve, sep } from "node:path";

/** `inner` is `outer` or below it, by real path, with a separator boundary. */
export function isInside(outer: string, inner: string): boolean {
  const rel = relative(outer, inner);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

/** A path's real path (links resolved), or the path made absolute when it does not exist. */
export function realPathOf(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    return resolve(path);
  }
}

/**
 * PATH without the folders inside `untrusted` (the project workspace, which agents write), by
 * their path as written and by their real path. A program cairn runs (a reviewed skill script, an
 * allowed OS tool) is found outside them, and so must every program it runs by bare name in turn
 * (`jq`, `env`, `git`'s own `git-<verb>` helpers), or a file an agent planted in
 * node_modules/.bin (first on PATH under `npx`) runs in its stead.
 */
export function pathOutside(path: string, untrusted: readonly string[]): string {
  if (untrusted.length === 0) return path;
  const folders = [...untrusted.map((dir) => resolve(dir)), ...untrusted.map(realPathOf)];
  return path
    .split(delimiter)
    .filter(
      (dir) => !folders.some((folder) => isInside(folder, resolve(dir)) || isInside(folder, realPathOf(dir))),
    )
    .join(delimiter);
}

/** `env` with its PATH kept outside `untrusted` (see `pathOutside`). */
export function withPathOutside(env: NodeJS.ProcessEnv, untrusted: readonly string[]): NodeJS.ProcessEnv {
  return env.PATH === undefined ? env : { ...env, PATH: pathOutside(env.PATH, untrusted) };
}
