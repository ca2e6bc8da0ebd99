import { realpathSync } from "node:fs";
import { basename, extname, join } from "node:path";
import { type CappedRun, cappedRun } from "../../kernel/capped-run.js";
import { Capture } from "../../kernel/capture.js";
import { type ChildResult, runChild } from "../../kernel/child.js";
import { childEnv } from "../../kernel/child-env.js";
import type { FolderCopy } from "../../kernel/folder-copy.js";
import { isInside, withPathOutside } from "../../kernel/inside.js";
import { notFound, refuse } from "../../kernel/outcome.js";
import { ownWorkFolder } from "../../kernel/temp-dir.js";
import { resolveBinary } from "../os/run.js";
import { DIGEST_BYTES_LIMIT, DIGEST_FILE_LIMIT, digestSkill, firstLine, INTERPRETERS } from "./files.js";
import { checkRelativePath } from "./paths.js";
import type { Skill } from "./skill.js";

/**
 * Running a skill's script: only files under its `scripts/` folder (by real path), only for a
 * skill the operator enabled at the digest it has now, as argv (never a shell), with the
 * interpreter its shebang names or else its extension (most real skill scripts have no shebang,
 * and some are executable without one: spawning those directly would hand them to /bin/sh).
 */

export const OUTPUT_CAP_BYTES = 16 * 1024;
const MAX_ARGS = 64;
const MAX_ARG_BYTES = 8 * 1024;

const refuseRun = (reason: string, next: string) => refuse("skill_run", reason, next);

export function checkArgs(args: readonly string[]): void {
  if (args.length > MAX_ARGS)
    throw refuseRun(`${args.length} arguments (at most ${MAX_ARGS})`, "pass fewer arguments");
  for (const arg of args) {
    if (arg.includes("\0")) throw refuseRun("an argument contains a NUL byte", "remove it");
    if (Buffer.byteLength(arg) > MAX_ARG_BYTES) {
      throw refuseRun(
        `an argument is over ${MAX_ARG_BYTES} bytes`,
        "pass large input in a file the script reads",
      );
    }
  }
}

/**
 * The skill's enabling, checked against its digest now; with a copy, the bytes hashed are
 * written there, and the run starts from them (kernel/folder-copy.ts).
 */
export function checkEnabled(
  skill: Skill,
  enabled: Record<string, string>,
  untrusted: readonly string[],
  copy?: FolderCopy,
): string {
  const approved = enabled[skill.name];
  const { digest, truncated } = digestSkill(skill.realDir, "run", untrusted, copy);
  if (approved === undefined) {
    throw refuseRun(
      `this machine's configuration (CAIRN_HOME/cairn.toml) does not enable skill ${skill.name} for running scripts`,
      `the operator reviews ${skill.realDir} and adds the line \`cairn skill digest ${skill.name}\` prints under [skills.run] in the machine's cairn.toml (CAIRN_HOME)`,
    );
  }
  if (truncated) {
    // What the digest left out (a file past its count or byte bound, a folder past its depth)
    // can be added or changed without changing it: such a skill is never enabled by it.
    throw refuseRun(
      `skill ${skill.name} holds files its digest does not cover (over ${DIGEST_FILE_LIMIT} files, ${DIGEST_BYTES_LIMIT / 1024 / 1024} MiB, folders nested deeper than the index walks, a link to a folder the digest passes over (.git, __pycache__, a backup~), or a link out of the skill into the project): its scripts do not run`,
      "the skill's author trims the skill folder (data the scripts read can live outside it); then the operator enables it again",
    );
  }
  if (approved !== digest) {
    throw refuseRun(
      `skill ${skill.name} changed since the operator enabled it (enabled ${approved.slice(0, 19)}…, now ${digest.slice(0, 19)}…)`,
      `the operator reviews the change and updates [skills.run] with \`cairn skill digest ${skill.name}\``,
    );
  }
  return digest;
}

