#!/usr/bin/env node
"use strict";
// Start cairn from its bundle with a V8 code cache: the bytecode compiled by an earlier run
// (recorded at build time, one per face), so a start deserializes instead of compiling. A cache
// that is missing or no longer matches (another Node, a rebuilt bundle) is simply recompiled
// and, where dist/ is writable, recorded anew at exit. See scripts/code-cache.mjs.
// CommonJS, not an ES module: node starts a .cjs entry without setting up its ES module loader,
// which is a tenth of `node -e 0` again. bin/cairn.mjs, the older path, only loads this file.
const { closeSync, fstatSync, openSync, readSync, renameSync, writeFileSync } = require("node:fs");
const { createRequire } = require("node:module");
const { join } = require("node:path");
const { Script } = require("node:vm");

const face = process.argv[2] === "mcp" ? "mcp" : "cli";
const dist = join(__dirname, "..", "dist");
// The MCP server's bundle holds the SDK; the CLI's leaves it out (scripts/build.mjs).
const bundle = join(dist, face === "mcp" ? "cairn.cjs" : "cairn-cli.cjs");
const cacheFile = join(dist, `cairn.${face}.cache`);

// V8 tuning for a server's start-up, which runs one-off code (building schemas, opening the
// store) whose objects all live on. Optimising that code is wasted work, and a young generation
// kept at its first size makes an idle server hold ~10 MB less (its objects are promoted at
// once). A code cache is only accepted under the flags it was made with, so they are set before
// the cache is read and again before one is recorded. A CLI call sets none: loading node:v8 to
// set them (it brings in the streams stack) cost more than they saved, ~4 ms of a `cairn status`.
const START_FLAGS = face === "mcp" ? ["--no-opt", "--semi-space-growth-factor=1"] : [];
const SERVING_FLAGS = ["--opt", "--semi-space-growth-factor=2"];
const setFlags = (flags) => {
  for (const flag of flags) require("node:v8").setFlagsFromString(flag);
};
setFlags(START_FLAGS);
if (face === "mcp") {
  // The server gets V8's defaults back once its client has initialized (src/kernel/start-flags.ts):
  // its start-up objects are in the old generation by then, and its first calls are served by
  // optimised code with a young generation free to grow under a burst. Measured: the first
  // second's whoami p50 ~0.76 ms against ~0.97 with a fixed one-second timer, idle RSS unchanged.
  // A server whose client never initializes gets them after a second.
  process.once("cairn:started", () => setFlags(SERVING_FLAGS));
  setTimeout(() => setFlags(SERVING_FLAGS), 1_000).unref();
}

/**
 * The whole of a file, read into `into` when it is large enough, else into a new buffer. The
 * cache is read into the memory that held the bundle's bytes: on a virtual machine each page a
 * process touches for the first time costs ~5 µs, and the two files are ~400 pages.
 */
function readWhole(path, into) {
  const fd = openSync(path, "r");
  try {
    const size = fstatSync(fd).size;
    const buffer = into !== undefined && into.length >= size ? into : Buffer.allocUnsafeSlow(size);
    let read = 0;
    while (read < size) {
      const count = readSync(fd, buffer, read, size - read, read);
      if (count === 0) break;
      read += count;
    }
    return buffer.subarray(0, read);
  } finally {
    closeSync(fd);
  }
}

// The build wraps the bundle in the function below (see scripts/build.mjs), so its text is the
// script as it is compiled, with no copy made to wrap it. It is ASCII (esbuild escapes the
// rest), so latin1 reads it exactly and faster than utf8, which would first scan it for
// multi-byte sequences. The string is the only copy of the bundle kept: the script holds it for
// lazy compiles.
const bytes = readWhole(bundle);
const source = bytes.toString("latin1");
let cachedData;
try {
  cachedData = readWhole(cacheFile, bytes);
} catch {
  cachedData = undefined;
}
const script = new Script(source, { filename: bundle, cachedData });
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
