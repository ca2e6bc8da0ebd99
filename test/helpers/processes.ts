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