/** The script's real path and the argv that runs it. */
export function commandFor(skill: Skill, script: string): { real: string; argv: string[] } {
  const segments = checkRelativePath(script);
  if (segments[0] !== "scripts" || segments.length < 2) {
    throw refuseRun(
      `${JSON.stringify(script.slice(0, 80))} is not under scripts/`,
      "only files under the skill's scripts/ folder run; read others with skill_read",
    );
  }
  let scriptsDir: string;
  try {
    scriptsDir = realpathSync.native(join(skill.realDir, "scripts"));
  } catch {
    throw notFound(`skill ${skill.name} has no scripts/ folder`, "its file index lists what it holds");
  }
  if (!isInside(skill.realDir, scriptsDir)) {
    throw refuseRun(
      "the skill's scripts/ folder is a link outside the skill",
      "the operator fixes the skill folder",
    );
  }
  // The path that was checked inside scripts/ is the one run: resolving the name a second time
  // would follow a link swapped in between the check and the spawn.
  const { line: head, real } = firstLine(skill.realDir, segments.join("/"), scriptsDir);
  let interpreter: string[] | undefined;
  if (head.startsWith("#!")) {
    // A CRLF shebang would ask for `python3\r`.
    let words = head.slice(2).replace(/\r$/, "").trim().split(/\s+/).filter(Boolean);
    if (words[0] && basename(words[0]) === "env") {
      words = words.slice(1);
      if (words[0] === "-S") words = words.slice(1);
    }
    if (words.length > 0) interpreter = words;
  }
  interpreter ??= INTERPRETERS[extname(real).toLowerCase()]
    ? [...(INTERPRETERS[extname(real).toLowerCase()] as string[])]
    : undefined;
  if (!interpreter) {
    throw refuseRun(
      `${script} has no shebang and no extension cairn knows (.py .sh .js .rb .pl .php)`,
      "the skill's author adds a shebang line",
    );
  }
  return { real, argv: [...interpreter, real] };
}

/**
 * The argv with its interpreter found on PATH now, passing over the project workspace's folders
 * (agents write there; `npx` puts node_modules/.bin first on PATH): a planted `python3` would
 * otherwise run every enabled script. A path the shebang names stays as the reviewed script says.
 */
export function resolveInterpreter(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  untrusted: readonly string[],
): string[] {
  const [program, ...rest] = argv;
  if (program === undefined || program.includes("/")) return [...argv];
  const path = resolveBinary(program, env, untrusted);
  if (!path) {
    throw refuseRun(
      `the interpreter \`${program.slice(0, 80)}\` is not installed on this machine's PATH (outside the workspace)`,
      "the operator installs it, or the skill's author names another in the script's shebang",
    );
  }
  return [path, ...rest];
}

export type ScriptRun = CappedRun;

/** The start of a run's compiled-code folder's name in the temporary folder; its pid follows. */
const PYCACHE_PREFIX = "cairn-pycache-";

export async function runScript(
  skill: Skill,
  argv: readonly string[],
  options: {
    timeoutMs: number;
    signal?: AbortSignal;
    env: NodeJS.ProcessEnv;
    /** Folders agents write (the project workspace): kept off the script's PATH. */
    untrusted: readonly string[];
  },
): Promise<ScriptRun> {
  const out = new Capture(OUTPUT_CAP_BYTES);
  const err = new Capture(OUTPUT_CAP_BYTES);
  // Python runs a module's compiled copy from __pycache__ whenever its header names the source's
  // mtime and size, which whoever can write the folder can forge; the digest leaves __pycache__
  // out (Python writes there itself). A fresh prefix per run: compiled copies are read and
  // written there only, so what runs is compiled from the sources the operator enabled. Named
  // with this process's pid: one a cairn killed outright (kill -9) left goes at the next run,
  // once its pid runs no more, as the skill's private copy does.
  const pycache = ownWorkFolder(PYCACHE_PREFIX);
  let result: ChildResult;
  try {
    result = await runChild({
      argv,
      cwd: skill.realDir,
      env: childEnv(withPathOutside(options.env, options.untrusted), {
        SKILL_NAME: skill.name,
        SKILL_DIR: skill.realDir,
        PYTHONPYCACHEPREFIX: pycache.path,
      }),
      timeoutMs: options.timeoutMs,
      killEscaped: true,
      signal: options.signal,
      onOutput: (chunk, stream) => (stream === "stdout" ? out : err).add(chunk),
    });
  } finally {
    pycache.remove();
  }
  return cappedRun(argv, result, out, err);
}
