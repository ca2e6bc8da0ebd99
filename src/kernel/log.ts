/**
 * Diagnostics go to stderr, always: in `cairn mcp` stdout belongs to the protocol, and the
 * CLI keeps stdout for the command's output so `--json` can be piped.
 */
export function logWarn(message: string): void {
  process.stderr.write(`cairn: warning: ${message}\n`);
}
