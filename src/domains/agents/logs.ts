import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { join, relative, sep } from "node:path";
import { operational } from "../../kernel/outcome.js";
import { lastLine } from "../../kernel/progress.js";
import { maskSecretsIn } from "../../kernel/secret-mask.js";
import type { Workspace } from "../workspace/discover.js";
import { agentDirName } from "./naming.js";

/** One run's log holds at most this much; the rest is counted, not kept. */
export const RUN_LOG_CAP = 2 * 1024 * 1024;
/**
 * Logs kept per agent and kind of run (scheduled, or asked for: by a CLI or MCP call, a trigger):
 * older runs' files of that kind are removed as new ones start. Apart, so that 20 runs anyone with
 * the run tool asks for never rotate away the log of a scheduled run that failed.
 */
export const RUN_LOGS_KEPT = 20;

/** The end of a scheduled run's log file's name; an asked-for run's ends in `.log` alone. */
const SCHEDULED_LOG = ".scheduled.log";
/** What a result quotes of the output, at most. */
export const STDOUT_TAIL_BYTES = 64 * 1024;
export const STDERR_TAIL_BYTES = 4 * 1024;

export const agentLogDir = (workspace: Workspace, agent: string) =>
  join(workspace.stateDir, "logs", "agents", agentDirName(agent));

/** Where a run's log file is written: named after the run, apart by kind (see RUN_LOGS_KEPT). */
export const runLogPath = (workspace: Workspace, agent: string, runId: string, scheduled: boolean) =>
  join(agentLogDir(workspace, agent), `${runId}${scheduled ? SCHEDULED_LOG : ".log"}`);

/**
 * The log a run left in this workspace, when its supervisor died before recording it: the row
 * names its log only at the end the supervisor writes. A regular file only, never through a link.
 */
export function leftLog(
  workspace: Workspace,
  agent: string,
  runId: string,
  scheduled: boolean,
): string | null {
  const path = runLogPath(workspace, agent, runId, scheduled);
  return lstatSync(path, { throwIfNoEntry: false })?.isFile() ? path : null;
}

/** Keeps the last `max` bytes of a stream, whatever it prints. */
export class Tail {
  private chunks: Buffer[] = [];
  private size = 0;
  total = 0;
  constructor(private readonly max: number) {}
  push(chunk: Buffer): void {
    this.total += chunk.length;
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size - (this.chunks[0]?.length ?? 0) >= this.max && this.chunks.length > 1) {
      this.size -= (this.chunks.shift() as Buffer).length;
    }
  }
  /**
   * The tail, agent tokens and the runner's credentials masked: it is a run's result, its row's stderr
   * and its progress, which other agents read (see maskSecretsIn); the run's own minted token is
   * masked before this, by SecretMask.
   */
  text(): string {
    const all = Buffer.concat(this.chunks);
    const cut = all.length > this.max ? all.subarray(all.length - this.max) : all;
    return maskSecretsIn(cut.toString("utf8"));
  }
  lastLine(): string {
    return lastLine(this.text());
  }
}

/** A run's log file: bounded, and older files of the same agent rotated out when it opens. */
export class RunLog {
  private fd: number | undefined;
  private written = 0;
  private dropped = 0;
  private readonly at: string;
  /** Why no log file is kept for this run, when none could be opened. */
  readonly problem: string | undefined;

  /** Never throws: a run whose log cannot be kept still runs (and its row still ends). */
  constructor(workspace: Workspace, agent: string, runId: string, scheduled: boolean) {
    const dir = agentLogDir(workspace, agent);
    this.at = runLogPath(workspace, agent, runId, scheduled);
    try {
      ownFolders(workspace.stateDir, relative(workspace.stateDir, dir));
      this.fd = createFresh(this.at);
      if (this.fd === undefined) this.problem = `${this.at} could not be created`;
      else rotate(dir, scheduled);
    } catch (error) {
      this.problem = (error as Error).message;
    }
  }

  /** The log file, when one is kept. */
  get path(): string | null {
    return this.problem === undefined ? this.at : null;
  }

  write(chunk: Buffer): void {
    if (this.fd === undefined) return;
    const room = RUN_LOG_CAP - this.written;
    if (room <= 0) {
      this.dropped += chunk.length;
      return;
    }
    const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
    writeSync(this.fd, part);
    this.written += part.length;
    this.dropped += chunk.length - part.length;
  }

  close(): void {
    if (this.fd === undefined) return;
    if (this.dropped > 0)
      writeSync(
        this.fd,
        `\n[cairn] log capped at ${RUN_LOG_CAP} bytes; ${this.dropped} more bytes not kept\n`,
      );
    closeSync(this.fd);
    this.fd = undefined;
  }
}

