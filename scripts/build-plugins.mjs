// esbuild plugins that keep start-up work out of the bundle cairn runs (see build.mjs).
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";

/**
 * A plugin replacing one exact piece of one file of a package (`file` is its path inside the
 * package), failing the build if that piece is not there: a dependency that changes is looked at
 * again rather than patched blindly.
 */
function patchPackageFile(name, pkg, file, eager, lazy) {
  const path = [pkg, ...file.split("/")].map((part) => part.replaceAll(".", "\\.")).join("[\\\\/]");
  const filter = new RegExp(`[\\\\/]node_modules[\\\\/]${path}$`);
  return {
    name,
    setup(build) {
      build.onLoad({ filter }, async (args) => {
        const source = await readFile(args.path, "utf8");
        if (!source.includes(eager))
          throw new Error(`dependency changed: ${eager} not found in ${args.path}`);
        return { contents: source.replace(eager, lazy), loader: "js" };
      });
    },
  };
}

/**
 * commander requires node:child_process at load (it brings in net and dgram) only to spawn
 * executable subcommands, which cairn never declares. The module is required on first use.
 */
export const commanderLazyChildProcess = patchPackageFile(
  "commander-lazy-child-process",
  "commander",
  "lib/command.js",
  "const childProcess = require('node:child_process');",
  "const childProcess = { spawn: (...args) => require('node:child_process').spawn(...args) };",
);

/**
 * cairn's sources write `import { z } from "zod"`, and `z` there is zod's namespace object:
 * bundled, it is built at every start as getters for each of zod's ~1,000 exports (its core,
 * classic, schemas, checks and regexes namespaces, ~3 ms), and it keeps every zod export in the
 * bundle. Imported as `import * as z from "zod"` instead, each `z.object` is bound to zod's own
 * function, no namespace is built and what cairn never calls is left out (the bundle is ~100 KB
 * and its code cache ~150 KB smaller). Types read the same from either form. Any other way of
 * importing `z` would bring the namespace back unseen, so it fails the build.
 */
export const zodWithoutNamespace = {
  name: "zod-without-namespace",
  setup(build) {
    const named = 'import { z } from "zod";';
    const sources = fileURLToPath(new URL("../src/", import.meta.url));
    build.onLoad({ filter: /\.ts$/ }, async (args) => {
      if (!args.path.startsWith(sources)) return undefined;
      const source = await readFile(args.path, "utf8");
      if (!source.includes('"zod"')) return undefined;
      const rewritten = source.replaceAll(named, 'import * as z from "zod";');
      if (
        /import\s*\{[^}]*\bz\b[^}]*\}\s*from\s*"zod"/.test(
          rewritten.replaceAll(/import type \{ z \} from "zod";/g, ""),
        )
      ) {
        throw new Error(
          `${args.path}: import zod as \`${named}\` (see zodWithoutNamespace in scripts/build-plugins.mjs)`,
        );
      }
      return { contents: rewritten, loader: "ts" };
    });
  },
};

/**
 * pg picks its socket at load by asking whether it runs in a Cloudflare Worker: on Node 20, which
 * has no `navigator`, it builds a `new Response(...)` to find out, and reading the global
 * `Response` loads Node's fetch implementation (undici, ~12 ms and its garbage) into every
 * CLI call and server start on a shared store. cairn runs on Node only: Node's sockets are chosen
 * without asking.
 */
export const pgNodeSockets = patchPackageFile(
  "pg-node-sockets",
  "pg",
  "lib/stream.js",
  "const { getStream, getSecureStream } = getStreamFuncs()",
  "const { getStream, getSecureStream } = getNodejsStreamFuncs()",
);
