import { oneLine } from "./visible-text.js";

/**
 * Diagnostics go to stderr, always: in `cairn mcp` stdout belongs to the protocol, and the
 * CLI keeps stdout for the command's output so `--json` can be piped.
 */
export function logWarn(message: string): void {
  // One visible line: a message may quote what a file or an agent wrote.
  process.stderr.write(`cairn: warning: ${oneLine(message)}\n`);
}

/**
 * What work cut short by a stop signal (SIGTERM, SIGHUP) leaves, said as the process exits: it
 * has no outcome of its own to render, where a Ctrl-C's cancel has.
 */
export function logStopped(message: string): void {
  process.stderr.write(`cairn: stopped: ${oneLine(message)}\n`);
}
