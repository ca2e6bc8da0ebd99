import { delimiter, isAbsolute } from "node:path";
import { absolutePath, isDirectory } from "./search-path.js";

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
  /**
   * Where tools that let a variable move their configuration (or toolchain) away from the home
   * read it, by variable: `XDG_CONFIG_HOME=/tmp/x` with a git config there, or a `CARGO_HOME`
   * whose config.toml names a test runner, would otherwise be the caller's choice. Absent in
   * settings recorded before these were.
   */
  locations?: Readonly<Record<string, string>>;
}

/** The variables a setting's `locations` records: each moves where a tool reads its setup from. */
export const CONFIG_LOCATIONS = [
  "XDG_CONFIG_HOME",
  "GIT_CONFIG_GLOBAL",
  "PIP_CONFIG_FILE",
  "CARGO_HOME",
  "RUSTUP_HOME",
  "GOENV",
  "GRADLE_USER_HOME",
  // Toolchains chosen by a folder: the JVM, go's and .NET's roots, where gems and corepack's
  // package managers live, pyenv's interpreters. A check's runner's own are dropped (child.ts).
  "JAVA_HOME",
  "GOROOT",
  "DOTNET_ROOT",
  "GEM_HOME",
  "GEM_PATH",
  "COREPACK_HOME",
  "PYENV_ROOT",
] as const;

/** PATH's absolute folders, each once, in order: what a setting records as its `path`. */
export function searchPathOf(env: NodeJS.ProcessEnv): string[] {
  const folders = absolutePath(env.PATH ?? "");
  return folders === "" ? [] : [...new Set(folders.split(delimiter))];
}

/** The setting recorded from an environment (the one who sets the check). */
export function settingOf(env: NodeJS.ProcessEnv): Setting {
  const locations: Record<string, string> = {};
  for (const name of CONFIG_LOCATIONS) {
    const value = env[name];
    if (value && isAbsolute(value)) locations[name] = value;
  }
  return {
    path: searchPathOf(env),
    ...(env.HOME && isAbsolute(env.HOME) ? { home: env.HOME } : {}),
    locations,
  };
}

/**
 * A check's environment with its recorded setting applied: the recorded folders first on PATH,
 * the caller's following only for a program they do not hold; the recorded home where that folder
 * exists; the recorded configuration locations in place of the caller's. (On another machine of a
 * team the recorded folders or home may be missing: the caller's then serve.) No setting (one
 * recorded before settings were) leaves the environment as it is.
 */
export function withSetting(env: NodeJS.ProcessEnv, setting: Setting | null | undefined): NodeJS.ProcessEnv {
  const recorded = setting?.path ?? [];
  if (recorded.length > 0) {
    const own = searchPathOf(env).filter((dir) => !recorded.includes(dir));
    env.PATH = [...recorded, ...own].join(delimiter);
  }
  if (setting?.home && isDirectory(setting.home)) env.HOME = setting.home;
  // Each location as recorded, and none the one who set the check had not set.
  if (setting?.locations)
    for (const name of CONFIG_LOCATIONS) {
      const recorded = setting.locations[name];
      if (recorded) env[name] = recorded;
      else delete env[name];
    }
  return env;
}
