// esbuild plugins that keep start-up work out of the bundle cairn runs (see build.mjs).
import { readFile } from "node:fs/promises";

/** Replace one exact piece of a dependency's source, failing the build if it is not there. */
function patchFile(eager, lazy) {
  return async (args) => {
    const source = await readFile(args.path, "utf8");
    if (!source.includes(eager)) throw new Error(`dependency changed: ${eager} not found in ${args.path}`);
    return { contents: source.replace(eager, lazy), loader: "js" };
  };
}

/**
 * commander requires node:child_process at load (it brings in net and dgram) only to spawn
 * executable subcommands, which cairn never declares. The module is required on first use.
 */
export const commanderLazyChildProcess = {
  name: "commander-lazy-child-process",
  setup(build) {
    const filter = /[\\/]node_modules[\\/]commander[\\/]lib[\\/]command\.js$/;
    build.onLoad(
      { filter },
      patchFile(
        "const childProcess = require('node:child_process');",
        "const childProcess = { spawn: (...args) => require('node:child_process').spawn(...args) };",
      ),
    );
  },
};
