import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const made = new Set<string>();
let hooked = false;

/**
 * A scratch directory removed when the process exits, however it exits (the demo and the bench
 * suites must not leave workspaces behind in the system's temp directory).
 */
export function tempDir(prefix: string): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
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
