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

/**
 * Variables listing the folders a runtime loads code from, as PATH lists the programs run:
 * `PYTHONPATH=<project>/src` runs a `sitecustomize.py` any writer of the project put there.
 */
export const CODE_PATH_VARIABLES = [
  "NODE_PATH",
  "PYTHONPATH",
  "PERL5LIB",
  "PERLLIB",
  "RUBYLIB",
  "GEM_PATH",
  "CLASSPATH",
] as const;

/**
 * `env` with each CODE_PATH_VARIABLES list kept outside `untrusted` (see `pathOutside`) and to
 * absolute folders (an empty or relative entry is read from wherever the child starts), except
 * those named in `asWritten`; a list left empty is removed.
 */
export function codePathsOutside(
  env: NodeJS.ProcessEnv,
  untrusted: readonly string[],
  asWritten: readonly string[],
): void {
  for (const name of CODE_PATH_VARIABLES) {
    const value = env[name];
    if (value === undefined || asWritten.includes(name)) continue;
    const absolute = value
      .split(delimiter)
      .filter((dir) => isAbsolute(dir))
      .join(delimiter);
    const kept = absolute === "" ? "" : pathOutside(absolute, untrusted);
    if (kept === "") delete env[name];
    else env[name] = kept;
  }
}
