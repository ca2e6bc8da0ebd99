#!/usr/bin/env node
// Start cairn from dist/cairn.cjs with a V8 code cache: the bytecode compiled by an earlier run
// (recorded at build time, one per face), so a start deserializes instead of compiling. A cache
// that is missing or no longer matches (another Node, a rebuilt bundle) is simply recompiled
// and, where dist/ is writable, recorded anew at exit. See scripts/code-cache.mjs.
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Script } from "node:vm";

const dist = join(dirname(fileURLToPath(import.meta.url)), "..", "dist");
const bundle = join(dist, "cairn.cjs");
const cacheFile = join(dist, `cairn.${process.argv[2] === "mcp" ? "mcp" : "cli"}.cache`);

let cachedData;
try {
  cachedData = readFileSync(cacheFile);
} catch {
  cachedData = undefined;
}
const source = readFileSync(bundle, "utf8");
const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
  filename: bundle,
  cachedData,
});
const rejected = cachedData === undefined || script.cachedDataRejected;
cachedData = undefined; // compiled: the buffer would only hold memory from here on
if (rejected || process.env.CAIRN_RECORD_CODE_CACHE === "1") {
  process.once("exit", () => {
    try {
      const temporary = `${cacheFile}.${process.pid}`;
      writeFileSync(temporary, script.createCachedData());
      renameSync(temporary, cacheFile);
    } catch {
      // A read-only install starts a little slower; nothing else changes.
    }
  });
}
const module = { exports: {} };
script.runInThisContext()(module.exports, createRequire(bundle), module, bundle, dist);
