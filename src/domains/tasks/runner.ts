import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import type { Evidence } from "../../store/tasks.js";

/** What is kept of a command's output: its tail. The rest is only counted and hashed. */
export const OUTPUT_TAIL_BYTES = 4_096;
/** After a timeout, the group gets this long to exit on SIGTERM before SIGKILL. */
const KILL_GRACE_MS = 1_000;

export interface RunRequest {
  argv: readonly string[];
  cwd: string;
  timeoutMs: number;
  now: () => string;
}

/**
 * Run a command as argv (never through a shell) in its own process group, so a timeout kills
 * everything it started. Output is streamed into a hash and a bounded tail: a command that
 * prints gigabytes costs no memory.
 */
export function runCommand(request: RunRequest): Promise<Evidence> {
  const [command, ...args] = request.argv;
  const at = request.now();
  const started = performance.now();
  const hash = createHash("sha256");
  let tail = Buffer.alloc(0);
  let bytes = 0;
  const take = (chunk: Buffer) => {
    bytes += chunk.length;
    hash.update(chunk);
    tail = Buffer.concat([tail, chunk]);
    // Copy, so the kept tail does not pin the large chunk it was cut from.
    if (tail.length > OUTPUT_TAIL_BYTES * 2) tail = Buffer.from(tail.subarray(-OUTPUT_TAIL_BYTES));
  };
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: Pick<Evidence, "exit_code" | "signal" | "timed_out" | "error">) => {
      if (settled) return;
      settled = true;
      resolve({
        argv: [...request.argv],
        ...result,
        duration_ms: Math.round(performance.now() - started),
        output_bytes: bytes,
        output_tail: tail.subarray(-OUTPUT_TAIL_BYTES).toString("utf8"),
        output_sha256: hash.digest("hex"),
        git_head: gitHead(request.cwd),
        at,
      });
    };
    if (!command) {
      finish({ exit_code: null, signal: null, timed_out: false, error: "empty command" });
      return;
    }
    const child = spawn(command, args, {
      cwd: request.cwd,
      shell: false,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let timedOut = false;
    let spawnError: string | null = null;
    const killGroup = (signal: NodeJS.Signals) => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, signal);
      } catch {
        // The group is already gone.
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup("SIGTERM");
      setTimeout(() => killGroup("SIGKILL"), KILL_GRACE_MS).unref();
    }, request.timeoutMs);
    child.stdout.on("data", take);
    child.stderr.on("data", take);
    child.on("error", (error: NodeJS.ErrnoException) => {
      spawnError =
        error.code === "ENOENT"
          ? `command not found: ${command}`
          : `could not start ${command}: ${error.message}`;
      if (child.pid === undefined) {
        clearTimeout(timer);
        finish({ exit_code: null, signal: null, timed_out: false, error: spawnError });
      }
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      // Whatever the command left running in its group goes with it.
      killGroup("SIGKILL");
      finish({
        exit_code: spawnError ? null : code,
        signal: signal ?? null,
        timed_out: timedOut,
        error:
          spawnError ??
          (timedOut ? `timed out after ${Math.round(request.timeoutMs / 1000)} s; killed` : null),
      });
    });
  });
}

/** The commit the evidence was taken at, or null outside a git checkout. */
export function gitHead(cwd: string): string | null {
  const run = spawnSync("git", ["rev-parse", "HEAD"], { cwd, encoding: "utf8", timeout: 5_000 });
  return run.status === 0 ? run.stdout.trim() : null;
}

export const passed = (evidence: Evidence) =>
  evidence.exit_code === 0 && !evidence.timed_out && !evidence.error;
