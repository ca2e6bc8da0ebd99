// Bundle the program into dist/: one file per entry plus shared chunks, so `cairn mcp` never
// loads the CLI parser and a CLI call never loads the MCP SDK. Native better-sqlite3 stays external.
import { build } from "esbuild";

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
