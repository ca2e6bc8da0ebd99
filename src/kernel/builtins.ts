import type * as ChildProcesses from "node:child_process";
import type * as Crypto from "node:crypto";
import type * as FsPromises from "node:fs/promises";
import type * as Os from "node:os";
import type * as WorkerThreads from "node:worker_threads";

// Node modules that cost a start real time to load, handed out on first use instead of with the
// module that names them. The bundle initialises every module a face's command table reaches, so a
// static import here is paid by every CLI call and every server start, whether the call ever
// hashes, spawns or searches. Measured on this machine: node:crypto ~5 ms, node:worker_threads
// ~3 ms, node:child_process ~2.5 ms (it brings in net, dgram and the streams), node:fs/promises
// (eight internal modules, readline among them), node:os 0.3 ms (os.homedir() is only asked
// without HOME).
// test/e2e/startup-modules.test.ts holds the starts that must not load them.

export const crypto = (): typeof Crypto => process.getBuiltinModule("node:crypto");
export const os = (): typeof Os => process.getBuiltinModule("node:os");
export const fsPromises = (): typeof FsPromises => process.getBuiltinModule("node:fs/promises");
export const childProcesses = (): typeof ChildProcesses => process.getBuiltinModule("node:child_process");
export const workerThreads = (): typeof WorkerThreads => process.getBuiltinModule("node:worker_threads");

/**
 * The SHA-256 of a whole text (as UTF-8) or buffer at once, in hex. A digest built up in pieces (a
 * tree's fingerprint, a command's streamed output) keeps a Hash of its own. The one-shot `hash`
 * makes no Hash object: a catalog of 500 manifests hashes each, and the objects cost more than
 * the hashing (2.5 ms against 1.0 ms for 500 texts of 200 characters).
 */
export const sha256Hex = (data: string | Uint8Array): string => crypto().hash("sha256", data, "hex");
