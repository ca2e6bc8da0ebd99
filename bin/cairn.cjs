#!/usr/bin/env node
"use strict";
// Start cairn from dist/cairn.cjs with a V8 code cache: the bytecode compiled by an earlier run
// (recorded at build time, one per face), so a start deserializes instead of compiling. A cache
// that is missing or no longer matches (another Node, a rebuilt bundle) is simply recompiled
// and, where dist/ is writable, recorded anew at exit. See scripts/code-cache.mjs.
// CommonJS, not an ES module: node starts a .cjs entry without setting up its ES module loader,
// which is a tenth of `node -e 0` again. bin/cairn.mjs, the older path, only loads this file.
const { readFileSync, renameSync, writeFileSync } = require("node:fs");
const { createRequire } = require("node:module");
const { join } = require("node:path");
const { setFlagsFromString } = require("node:v8");
const { Script } = require("node:vm");

const face = process.argv[2] === "mcp" ? "mcp" : "cli";
const dist = join(__dirname, "..", "dist");
const bundle = join(dist, "cairn.cjs");
const cacheFile = join(dist, `cairn.${face}.cache`);

// V8 tuning for start-up, which runs one-off code (building schemas, opening the store) whose
// objects all live on. Optimising that code is wasted work, and the young generation's size is
// a trade: a server keeps it at its first size, so idle it holds ~10 MB less (its objects are
// promoted at once), while a CLI call grows it fast, so it scavenges twice rather than four
// times. A code cache is only accepted under the flags it was made with, so they are set before
// the cache is read and again before one is recorded.
const START_FLAGS = ["--no-opt", `--semi-space-growth-factor=${face === "mcp" ? 1 : 8}`];
const SERVING_FLAGS = ["--opt", "--semi-space-growth-factor=2"];
const setFlags = (flags) => {
  for (const flag of flags) setFlagsFromString(flag);
};
setFlags(START_FLAGS);
// A server gets V8's defaults back once its client has initialized (src/kernel/start-flags.ts):
// its start-up objects are in the old generation by then, and its first calls are served by
// optimised code with a young generation free to grow under a burst. Measured: the first
// second's whoami p50 ~0.76 ms against ~0.97 with a fixed one-second timer, idle RSS unchanged.
// Any other process still running after a second (the daemon, `cairn ui`, a long export) gets
// them then; a call that ends sooner never sees them.
process.once("cairn:started", () => setFlags(SERVING_FLAGS));
setTimeout(() => setFlags(SERVING_FLAGS), 1_000).unref();

let cachedData;
try {
  cachedData = readFileSync(cacheFile);
} catch {
  cachedData = undefined;
}
// The wrapped text is the only copy of the bundle kept: the script holds it for lazy compiles.
const script = new Script(
  // The build keeps the bundle ASCII (esbuild escapes the rest), so latin1 reads it exactly and
  // faster than utf8, which would first scan it for multi-byte sequences.
  `(function (exports, require, module, __filename, __dirname) {${readFileSync(bundle, "latin1")}\n})`,
  { filename: bundle, cachedData },
);
const rejected = cachedData === undefined || script.cachedDataRejected;
cachedData = undefined; // compiled: the buffer would only hold memory from here on
if (rejected || process.env.CAIRN_RECORD_CODE_CACHE === "1") {
  process.once("exit", () => {
    try {
      setFlags(START_FLAGS);
      const temporary = `${cacheFile}.${process.pid}`;
      writeFileSync(temporary, script.createCachedData());
      renameSync(temporary, cacheFile);
    } catch {
      // A read-only install starts a little slower; nothing else changes.
    }
  });
}
const bundleModule = { exports: {} };
script.runInThisContext()(bundleModule.exports, createRequire(bundle), bundleModule, bundle, dist);
