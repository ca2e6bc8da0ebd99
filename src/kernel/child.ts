import type * as ChildProcesses from "node:child_process";
import type { Readable } from "node:stream";
import { childProcesses, crypto } from "./builtins.js";
import { childEnv } from "./child-env.js";
import {
  CHILD_MARK_VARIABLE,
  KILL_GRACE_MS,
  killGroupsCarrying,
  newChildMark,
  processTable,
  signalGroup,
} from "./processes.js";
import { isDirectory } from "./search-path.js";
import { plainOrQuoted as shown } from "./text.js";
import { oneLine } from "./visible-text.js";

/**
 * Every process cairn starts (verify commands, shortcuts, evaluators, agents, skill scripts, OS
 * tools, git) goes through here: argv only, never a shell; its own process group, so a timeout,
 * a cancel or cairn's own exit takes everything it started; and an environment without cairn's
 * credentials. The one process meant to outlive cairn, the browser `cairn ui --open` starts for
 * the user, goes through `launchDetached`: no credential either, and never killed.
 */

export interface ChildRequest {
  argv: readonly string[];
  cwd: string;
  /** Defaults to `childEnv()`; pass `childEnv(...)` to add variables, never a raw `process.env`. */
  env?: NodeJS.ProcessEnv;
  timeoutMs: number;
  /** Cancels the run: the group gets SIGTERM, then SIGKILL after the grace. */
  signal?: AbortSignal;
  graceMs?: number;
  /** Each chunk of output as it arrives; the caller keeps what it needs (a tail, a hash). */
  onOutput?: (chunk: Buffer, stream: "stdout" | "stderr") => void;
  /** The child's pid (= its process group id), once it has started: for supervisors that record it. */
  onSpawn?: (pid: number) => void;
  /**
   * Also kill, at the end, what left the process group (a grandchild that called setsid): found
   * by a mark in its environment. For commands cairn runs to judge or to serve an agent (verify
   * commands, shortcuts, evaluators, skill scripts, OS tools), not for a launcher whose job is to
   * leave something running.
   */
  killEscaped?: boolean;
  /**
   * Carry this cairn's mark without the search for escapees at the end that `killEscaped` makes:
   * a sweep then ends the command if this cairn dies before it does (kill -9). For git, run
   * often and briefly, whose commit hooks run the repository's code for as long as they like.
   */
  marked?: boolean;
}

export interface ChildResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  cancelled: boolean;
  /** Why it did not run to an exit code of its own: not found, could not start, timed out, cancelled. */
  error: string | null;
  durationMs: number;
}

/** Groups still running, so cairn can take them down when it is itself stopped. */
const LIVE_GROUPS = new Set<number>();
/** Marks of commands still running whose escapees must go too (`killEscaped`). */
const LIVE_MARKS = new Set<string>();

function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid !== undefined) signalGroup(pid, signal);
}

/** Stop every process group cairn started and is still supervising (on SIGTERM, SIGHUP, Ctrl-C). */
export function killAllChildren(signal: NodeJS.Signals = "SIGKILL"): void {
  for (const pid of LIVE_GROUPS) killGroup(pid, signal);
  // What left its group with setsid is found by its mark, as at the command's own end.
  if (LIVE_MARKS.size > 0) {
    const table = processTable();
    for (const mark of LIVE_MARKS) killGroupsCarrying([mark], table);
  }
}

/** What supervisors want done when this process is stopped: each settles once it has ended its work. */
const STOP_HOOKS = new Set<() => Promise<void>>();

/**
 * Ask to be told when this process is stopped by a signal (a supervised run then ends itself:
 * its row, its minted token, what left its group), before the process exits. Returns the way
 * to withdraw the hook once the work has ended on its own.
 */
export function onProcessStop(hook: () => Promise<void>): () => void {
  STOP_HOOKS.add(hook);
  return () => STOP_HOOKS.delete(hook);
}

/**
 * On a stop signal: tell every supervisor, kill every group at once, and wait (at most `ms`)
 * for the supervisors to record how their work ended.
 */
export async function stopEverything(ms: number): Promise<void> {
  const ending = [...STOP_HOOKS].map((hook) => hook().catch(() => {}));
  killAllChildren("SIGKILL");
  if (ending.length === 0) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.all(ending),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
    }),
  ]);
  clearTimeout(timer);
}

/** The longest delay one Node timer takes; a longer one is cut to 1 ms, with a warning. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Call `due` once `ms` have passed, however long that is: a manifest's `timeout_seconds` of 30
 * days is past one timer's reach, and must not be taken as "now". Returns the way to cancel it.
 */
function deadline(ms: number, due: () => void): () => void {
  let timer: NodeJS.Timeout;
  const arm = (left: number) => {
    timer = setTimeout(
      () => (left > MAX_TIMER_MS ? arm(left - MAX_TIMER_MS) : due()),
      Math.min(left, MAX_TIMER_MS),
    );
  };
  arm(ms);
  return () => clearTimeout(timer);
}

/** Run argv in its own process group; the group is killed when the command exits, too. */
/**
 * Why a program did not start, from the error spawn reported. A missing working directory fails
 * spawn with ENOENT too: named as such, never as a program that is not there.
 */
function startFailure(program: string, cwd: string, error: NodeJS.ErrnoException): string {
  if (!isDirectory(cwd)) return `its working directory ${shown(cwd)} is not a directory that exists`;
  return error.code === "ENOENT"
    ? `command not found: ${shown(program)}`
    : `could not start ${shown(program)}: ${oneLine(error.message)}`;
}

