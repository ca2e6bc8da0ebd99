// Bundle the program into CommonJS files that bin/cairn.cjs starts from a V8 code cache (Node 20
// caches bytecode only for scripts, not ES modules): dist/cairn.cjs for `cairn mcp`, and
// dist/cairn-cli.cjs, the same less the MCP face, for every other command. Each face's modules
// stay wrapped and run only when that face is imported, so `cairn mcp` never runs the CLI parser.
// Only better-sqlite3's native addon stays outside the bundles.
import { execFileSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { build } from "esbuild";
import { commanderLazyChildProcess, pgNodeSockets, zodWithoutNamespace } from "./build-plugins.mjs";
import { buildUi } from "./build-ui.mjs";
import { recordCodeCaches } from "./code-cache.mjs";

/**
 * zod re-exports every locale (about 260 KB minified) on its namespace; cairn only speaks
 * English. Serving just `en` there cuts the bundle that every start has to parse by a third.
 */
const zodEnglishOnly = {
  name: "zod-english-only",
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      args.importer.includes("/node_modules/zod/v4/")
        ? { path: "zod-locales", namespace: "zod-english-only" }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: "zod-english-only" }, () => ({
      contents: 'export { default as en } from "zod/v4/locales/en.js";',
      resolveDir: process.cwd(),
      loader: "js",
    }));
  },
};

rmSync("dist", { recursive: true, force: true });

/**
 * The SDK's Node shim exists to hand McpServer a default JSON Schema validator (AJV, ~150 KB).
 * cairn always passes its own (src/faces/mcp/no-elicitation.ts), so the shim's default is never
 * built; leaving AJV out of the bundle saves parsing it at every start.
 */
const sdkWithoutAjv = {
  name: "sdk-without-ajv",
  setup(build) {
    build.onResolve({ filter: /^@modelcontextprotocol\/server\/_shims$/ }, () => ({
      path: "sdk-shims",
      namespace: "sdk-without-ajv",
    }));
    build.onLoad({ filter: /.*/, namespace: "sdk-without-ajv" }, () => ({
      contents:
        'export { NoElicitationValidator as DefaultJsonSchemaValidator } from "./src/faces/mcp/no-elicitation.ts";\n' +
        'export { default as process } from "node:process";\n',
      resolveDir: process.cwd(),
      loader: "js",
    }));
  },
};

/**
 * The CLI's bundle leaves the MCP face out: `cairn mcp` starts from dist/cairn.cjs, and the SDK
 * and the server (~200 KB of a 1.3 MB bundle) were read, copied into a string and had their
 * bytecode deserialized at every CLI call that never served a request.
 */
const withoutMcpFace = {
  name: "without-mcp-face",
  setup(build) {
    build.onResolve({ filter: /^\.\/faces\/mcp\/server\.js$/ }, (args) =>
      args.importer.endsWith("/src/main.ts")
        ? { path: "mcp-face", namespace: "without-mcp-face" }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: "without-mcp-face" }, () => ({
      contents:
        'export async function serveStdio() { throw new Error("internal: cairn mcp starts from dist/cairn.cjs; this is the CLI\'s bundle"); }',
      loader: "js",
    }));
  },
};

/** The bundles' settings: dist/cairn.cjs starts `cairn mcp`, dist/cairn-cli.cjs every other command. */
const bundleOptions = {
  outdir: "dist",
  bundle: true,
  format: "cjs",
  platform: "node",
  target: "node20",
  outExtension: { ".js": ".cjs" },
  // better-sqlite3's JavaScript is bundled, so it comes from the code cache rather than being
  // resolved and compiled file by file at every start. Its native addon is handed to it by path
  // (src/kernel/sqlite-addon.ts), so `bindings`, which would guess the package from the bundle's
  // path, never runs; it stays outside should that ever change.
  external: ["bindings"],
  minify: process.env.CAIRN_BUILD_READABLE !== "1",
  sourcemap: "linked",
  legalComments: "none",
  logLevel: "warning",
  // Code that finds files next to itself keeps working: `import.meta.url` is the bundle's own URL,
  // made when first read (a start that never reads it skips building a URL).
  define: {
    "import.meta.url": "__cairnModule.url",
    "import.meta.dirname": "__dirname",
    "import.meta.filename": "__filename",
  },
  // The bundle's text is the function bin/cairn.cjs compiles and calls, CommonJS's own wrapper:
  // wrapped here, the launcher need not copy a megabyte to wrap it at every start.
  banner: {
    js: '(function (exports, require, module, __filename, __dirname) {const __cairnModule = { get url() { return require("node:url").pathToFileURL(__filename).href; } };',
  },
  footer: { js: "})" },
};
const plugins = [
  zodWithoutNamespace,
  zodEnglishOnly,
  sdkWithoutAjv,
  commanderLazyChildProcess,
  pgNodeSockets,
];
await build({ ...bundleOptions, entryPoints: { cairn: "src/main.ts" }, plugins });
await build({
  ...bundleOptions,
  entryPoints: { "cairn-cli": "src/main.ts" },
  plugins: [...plugins, withoutMcpFace],
});

// bin/cairn.cjs reads the bundle as latin1, which is exact only for ASCII: esbuild escapes every
// other character in code by default, and this keeps a setting or plugin from changing that
// unnoticed. A readable build keeps comments, whose characters latin1 only garbles in place.
const readable = process.env.CAIRN_BUILD_READABLE === "1";
for (const bundle of ["dist/cairn.cjs", "dist/cairn-cli.cjs"]) {
  if (!readable && readFileSync(bundle).some((byte) => byte > 0x7f)) {
    throw new Error(`${bundle} is not ASCII: bin/cairn.cjs reads it as latin1`);
  }
}

// Demo, bench and schema tools: bundled from TypeScript, dependencies loaded from node_modules.
await build({
  entryPoints: {
    demo: "demo/main.ts",
    bench: "bench/main.ts",
    "accept-schemas": "scripts/accept-schemas.ts",
    "tool-schemas": "scripts/tool-schemas.ts",
    "cli-words": "scripts/cli-words.ts",
  },
  outdir: "dist",
  bundle: true,
  format: "esm",
  platform: "node",
  target: "node20",
  outExtension: { ".js": ".mjs" },
  packages: "external",
  logLevel: "warning",
});

// The dashboard served by `cairn ui`.
await buildUi();

// Start-up work done once here rather than at every start: the tools' JSON Schemas, the map
// from CLI words to domains, then the code caches (recorded last, by runs that take the same
// path a real start takes).
execFileSync(process.execPath, ["dist/tool-schemas.mjs", "dist"], { stdio: "inherit" });
execFileSync(process.execPath, ["dist/cli-words.mjs", "dist"], { stdio: "inherit" });
await recordCodeCaches();
