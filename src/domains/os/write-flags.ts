/**
 * Options that write a file the caller names, with content the caller chooses: a shell's startup
 * file or a git hook written so runs later, so they need a person as the options that run code
 * do (code-flags.ts reads both tables).
 */
export const WRITE_FLAGS: Readonly<Record<string, readonly string[]>> = {
  // The verbose listing (the members' names) to a file instead of standard output.
  tar: ["--index-file"],
  // The sorted lines to a file instead of standard output.
  sort: ["-o", "--output"],
  // What -print, -print0, -printf and -ls would print, to a file.
  find: ["-fprint", "-fprint0", "-fprintf", "-fls"],
  // A diff or log (in any --format, so any text) to a file instead of standard output.
  git: ["--output"],
  // In-place editing, which rewrites any file it names (BSD and macOS sed spell it -I too).
  sed: ["-i", "--in-place", "-I"],
  // The download (but to `-`, standard output), the log (which holds the URLs given), and the
  // folder downloads go to instead of the working one.
  wget: [
    "-O",
    "--output-document",
    "-o",
    "--output-file",
    "-a",
    "--append-output",
    "-P",
    "--directory-prefix",
  ],
  // The body (but to `-`), the folder bodies go to, the headers, the cookies the server sets, a
  // trace of the transfer, curl's own errors, and C source or ETags written from the request.
  curl: [
    "-o",
    "--output",
    "--output-dir",
    "-D",
    "--dump-header",
    "-c",
    "--cookie-jar",
    "--trace",
    "--trace-ascii",
    "--stderr",
    "--libcurl",
    "--etag-save",
  ],
  // What openssl would print (enc -d, base64 -d: any bytes) to a file instead.
  openssl: ["-out"],
  // What the connection receives, to a file.
  ncat: ["-o", "--output"],
  // The converted text to a file instead of standard output.
  iconv: ["-o", "--output"],
  // The pieces' names start with the prefix given (`-f /home/u/.bashrc.d/x` writes x00, x01…).
  csplit: ["-f", "--prefix"],
  // The shuffled lines, and the listing (whose file names a shell runs: `;cmd;#`), to a file.
  shuf: ["-o", "--output"],
  tree: ["-o"],
  // The merge (the lines both files share, as they are) to a file instead of standard output.
  sdiff: ["-o", "--output"],
};

/**
 * Programs whose second operand names the file they write (`uniq IN OUT`, `xxd -r IN OUT`), or
 * the prefix of the files they write (`split IN PREFIX`): what filters of text are allowed for
 * wrote the caller's text to ~/.bashrc. With the options whose value is the next argument.
 */
const OUTPUT_OPERAND: Readonly<Record<string, { short: string; long: readonly string[] }>> = {
  uniq: { short: "fsw", long: ["--skip-fields", "--skip-chars", "--check-chars"] },
  // xxd also spells its options as single-dash words (-cols, -len, -seek), each taking a value.
  xxd: { short: "cglosn", long: ["-cols", "-groupsize", "-len", "-offset", "-seek", "-name"] },
  split: {
    short: "abClnt",
    long: [
      "--suffix-length",
      "--additional-suffix",
      "--bytes",
      "--line-bytes",
      "--lines",
      "--number",
      "--separator",
    ],
  },
};

/** The operand by which `bin args…` writes a file the caller names (see OUTPUT_OPERAND), if any. */
export function writtenOperand(bin: string, args: readonly string[]): string | undefined {
  const options = OUTPUT_OPERAND[bin];
  if (!options) return undefined;
  const operands: string[] = [];
  for (let at = 0; at < args.length; at++) {
    const arg = args[at] as string;
    if (arg === "--") {
      operands.push(...args.slice(at + 1));
      break;
    }
    if (arg === "-" || !arg.startsWith("-")) operands.push(arg);
    else if (options.long.includes(arg)) at++;
    else if (!arg.startsWith("--") && !options.long.includes(arg.split("=")[0] as string)) {
      // A cluster of short flags: the first that takes a value takes the rest, or the next argument.
      for (let letter = 1; letter < arg.length; letter++) {
        if (!options.short.includes(arg[letter] as string)) continue;
        if (letter === arg.length - 1) at++;
        break;
      }
    }
  }
  const written = operands[1];
  // `-` as uniq's or xxd's output is standard output.
  if (written === undefined || (written === "-" && bin !== "split")) return undefined;
  return bin === "split" ? "PREFIX" : "OUTPUT";
}

/** Writing flags whose value `-` is standard output: what they write comes back to the caller. */
export const TO_STANDARD_OUTPUT: Readonly<Record<string, readonly string[]>> = {
  wget: ["-O", "--output-document"],
  curl: [
    "-o",
    "--output",
    "-D",
    "--dump-header",
    "-c",
    "--cookie-jar",
    "--trace",
    "--trace-ascii",
    "--stderr",
  ],
};
