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
};

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
