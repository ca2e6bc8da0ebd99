import { existsSync, readFileSync } from "node:fs";

/** True once a process no longer runs (gone, or a zombie awaiting its reaper). */
export function processGone(pid: number): boolean {
  try {
    return /State:\s+Z/.test(readFileSync(`/proc/${pid}/status`, "utf8"));
  } catch {
    return true;
  }
}

/** Poll a condition that no event announces (a file another process writes, a pid exiting). */
export async function waitFor(check: () => boolean, ms = 15_000, what = "a condition"): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The pid a command wrote to `file` (`sh -c 'echo $$ > file; exec sleep 120'`), once written. */
export async function pidFrom(file: string): Promise<number> {
  await waitFor(() => existsSync(file) && /^\d+\n/.test(readFileSync(file, "utf8")), 15_000, file);
  return Number(readFileSync(file, "utf8").trim());
}

/** Network sockets this process holds (a PostgreSQL connection is one). */
export const sockets = () =>
  process.getActiveResourcesInfo().filter((kind) => kind === "TCPSocketWrap").length;

/**
 * The sockets held once whatever was started has had time to connect (half a second), and those
 * being ended have had time to close (waiting up to two seconds more for `count`).
 */
export async function socketsSettleAt(count: number): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, 500));
  for (let waited = 0; sockets() !== count && waited < 2_000; waited += 50) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return sockets();
}
