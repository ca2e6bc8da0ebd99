import { crypto } from "../../kernel/builtins.js";
import { runChild } from "../../kernel/child.js";
import { checkEnv, childEnv } from "../../kernel/child-env.js";
import { gitHead } from "../../kernel/git.js";
import { lastLine } from "../../kernel/progress.js";
import { maskSecretsIn } from "../../kernel/secret-mask.js";
import { type Setting, withSetting } from "../../kernel/setting.js";
import type { Evidence } from "../../store/tasks.js";

/** What is kept of a command's output: its tail. The rest is only counted and hashed. */
export const OUTPUT_TAIL_BYTES = 4_096;

export interface RunRequest {
  argv: readonly string[];
  cwd: string;
  timeoutMs: number;
  now: () => string;
  /** The caller's cancel (MCP cancel, Ctrl-C): the command's process group is killed. */
  signal?: AbortSignal;
  /** Extra variables for the child (a run identity's token); never the caller's credentials. */
  env?: Readonly<Record<string, string>>;
  /**
   * A check (a criterion's verify command, the definition of done): run without the caller's
   * variables that inject code (`checkEnv`), since the caller is the one being checked.
   */
  check?: boolean;
  /**
   * Where a check finds its programs and which home it reads, recorded from whoever set it (a
   * criterion's author, the owner for the definition of done): see kernel/setting.ts.
   */
  setting?: Setting | null;
  /** Told as output arrives, with a way to read its latest line (read only when shown). */
  onOutput?: (latestLine: () => string) => void;
}

/**
 * Run a verify command or a shortcut through the supervised child runner: argv (never a shell),
 * its own process group, no cairn credential in its environment. Output is streamed into a hash
 * and a bounded tail: a command that prints gigabytes costs no memory.
 */
export async function runCommand(request: RunRequest): Promise<Evidence> {
  const at = request.now();
  const hash = crypto().createHash("sha256");
  let tail = Buffer.alloc(0);
  let bytes = 0;
  const take = (chunk: Buffer) => {
    bytes += chunk.length;
    hash.update(chunk);
    tail = Buffer.concat([tail, chunk]);
    // Copy, so the kept tail does not pin the large chunk it was cut from.
    if (tail.length > OUTPUT_TAIL_BYTES * 2) tail = Buffer.from(tail.subarray(-OUTPUT_TAIL_BYTES));
    request.onOutput?.(() => lastLine(maskSecretsIn(tail.subarray(-OUTPUT_TAIL_BYTES).toString("utf8"))));
  };
  // The commit the command ran on, as its tree is (criterion-run names the tree before it too): a
  // command that commits would otherwise be recorded as run on the commit it made.
  const head = await gitHead(request.cwd);
  const result = await runChild({
    argv: request.argv,
    cwd: request.cwd,
    env: withSetting((request.check ? checkEnv : childEnv)(process.env, request.env), request.setting),
    timeoutMs: request.timeoutMs,
    signal: request.signal,
    onOutput: take,
    killEscaped: true,
  });
  return {
    argv: [...request.argv],
    exit_code: result.exitCode,
    signal: result.signal,
    timed_out: result.timedOut,
    duration_ms: result.durationMs,
    output_bytes: bytes,
    // Kept as evidence every agent reads: no agent token in it, whoever's, nor the runner's credentials (see maskSecretsIn).
    output_tail: maskSecretsIn(tail.subarray(-OUTPUT_TAIL_BYTES).toString("utf8")),
    output_sha256: hash.digest("hex"),
    git_head: result.cancelled ? null : head,
    error: result.error,
    at,
  };
}

/** A command's words as one line, quoted where they hold spaces, whole: what a person agrees to. */
export function commandWords(argv: readonly string[]): string {
  return argv.map((word) => (/\s|^$/.test(word) ? JSON.stringify(word) : word)).join(" ");
}

/** A command as one line of progress: its words, quoted where they hold spaces, cut short. */
export function commandLine(argv: readonly string[]): string {
  const line = commandWords(argv);
  return line.length > 120 ? `${line.slice(0, 120)}…` : line;
}

export const passed = (evidence: Evidence) =>
  evidence.exit_code === 0 && !evidence.timed_out && !evidence.error;
