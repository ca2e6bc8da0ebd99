import { fstatSync, writeSync } from "node:fs";
import { EXIT_CODES } from "../../kernel/outcome.js";
import type { Output } from "./render.js";

/**
 * The CLI's output, written straight to file descriptors 1 and 2. Creating process.stdout or
 * process.stderr loads net, stream and tty (about a twentieth of a `cairn status`), and on
 * Linux those streams write synchronously to a pipe, file or terminal anyway, so a plain
 * write(2) prints the same bytes in the same order. Whatever the plain write cannot do (a
 * descriptor the caller made non-blocking and filled, a closed descriptor, a reader gone) is
 * handed, from that byte on, to the process stream, which already knows how: it queues, drops
 * into a black hole, or reports EPIPE to the handler below.
 */
export function fdOutput(): Output {
  return { stdout: writer(1), stderr: writer(2) };
}

function writer(fd: 1 | 2): (text: string) => void {
  let direct = true;
  const stream = () => (fd === 1 ? process.stdout : process.stderr);
  return (text) => {
    if (!direct) {
      stream().write(text);
      return;
    }
    const bytes = Buffer.from(text, "utf8");
    let written = 0;
    try {
      while (written < bytes.length) written += writeSync(fd, bytes, written);
    } catch {
      direct = false;
      if (fd === 1) onBrokenPipe();
      stream().write(bytes.subarray(written));
    }
  };
}

/**
 * `cairn task list | head` closes the pipe early: that is the reader's choice, not a failure.
 * Any other failure to write (a full disk under `cairn export > file`, an I/O error) is one: said
 * in one line, exit 1. Rethrown, it crashed the process, printing a line of the bundle's source.
 */
function onBrokenPipe(): void {
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
    try {
      writeSync(2, `cairn: could not write the output: ${error.message}\n`);
    } catch {
      // stderr is gone too: the exit code is all that is left to say it.
    }
    process.exit(EXIT_CODES.operational);
  });
}

/**
 * Whether fd 2 is a terminal, without process.stderr: isatty(3) is false for anything but a
 * character device, so only a character device (a terminal, or /dev/null) is asked the stream.
 */
export function stderrIsTerminal(): boolean {
  try {
    if (!fstatSync(2).isCharacterDevice()) return false;
  } catch {
    return false;
  }
  return process.stderr.isTTY === true;
}
