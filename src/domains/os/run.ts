import { accessSync, constants, realpathSync, statSync } from "node:fs";
import { basename, delimiter, isAbsolute, join } from "node:path";
import { type CappedRun, cappedRun } from "../../kernel/capped-run.js";
import { Capture } from "../../kernel/capture.js";
import { runChild } from "../../kernel/child.js";
import { childEnv } from "../../kernel/child-env.js";
import { isInside, realPathOf, withPathOutside } from "../../kernel/inside.js";
import { refuse } from "../../kernel/outcome.js";
import { bareNameProblem } from "./policy.js";

/** What a model gets of an OS run's output: 8 000 bytes per stream, with a note past that. */
export const OS_OUTPUT_CAP = 8_000;
const MAX_ARGS = 256;
const MAX_ARG_BYTES = 8 * 1024;
const MAX_ARGV_BYTES = 128 * 1024;

export function checkOsArgs(args: readonly string[]): string | undefined {
  if (args.length > MAX_ARGS) return `${args.length} arguments (at most ${MAX_ARGS})`;
  let total = 0;
  for (const arg of args) {
    if (arg.includes("\0")) return "an argument contains a NUL byte";
    const bytes = Buffer.byteLength(arg);
    if (bytes > MAX_ARG_BYTES) return `an argument is over ${MAX_ARG_BYTES} bytes`;
    total += bytes;
  }
  if (total > MAX_ARGV_BYTES) return `the arguments total over ${MAX_ARGV_BYTES} bytes`;
  return undefined;
}

/**
 * The binary's absolute path, looked up in PATH's absolute folders only: an empty or relative
 * PATH entry (`.`) would let a bare name run a file planted in the working folder. A file whose
 * real path is inside one of `untrusted` (the project workspace, which agents write) is passed
 * over the same way: `npx` puts the project's node_modules/.bin first on PATH, where a planted
 * `ls` would otherwise run under an allowed name.
 */
export function resolveBinary(
  bin: string,
  env: NodeJS.ProcessEnv,
  untrusted: readonly string[] = [],
): string | undefined {
  const realUntrusted = untrusted.map(realPathOf);
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (!dir || !isAbsolute(dir)) continue;
    const candidate = join(dir, bin);
    try {
      if (!statSync(candidate).isFile()) continue;
      accessSync(candidate, constants.X_OK);
      if (realUntrusted.length > 0) {
        const real = realpathSync.native(candidate);
        if (realUntrusted.some((folder) => isInside(folder, real))) continue;
      }
      return candidate;
    } catch {
      // Not here.
    }
  }
  return undefined;
}

/**
 * The name of the file a bare name runs, through every link (`rbash` → `bash`, `vi` →
 * `vim.basic`): what the policy also judges. Nothing when it is not bare or not installed.
 */
export function realNameOf(
  bin: string,
  env: NodeJS.ProcessEnv,
  untrusted: readonly string[] = [],
): string | undefined {
  if (bareNameProblem(bin)) return undefined;
  const path = resolveBinary(bin, env, untrusted);
  if (!path) return undefined;
  try {
    return basename(realpathSync.native(path));
  } catch {
    return undefined;
  }
}

export type OsRun = CappedRun;

export async function runOs(
  bin: string,
  args: readonly string[],
  options: {
    cwd: string;
    env: NodeJS.ProcessEnv;
    timeoutMs: number;
    signal?: AbortSignal;
    /** Variables set for this program only (git's, see git.ts). */
    extraEnv?: Readonly<Record<string, string>>;
    /** Folders whose binaries never run (the project workspace): see resolveBinary. */
    untrusted?: readonly string[];
    /** Refuses (throws) before the spawn, given the resolved path: git's configuration look. */
    check?: (path: string) => Promise<void>;
    /** Told the argv just before it is spawned, past every refusal: where the run's start is audited. */
    onStart?: (argv: readonly string[]) => void;
  },
): Promise<OsRun> {
  const path = resolveBinary(bin, options.env, options.untrusted);
  if (!path) {
    throw refuse(
      "os",
      `\`${bin}\` is allowed but not installed on this machine's PATH`,
      "os_list (`cairn os list`) shows what is allowed; install it or pick another",
    );
  }
  await options.check?.(path);
  const out = new Capture(OS_OUTPUT_CAP);
  const err = new Capture(OS_OUTPUT_CAP);
  const argv = [path, ...args];
  options.onStart?.(argv);
  const result = await runChild({
    argv,
    cwd: options.cwd,
    env: childEnv(withPathOutside(options.env, options.untrusted ?? []), options.extraEnv),
    timeoutMs: options.timeoutMs,
    killEscaped: true,
    signal: options.signal,
    onOutput: (chunk, stream) => (stream === "stdout" ? out : err).add(chunk),
  });
  return cappedRun(argv, result, out, err);
}