export function runChild(request: ChildRequest): Promise<ChildResult> {
  const [program, ...args] = request.argv;
  const started = performance.now();
  const grace = request.graceMs ?? KILL_GRACE_MS;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: Omit<ChildResult, "durationMs">) => {
      if (settled) return;
      settled = true;
      resolve({ ...result, durationMs: Math.round(performance.now() - started) });
    };
    if (!program) {
      finish({ exitCode: null, signal: null, timedOut: false, cancelled: false, error: "empty command" });
      return;
    }
    if (request.signal?.aborted) {
      finish({
        exitCode: null,
        signal: null,
        timedOut: false,
        cancelled: true,
        error: "cancelled before it started",
      });
      return;
    }
    const mark =
      request.killEscaped || request.marked
        ? `${CHILD_MARK_VARIABLE}=${newChildMark(crypto().randomUUID())}`
        : undefined;
    const escapees = request.killEscaped ? mark : undefined;
    const env = request.env ?? childEnv();
    let child: ChildProcesses.ChildProcessByStdio<null, Readable, Readable>;
    try {
      child = childProcesses().spawn(program, args, {
        cwd: request.cwd,
        env: mark ? { ...env, [CHILD_MARK_VARIABLE]: mark.slice(CHILD_MARK_VARIABLE.length + 1) } : env,
        shell: false,
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
      });
    } catch (error) {
      // Refused before any process exists (a NUL byte in an argument, the environment or the
      // directory): a result like any command that could not start, never a throw its
      // supervisor must remember to catch (a remediation's row was left running by one).
      finish({
        exitCode: null,
        signal: null,
        timedOut: false,
        cancelled: false,
        error: `could not start ${shown(program)}: ${oneLine((error as Error).message)}`,
      });
      return;
    }
    if (escapees) LIVE_MARKS.add(escapees);
    if (child.pid !== undefined) {
      LIVE_GROUPS.add(child.pid);
      request.onSpawn?.(child.pid);
    }
    let timedOut = false;
    let cancelled = false;
    let spawnError: string | null = null;
    const stop = () => {
      killGroup(child.pid, "SIGTERM");
      setTimeout(() => killGroup(child.pid, "SIGKILL"), grace).unref();
    };
    const cancelDeadline = deadline(request.timeoutMs, () => {
      timedOut = true;
      stop();
    });
    const onAbort = () => {
      cancelled = true;
      stop();
    };
    request.signal?.addEventListener("abort", onAbort, { once: true });
    child.stdout.on("data", (chunk: Buffer) => request.onOutput?.(chunk, "stdout"));
    child.stderr.on("data", (chunk: Buffer) => request.onOutput?.(chunk, "stderr"));
    const cleanUp = () => {
      cancelDeadline();
      request.signal?.removeEventListener("abort", onAbort);
      // Whatever the command left running in its group goes with it, and what left the group.
      killGroup(child.pid, "SIGKILL");
      if (escapees) {
        killGroupsCarrying([escapees]);
        LIVE_MARKS.delete(escapees);
      }
      if (child.pid !== undefined) LIVE_GROUPS.delete(child.pid);
    };
    child.on("error", (error: NodeJS.ErrnoException) => {
      spawnError = startFailure(program, request.cwd, error);
      if (child.pid === undefined) {
        cleanUp();
        finish({ exitCode: null, signal: null, timedOut: false, cancelled: false, error: spawnError });
      }
    });
    // A grandchild holding the pipes open would delay "close" forever: the group goes at exit.
    // One that left the group (setsid) still holds them: after the grace they are let go, so the
    // command's end is its own exit, not that of whatever it left behind.
    child.on("exit", () => {
      killGroup(child.pid, "SIGKILL");
      setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
      }, grace).unref();
    });
    child.on("close", (code, signal) => {
      cleanUp();
      const limit =
        request.timeoutMs < 1000 ? `${request.timeoutMs} ms` : `${Math.round(request.timeoutMs / 1000)} s`;
      finish({
        exitCode: spawnError ? null : code,
        signal: signal ?? null,
        timedOut,
        cancelled,
        error:
          spawnError ??
          (timedOut
            ? `timed out after ${limit}; its process group was killed`
            : cancelled
              ? "cancelled; its process group was killed"
              : null),
      });
    });
  });
}

/**
 * Start a program whose job is to leave something running for the user, such as the browser
 * `cairn ui --open` asks for. Unlike `runChild`, it has no deadline and is never killed: not at
 * its exit (an opener may leave the browser in its group), not when cairn stops. It runs in a
 * session of its own, so a Ctrl-C at cairn's terminal does not reach it either, and it gets no
 * credential (`childEnv`). Resolves with why it failed once it ends, or null if it ended well.
 */
export function launchDetached(request: { argv: readonly string[]; cwd: string }): Promise<string | null> {
  const [program, ...args] = request.argv;
  if (!program) return Promise.resolve("empty command");
  return new Promise((resolve) => {
    let child: ChildProcesses.ChildProcess;
    try {
      child = childProcesses().spawn(program, args, {
        cwd: request.cwd,
        env: childEnv(),
        shell: false,
        detached: true,
        stdio: "ignore",
      });
    } catch (error) {
      resolve(`could not start ${shown(program)}: ${oneLine((error as Error).message)}`);
      return;
    }
    child.unref();
    child.once("error", (error: NodeJS.ErrnoException) => resolve(startFailure(program, request.cwd, error)));
    child.once("exit", (code, signal) =>
      resolve(code === 0 ? null : `${program} ended with ${signal ?? `exit code ${code}`}`),
    );
  });
}
