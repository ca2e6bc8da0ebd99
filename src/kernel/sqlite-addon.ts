import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/**
 * Where better-sqlite3's native addon is, handed to every `new Database` as its documented
 * `nativeBinding` option. Left to itself better-sqlite3 asks the `bindings` package, which guesses
 * the package from its caller's file (the bundle, since its JavaScript is bundled) and probes a
 * dozen paths; this looks first where npm and prebuild-install put it.
 */
let found: string | undefined;

export function sqliteAddon(): string {
  found ??= addonIn(packageRoot());
  return found;
}

let loaded: object | undefined;

/**
 * The addon itself, for every `new Database`'s `nativeBinding`, which takes the loaded addon as
 * well as its path. Loaded once with process.dlopen, it skips require's resolution of the path
 * (stat, realpath, package scope lookups), ~0.6 ms of a start.
 */
export function sqliteBinding(): string {
  if (loaded === undefined) {
    const module = { exports: {} };
    process.dlopen(module, sqliteAddon());
    loaded = module.exports;
  }
  // better-sqlite3's typings name only the path form of the option.
  return loaded as unknown as string;
}

/**
 * The better-sqlite3 package Node would load: the first of the node_modules folders it searches
 * that holds one. Listing those folders is path arithmetic, where require.resolve (the fallback)
 * first sets up the resolver, reads package.json files and follows symlinks: ~1.5 ms of a start.
 * It remains the answer where resolution is not folders (Yarn Plug'n'Play, say).
 */
export function packageRoot(
  require: Pick<NodeJS.Require, "resolve"> = createRequire(import.meta.filename),
): string {
  for (const folder of require.resolve.paths("better-sqlite3") ?? []) {
    const root = join(folder, "better-sqlite3");
    if (existsSync(join(root, "package.json"))) return root;
  }
  return dirname(require.resolve("better-sqlite3/package.json"));
}

/** The addon of the better-sqlite3 package at `root`: build/Release, else wherever `bindings` finds it (a debug build). */
export function addonIn(root: string): string {
  const release = join(root, "build", "Release", "better_sqlite3.node");
  if (existsSync(release)) return release;
  const bindings = createRequire(join(root, "package.json"))("bindings") as (options: object) => string;
  return bindings({ bindings: "better_sqlite3.node", module_root: root, path: true });
}