/**
 * The folders from `base` down `path`, made where missing, each a folder of its own and never a
 * link: a writer who put a link in place of an agent's log folder (or of `logs/agents`) had its
 * runs write their logs where the link pointed, and rotation remove every `.log` file there but
 * the 20 newest, in any folder outside the workspace. `base` (the workspace's `.cairn`) is trusted.
 */
function ownFolders(base: string, path: string): void {
  let at = base;
  for (const part of path.split(sep)) {
    at = join(at, part);
    try {
      mkdirSync(at);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const stat = lstatSync(at);
    if (!stat.isDirectory()) throw new Error(`${at} is not a folder of cairn's (a link, or a file)`);
  }
}

/**
 * A new file at `path`, never what was put there before: run ids are predictable, so a FIFO in
 * the next run's place would hold the supervisor in open(2), and a link would have the run's
 * output written over the file it names. Whatever is there is removed, and the file is created
 * exclusively; if that still fails, the run goes on without a log file.
 */
function createFresh(path: string): number | undefined {
  for (let tries = 0; tries < 2; tries++) {
    try {
      return openSync(path, "wx", 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") return undefined;
      try {
        unlinkSync(path);
      } catch {
        // Gone already, or not ours to remove: the next try says which.
      }
    }
  }
  return undefined;
}

/** The 20 newest logs of the kind just started stay; older ones of that kind go. */
function rotate(dir: string, scheduled: boolean): void {
  const logs = readdirSync(dir)
    .filter((file) => file.endsWith(".log") && file.endsWith(SCHEDULED_LOG) === scheduled)
    .map((file) => ({ file, mtime: statSync(join(dir, file)).mtimeMs }))
    .sort((a, b) => b.mtime - a.mtime || b.file.localeCompare(a.file));
  for (const old of logs.slice(RUN_LOGS_KEPT)) {
    try {
      unlinkSync(join(dir, old.file));
    } catch {
      // Another process rotated it first.
    }
  }
}

/** What one log line shows at most: a line of megabytes (one never ended) is cut, and says so. */
export const LOG_LINE_CHARS = 1000;
/** The most of a log file read from its end: all a run writes to one, its closing note included. */
const TAIL_READ_CAP = RUN_LOG_CAP + 64 * 1024;

const lineBreaks = (buffer: Buffer) => {
  let count = 0;
  for (let at = buffer.indexOf(10); at !== -1 && at < buffer.length - 1; at = buffer.indexOf(10, at + 1))
    count++;
  return count;
};

function cutLine(line: string): string {
  if (line.length <= LOG_LINE_CHARS) return line;
  return `${line.slice(0, LOG_LINE_CHARS)} [cairn: ${line.length - LOG_LINE_CHARS} more characters on this line]`;
}

/**
 * The last `lines` lines of a log file, read from its end (never more than a run writes to one).
 * The window read widens until it holds the lines asked for: a fixed one returned fewer whenever
 * lines were long (207 of 400 asked, for lines of 1 KB), the first of them a piece of a line, and
 * a line that never ended came back as one piece of 200 KB. A piece of a line whose start was
 * not read is left out, and each line is cut at LOG_LINE_CHARS.
 */
export function tailFile(path: string, lines: number): string[] {
  if (!existsSync(path)) return [];
  // Never a FIFO's blocking open, never through a link: a run's log is a file cairn created.
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ELOOP")
      throw operational(`the log ${path} is not a regular file (a link)`);
    throw error;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw operational(`the log ${path} is not a regular file`);
    const size = stat.size;
    const limit = Math.min(size, TAIL_READ_CAP);
    let want = Math.min(limit, lines * 512 + 4096);
    let buffer: Buffer;
    for (;;) {
      buffer = Buffer.alloc(want);
      readSync(fd, buffer, 0, want, size - want);
      if (want >= limit || lineBreaks(buffer) >= lines) break;
      want = Math.min(limit, want * 4);
    }
    const all = buffer.toString("utf8").split("\n");
    if (all.at(-1) === "") all.pop();
    // Read from inside the file: the first piece is the end of a line whose start was not read
    // (kept only when it is all there is, a line longer than all that was read).
    if (want < size && all.length > 1) all.shift();
    // Any agent, read-only ones too, reads a log: no agent token in it, whoever's, nor a credential.
    return all.slice(-lines).map((line) => cutLine(maskSecretsIn(line)));
  } finally {
    closeSync(fd);
  }
}
