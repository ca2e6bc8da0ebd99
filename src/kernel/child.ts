import type * as ChildProcesses from "node:child_process";
import { isAbsolute, resolve } from "node:path";
import type { Readable } from "node:stream";
import { childProcesses, crypto } from "./builtins.js";
import { CHILD_MARK_VARIABLE, killGroupsCarrying, processTable } from "./processes.js";
import { absolutePath, isDirectory } from "./search-path.js";
import {
  boardsStartedFor,
  STARTED_FOR_VARIABLE,
  servedBoard,
  storeCredentialVariables,
} from "./started-for.js";
import { urlWithoutPassword } from "./url-password.js";

/**
 * Every process cairn starts (verify commands, shortcuts, evaluators, agents, skill scripts, OS
 * tools, git) goes through here: argv only, never a shell; its own process group, so a timeout,
 * a cancel or cairn's own exit takes everything it started; and an environment without cairn's
 * credentials. The one process meant to outlive cairn, the browser `cairn ui --open` starts for
 * the user, goes through `launchDetached`: no credential either, and never killed.
 */

/** Variables that carry a cairn credential. A child that must act on the board gets its own token. */
const CREDENTIAL_VARIABLES = ["CAIRN_AGENT"] as const;

/**
 * Variables that put code of the caller's choosing into what a check runs, whatever its argv says:
 * `NODE_OPTIONS=--require ./pass.cjs` or `npm_config_script_shell=/bin/true` on `cairn attempt
 * eval` or `cairn task check` made a failing `npm test` pass. Whoever is checked runs the check,
 * so none of them reaches one; a check that needs such a setting names it in its argv
 * (`env NODE_OPTIONS=… npm test`), which is the check's own. Those that name a toolchain's folder
 * (JAVA_HOME, GOROOT…) are a setting's locations too: whoever set the check chose them
 * (kernel/setting.ts).
 */
const INJECTING = [
  /^NODE_(OPTIONS|PATH)$/,
  /^(npm|yarn|pnpm|bun)_config_/i,
  /^YARN_/,
  // Python: where modules and their compiled bytecode come from (a cache folder of forged .pyc
  // files passes a failing test whose source is untouched), the module a warning filter names
  // (imported to read it), the hook `breakpoint()` calls, and the interpreter a pyenv shim picks.
  /^PYTHON(PATH|HOME|STARTUP|USERBASE|INSPECT|PYCACHEPREFIX|WARNINGS|BREAKPOINT|PLATLIBDIR)$/,
  /^PYENV_(VERSION|ROOT)$/,
  /^PYTEST_(ADDOPTS|PLUGINS)$/,
  /^LD_(PRELOAD|LIBRARY_PATH|AUDIT)$/,
  /^DYLD_/,
  /^GCONV_PATH$/,
  // Shells: startup files and options, a function exported under a command's name (bash runs
  // `BASH_FUNC_node%%` for every `node` a script calls), and a trace prompt that runs code.
  /^(BASH_ENV|ENV|ZDOTDIR|SHELLOPTS|BASHOPTS|PS4)$/,
  /^BASH_FUNC_/,
  // git: programs it runs, configuration given in variables, and the repository it looks at.
  /^GIT_(EXEC_PATH|EXTERNAL_DIFF|ASKPASS|SSH|SSH_COMMAND|PROXY_COMMAND|TEMPLATE_DIR)$/,
  /^GIT_CONFIG(_PARAMETERS|_COUNT|_KEY_\d+|_VALUE_\d+|_SYSTEM|_NOSYSTEM)?$/,
  /^GIT_(DIR|WORK_TREE|INDEX_FILE|OBJECT_DIRECTORY|ALTERNATE_OBJECT_DIRECTORIES|COMMON_DIR|NAMESPACE)$/,
  // make reads MAKEFILES before the project's Makefile, and MAKEFLAGS may set its SHELL.
  /^(MAKEFILES|MAKEFLAGS|MFLAGS)$/,
  // Build tools that run a program of the variable's choosing: a compiler wrapper, a test
  // runner (`go test -exec`, cargo's target runner), a linker in flags, JVM agents, .NET hooks.
  /^(RUSTC|RUSTC_WRAPPER|RUSTC_WORKSPACE_WRAPPER|RUSTDOC|RUSTFLAGS|RUSTDOCFLAGS)$/,
  // The toolchain rustup runs for `cargo` (a folder of the caller's holding a `cargo` that exits 0).
  /^RUSTUP_TOOLCHAIN$/,
  /^CARGO_(ENCODED_RUSTFLAGS|BUILD_RUSTC.*|BUILD_RUSTDOC.*|TARGET_.+_(RUNNER|LINKER|RUSTFLAGS))$/,
  // go: its flags, the toolchain it switches to, and where modules are fetched from unchecked.
  /^(GOFLAGS|GOROOT|GOTOOLCHAIN|GOPROXY|GONOPROXY|GOSUMDB|GONOSUMDB|GONOSUMCHECK|GOPRIVATE|GOINSECURE)$/,
  // A C toolchain chosen by variable (cgo, make's implicit rules, node-gyp), and flags that load
  // compiler plugins or link other objects.
  /^(CC|CXX|CPP|LD|AR|AS|FC|CGO_[A-Z]+|CFLAGS|CXXFLAGS|CPPFLAGS|LDFLAGS|LDLIBS)$/,
  /^PERL5?(OPT|LIB)$/,
  /^RUBY(OPT|LIB)$/,
  // Ruby: the Gemfile bundler loads and where gems are found.
  /^(BUNDLE_GEMFILE|GEM_HOME|GEM_PATH)$/,
  // The JVM a build's wrapper script starts (gradlew and mvnw run $JAVA_HOME/bin/java), its
  // options (an agent), and classes found first.
  /^(JAVA_HOME|JAVA_OPTS|CLASSPATH|JAVA_TOOL_OPTIONS|_JAVA_OPTIONS|JDK_JAVA_OPTIONS)$/,
  /^(MAVEN_OPTS|MAVEN_ARGS|MAVEN_HOME|M2_HOME|GRADLE_OPTS|SBT_OPTS|ANT_OPTS)$/,
  /^(DOTNET_STARTUP_HOOKS|CORECLR_ENABLE_PROFILING|COR_ENABLE_PROFILING)$/,
  /^(DOTNET_ROOT|DOTNET_ADDITIONAL_DEPS|DOTNET_SHARED_STORE)$/,
  // The package managers corepack downloads and runs, and from where.
  /^COREPACK_/,
  /^(PHPRC|PHP_INI_SCAN_DIR|LUA_INIT(_5_\d)?)$/,
];

