import { chmodSync, cpSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { REPO_ROOT } from "./workspace.js";

/** What the built program needs at run time besides its bundle: the native SQLite binding. */
const RUNTIME_PACKAGES = ["better-sqlite3", "bindings", "file-uri-to-path"];

function openUp(path: string): void {
  const mode = statSync(path).mode;
  if (statSync(path).isDirectory()) {
    chmodSync(path, 0o755);
    for (const entry of readdirSync(path)) openUp(join(path, entry));
  } else chmodSync(path, mode | 0o444);
}

/**
 * A world-readable copy of the built cairn, for a test that runs it as another (unprivileged)
 * user: that user may not be able to enter the clone at all (a home directory, a `mktemp -d`
 * made 0700), and the test must not depend on where the clone lives.
 */
export function portableCairn(): { bin: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "cairn-portable-"));
  cpSync(join(REPO_ROOT, "dist"), join(dir, "dist"), { recursive: true });
  // The real launcher: it finds dist/ beside itself and starts the bundle from its code cache.
  cpSync(join(REPO_ROOT, "bin"), join(dir, "bin"), { recursive: true });
  for (const name of RUNTIME_PACKAGES) {
    cpSync(join(REPO_ROOT, "node_modules", name), join(dir, "node_modules", name), {
      recursive: true,
      // The SQLite sources are build inputs; the compiled binding is all that runs.
      filter: (source) => !["deps", "src"].includes(basename(source)) || !source.includes("better-sqlite3"),
    });
  }
  openUp(dir);
  return { bin: join(dir, "bin", "cairn.cjs"), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
