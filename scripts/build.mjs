// Bundle the program into dist/: one file per entry plus shared chunks, so `cairn mcp` never
// loads the CLI parser and a CLI call never loads the MCP SDK. Native better-sqlite3 stays external.
import { rmSync } from "node:fs";
import { build } from "esbuild";
import { buildUi } from "./build-ui.mjs";

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

await build({
  entryPoints: { cairn: "src/main.ts" },
  outdir: "dist",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  outExtension: { ".js": ".mjs" },
  chunkNames: "chunks/[name]-[hash]",
  external: ["better-sqlite3"],
  plugins: [zodEnglishOnly, sdkWithoutAjv],
  minify: true,
  sourcemap: "linked",
  legalComments: "none",
  logLevel: "warning",
  // Bundled CommonJS dependencies may call require(); give the ESM output one.
  banner: {
    js: "import { createRequire as __cairnRequire } from 'node:module'; const require = __cairnRequire(import.meta.url);",
  },
});

// Demo, bench and schema tools: bundled from TypeScript, dependencies loaded from node_modules.
await build({
  entryPoints: {
    demo: "demo/main.ts",
    bench: "bench/main.ts",
    "accept-schemas": "scripts/accept-schemas.ts",
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
