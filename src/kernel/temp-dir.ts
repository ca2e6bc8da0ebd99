import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { join } from "node:path";
import { os } from "./builtins.js";
import { removeLeftoversOfDeadProcesses } from "./leftovers.js";

const made = new Set<string>();
let hooked = false;

/**
 * A scratch directory removed when the process exits, however it exits (the demo and the bench
 * suites must not leave workspaces behind in the system's temp directory).
 */
export function tempDir(prefix: string): string {
  const dir = realpathSync(mkdtempSync(join(os().tmpdir(), prefix)));
  made.add(dir);
  if (!hooked) {
    hooked = true;
    process.once("exit", () => {
      for (const path of made) rmSync(path, { recursive: true, force: true });
    });
    for (const signal of ["SIGINT", "SIGTERM"] as const) {
      process.once(signal, () => process.exit(130));
    }
  }
  return dir;
}

/** Work folders not yet removed; one exit hook serves them all, however many calls run at once. */
const working = new Set<string>();
let workHooked = false;

/**
 * A folder one piece of work needs while it runs (a skill run's compiled copies), in `parent`
 * or else the system's temp directory, removed by
 * `remove()` when the work ends, or at the process's exit if it never gets there: a stop signal
 * exits from main.ts without unwinding the work's `finally`.
 */
export function workFolder(prefix: string, parent?: string): { path: string; remove: () => void } {
  if (parent !== undefined) mkdirSync(parent, { recursive: true, mode: 0o700 });
  const path = mkdtempSync(join(parent ?? os().tmpdir(), prefix));
  working.add(path);
  if (!workHooked) {
    workHooked = true;
    process.once("exit", () => {
      for (const folder of working) rmSync(folder, { recursive: true, force: true });
    });
  }
  return {
    path,
    remove: () => {
      working.delete(path);
      rmSync(path, { recursive: true, force: true });
    },
  };
}

/**
 * A work folder (workFolder) named `<prefix><pid>-…`, made after removing the folders of this
 * kind a process killed outright (kill -9) left behind, once their pid runs no more: no exit hook
 * runs then, and a folder named without a pid stayed for good.
 */
export function ownWorkFolder(prefix: string, parent?: string): { path: string; remove: () => void } {
  removeLeftoversOfDeadProcesses(parent ?? os().tmpdir(), prefix, /^-.+$/);
  return workFolder(`${prefix}${process.pid}-`, parent);
}