/**
 * The environment for a child: the base minus every cairn credential and PATH's relative folders
 * (`absolutePath`), plus `extra`, marked with the boards it is started for (this process's own
 * marks, whatever the base, and the board it serves; see started-for.ts).
 */
export function childEnv(
  base: NodeJS.ProcessEnv = process.env,
  extra: Readonly<Record<string, string>> = {},
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base };
  for (const name of CREDENTIAL_VARIABLES) delete env[name];
  for (const name of Object.keys(env)) if (/^CAIRN_.*TOKEN/.test(name)) delete env[name];
  if (env.PATH !== undefined) env.PATH = absolutePath(env.PATH);
  // CAIRN_STORE_URL is cairn's own; a password in it (accepted in memory) is cairn's to hold. A
  // child with no token of its own is refused the board anyway, so it needs no way in. So is
  // PGPASSWORD while this process serves a board on PostgreSQL: it is then the store's password.
  // On a SQLite board it is nobody's but the user's (a test suite's database) and passes.
  if (env.CAIRN_STORE_URL) env.CAIRN_STORE_URL = urlWithoutPassword(env.CAIRN_STORE_URL);
  for (const name of storeCredentialVariables()) delete env[name];
  // A relative CAIRN_DIR (or CAIRN_HOME) names a workspace from this process's directory; a
  // child started elsewhere (a shortcut or check at the workspace root) would read another one.
  for (const name of ["CAIRN_DIR", "CAIRN_HOME"]) {
    const value = env[name];
    if (value && !isAbsolute(value)) env[name] = resolve(value);
  }
  const marked: NodeJS.ProcessEnv = { ...env, ...extra };
  // Applied last: no caller's variables can unmark a child.
  const boards = new Set(boardsStartedFor(process.env));
  const served = servedBoard();
  if (served !== undefined) boards.add(served);
  if (boards.size > 0) marked[STARTED_FOR_VARIABLE] = JSON.stringify([...boards]);
  else delete marked[STARTED_FOR_VARIABLE];
  return marked;
}

/**
 * The environment of a check (an evaluator, a verify command, the definition of done): a child's,
 * minus every variable that injects code into what it runs (`INJECTING`).
 */
export function checkEnv(
  base: NodeJS.ProcessEnv = process.env,
  extra: Readonly<Record<string, string>> = {},
): NodeJS.ProcessEnv {
  const env = childEnv(base, extra);
  for (const name of Object.keys(env)) if (INJECTING.some((rule) => rule.test(name))) delete env[name];
  return env;
}

/** After a timeout or a cancel, the group gets this long to exit on SIGTERM before SIGKILL. */
export const KILL_GRACE_MS = 1_000;

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
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is already gone.
  }
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
  if (!isDirectory(cwd)) return `its working directory ${cwd} is not a directory that exists`;
  return error.code === "ENOENT"
    ? `command not found: ${program}`
    : `could not start ${program}: ${error.message}`;
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
        ? `${CHILD_MARK_VARIABLE}=${process.pid}.${crypto().randomUUID()}`
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
        error: `could not start ${program}: ${(error as Error).message}`,
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
      resolve(`could not start ${program}: ${(error as Error).message}`);
      return;
    }
    child.unref();
    child.once("error", (error: NodeJS.ErrnoException) => resolve(startFailure(program, request.cwd, error)));
    child.once("exit", (code, signal) =>
      resolve(code === 0 ? null : `${program} ended with ${signal ?? `exit code ${code}`}`),
    );
  });
}
