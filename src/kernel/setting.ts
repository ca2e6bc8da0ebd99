import { delimiter, isAbsolute } from "node:path";
import { absolutePath, isDirectory } from "./child.js";

/**
 * Where a check finds its programs and which home it reads, recorded from whoever set the check
 * (the freezer of a run, the author of a criterion, the owner at `cairn init`), not taken from
 * whoever runs it. The one checked runs the check: with a folder of its own first on PATH
 * (`PATH=/tmp/fake:$PATH`, a passing `npm` there) or a home of its own (`HOME=/tmp/h`, whose
 * .npmrc sets `script-shell=/bin/true`), it would otherwise choose what `npm test` is and how it runs.
 */
export interface Setting {
  /** PATH's absolute folders, each once, in order. */
  path?: readonly string[];
  /** The home folder whose user configuration tools read (~/.npmrc, pip's and git's). */
  home?: string;
}

/** PATH's absolute folders, each once, in order: what a setting records as its `path`. */
export function searchPathOf(env: NodeJS.ProcessEnv): string[] {
  const folders = absolutePath(env.PATH ?? "");
  return folders === "" ? [] : [...new Set(folders.split(delimiter))];
}

/** The setting recorded from an environment (the one who sets the check). */
export function settingOf(env: NodeJS.ProcessEnv): Setting {
  return {
    path: searchPathOf(env),
    ...(env.HOME && isAbsolute(env.HOME) ? { home: env.HOME } : {}),
  };
}

/**
 * A check's environment with its recorded setting applied: the recorded folders first on PATH,
 * the caller's following only for a program they do not hold; the recorded home where that folder
 * exists. (On another machine of a team the recorded folders or home may be missing: the caller's
 * then serve.) No setting (one recorded before settings were) leaves the environment as it is.
 */
export function withSetting(env: NodeJS.ProcessEnv, setting: Setting | null | undefined): NodeJS.ProcessEnv {
  const recorded = setting?.path ?? [];
  if (recorded.length > 0) {
    const own = searchPathOf(env).filter((dir) => !recorded.includes(dir));
    env.PATH = [...recorded, ...own].join(delimiter);
  }
  if (setting?.home && isDirectory(setting.home)) env.HOME = setting.home;
  return env;
}
