import { familyOf } from "./family.js";
import { gitCode } from "./git-args.js";
import { gitWrites } from "./git-writes.js";
import { sedScriptRunsShell, sedScripts, sedScriptWritesFile } from "./sed-script.js";
import { TO_STANDARD_OUTPUT, WRITE_FLAGS, writtenOperand } from "./write-flags.js";

/**
 * Interpreters given code on the command line, and other binaries with an argument that runs a
 * program: the flag anywhere in argv (also inside a cluster like `-Bc`, or as `--eval=…`).
 */
const CODE_FLAGS: Readonly<Record<string, readonly string[]>> = {
  python: ["-c"],
  python2: ["-c"],
  python3: ["-c"],
  pypy: ["-c"],
  pypy3: ["-c"],
  // --import and the loaders take a `data:` URL: a module given whole on the command line (as
  // --test-reporter does, and any option given one: see codeInOtherFlags).
  node: ["-e", "--eval", "-p", "--print", "--import", "--loader", "--experimental-loader"],
  nodejs: ["-e", "--eval", "-p", "--print", "--import", "--loader", "--experimental-loader"],
  deno: ["eval"],
  bun: ["-e", "--eval", "-p", "--print"],
  perl: ["-e", "-E"],
  ruby: ["-e"],
  php: ["-r"],
  lua: ["-e"],
  R: ["-e"],
  Rscript: ["-e"],
  tclsh: ["-c"],
  osascript: ["-e"],
  make: ["--eval", "-E"],
  gmake: ["--eval", "-E"],
  find: ["-exec", "-execdir", "-ok", "-okdir", "-delete"],
  // Also grep's pager and difftool's command by their long names, which git takes abbreviated
  // (`grep --open=./x.sh`), as it does every long option: see gitCode (git-args.ts) for their
  // short forms.
  git: [
    "-c",
    "--config-env",
    "--exec-path",
    "--upload-pack",
    "--receive-pack",
    "--exec",
    "--open-files-in-pager",
    "--extcmd",
  ],
  zip: ["-TT", "--unzip-command"],
  // The askpass program, also named through a wgetrc command (`-e use_askpass=…`).
  wget: [
    "--use-askpass",
    "-e",
    "--execute",
    // A wgetrc file of the caller's: its use_askpass runs a program, its output_document writes.
    "--config",
  ],
  // A file of curl's options (those in write-flags.ts among them), and an OpenSSL engine: a library
  // loaded into curl.
  curl: ["-K", "--config", "--engine"],
  // The ssh program, its options, a configuration file (ProxyCommand, LocalCommand, Match exec),
  // and for sftp a local server program and a batch file (whose `!` lines run a shell).
  scp: ["-S", "-o", "-F", "-D"],
  sftp: ["-S", "-o", "-F", "-D", "-b"],
  tar: [
    "--to-command",
    "--use-compress-program",
    "-I",
    "--checkpoint-action",
    // A script run at the end of each volume of a multi-volume archive (`-M`), by a shell.
    "-F",
    "--info-script",
    "--new-volume-script",
    // The program that opens a remote archive (`host:file`), and the one it starts on the host.
    "--rsh-command",
    "--rmt-command",
  ],
  // The program that compresses and decompresses its temporary files.
  sort: ["--compress-program"],
  // A script file, which may hold the `e` command (scripts given as arguments are read: see codeFlag).
  sed: ["-f", "--file"],
  rsync: ["-e", "--rsh", "--rsync-path"],
  // Options, a configuration file, and a PKCS#11 library loaded into ssh itself.
  ssh: ["-o", "-F", "-I"],
  // Libraries loaded into the program: PKCS#11 (-D, -s) and security key providers (-w, -S).
  "ssh-keygen": ["-D", "-w"],
  "ssh-add": ["-s", "-S"],
  // An engine or provider is a shared library loaded into openssl, also named in its config file.
  openssl: ["-engine", "-provider", "-provider-path", "-config"],
  // Also files of commands: the startup file in place of the vimrc (-u, and -U for the gvimrc),
  // and keys typed from a file (-s, whose `:` lines are commands); nvim runs a Lua script (-l).
  vim: ["-c", "--cmd", "-S", "+", "-u", "-U", "-s"],
  nvim: ["-c", "--cmd", "-S", "+", "-u", "-s", "-l"],
  // A lesskey file (compiled, as source, or given whole in 643+): its #env section sets
  // LESSOPEN, a shell line less runs on each file it opens, even only copying it to a pipe.
  less: ["-k", "--lesskey-file", "--lesskey-src", "--lesskey-content"],
  // The pager and the browser are command lines, run by a shell.
  man: [
    "-P",
    "--pager",
    "-H",
    "--html",
    // man-db's configuration file DEFINEs the pager, browser and formatters it runs.
    "-C",
    "--config-file",
  ],
  // An option file (its pager= runs a shell) and the folder client plugins, libraries loaded
  // into the client, come from.
  mysql: ["--pager", "--defaults-file", "--defaults-extra-file", "--plugin-dir"],
  mariadb: ["--pager", "--defaults-file", "--defaults-extra-file", "--plugin-dir"],
  // The program a connection is handed to.
  nc: ["-e", "-c", "--exec", "--sh-exec", "--lua-exec"],
  ncat: ["-e", "-c", "--exec", "--sh-exec", "--lua-exec"],
  netcat: ["-e", "-c", "--exec", "--sh-exec", "--lua-exec"],
  // --execute is another name of --eval.
  emacs: ["--eval", "-eval", "--execute", "-execute"],
  julia: ["-e", "-E", "--eval", "--print"],
  elixir: ["-e", "--eval"],
  erl: ["-eval"],
  guile: ["-c"],
  // The command run on each saved file, once rotated.
  tcpdump: ["-z"],
  // Search tools: ripgrep runs a preprocessor on each file it searches (`--pre sh`: every file
  // an agent wrote is then a shell script), and (14+) a program for the hostname in its links;
  // fd runs a command on each file it finds, or on all of them (Debian names it fdfind).
  rg: ["--pre", "--hostname-bin"],
  fd: ["-x", "--exec", "-X", "--exec-batch"],
  fdfind: ["-x", "--exec", "-X", "--exec-batch"],
  // Each piece is piped to a shell command instead of written.
  split: ["--filter"],
  // The program run in place of diff.
  diff3: ["--diff-program"],
  sdiff: ["--diff-program"],
};

/** Modules of Python's standard library whose arguments are code (`-m timeit 'stmt'`, `-m pdb -c`). */
const PYTHON_CODE_MODULES = new Set(["timeit", "pdb", "profile", "cProfile", "trace", "code"]);

/** Code an interpreter takes inside another flag: `python3 -m timeit`, `perl '-Mstrict;system…'`. */
function codeInOtherFlags(bin: string, args: readonly string[]): string | undefined {
  if (CODE_FLAGS[bin]?.includes("-c") && /^(python|pypy)/.test(bin)) {
    for (let at = 0; at < args.length; at++) {
      const arg = args[at] as string;
      if (arg === "--") break;
      // `-m` ends a cluster of flags (`-Im timeit`, `-Bmtimeit`): the rest, or the next argument,
      // is the module.
      const letters = leadingLetters(bin, arg);
      if (!letters.endsWith("m")) continue;
      const module = arg.length > letters.length + 1 ? arg.slice(letters.length + 1) : args[at + 1];
      if (module !== undefined && PYTHON_CODE_MODULES.has(module)) return `-m ${module}`;
      // Past the module, the arguments are its own.
      break;
    }
  }
  // perl turns `-Mname=args` into `use name split(/,/, q{args});`, and `-d:name=args` (`-dt:`)
  // into `use Devel::name split(…);`: anything past a module name and plain words (`;`, a space,
  // a bracket) is a statement of its own. Either may close a cluster of flags (`-wMstrict;…`).
  if (bin === "perl") {
    for (const arg of args) {
      if (arg === "--") break;
      const flag = perlModuleFlag(arg);
      if (flag) return flag;
    }
  }
  // A JavaScript runtime imports a `data:` URL as a module: code given whole, whichever option
  // names it (`--import=`, `--test-reporter`, `--preload`), or as the program (`deno run data:…`).
  if (JS_RUNTIMES.has(bin) && args.some((arg) => /^(-[^=]*=)?data:/i.test(arg))) return "data: URL";
  // node's test runner loads its reporter as a module: one of its own by name, or any other.
  if (bin === "node" || bin === "nodejs") {
    for (let at = 0; at < args.length; at++) {
      const arg = args[at] as string;
      const reporter = arg === "--test-reporter" ? args[at + 1] : /^--test-reporter=(.*)$/s.exec(arg)?.[1];
      if (reporter !== undefined && !NODE_TEST_REPORTERS.has(reporter)) return "--test-reporter";
    }
  }
  if (bin === "git") return gitCode(args);
  // A variable given on the command line is read as a makefile line, and each is code: its value
  // runs as a shell command wherever a rule names it (`CC=sh -c "…" #` through the built-in
  // rules' `$(CC)`), `SHELL`, `.SHELLFLAGS` and `MAKEFLAGS` choose the shell and make's options,
  // `$(shell …)` in a name or value runs a shell as it is expanded, and `X != cmd` runs cmd.
  // make takes every argument holding `=` for one, even past `--`.
  if (bin === "make" || bin === "gmake") {
    for (const arg of args) {
      // (A file named by an option's next argument holding `=`, `-f a=b`, is refused with them.)
      if (!arg.startsWith("-") && arg.includes("=")) return "VAR=value";
    }
  }
  // ed reads a file named `!command` from what a shell running the command prints.
  if (bin === "ed" && args.some((arg) => arg.startsWith("!"))) return "!command";
  // psql's meta-commands (`\!`, `\g |cmd`, `\o |cmd`, `\copy … program`) run shells; they
  // come only with a backslash, wherever -c's text is put (`-c`, `--command=`, `-Xc\! id`).
  if (bin === "psql" && args.some((arg) => arg.includes("\\"))) return "\\ meta-command";
  // The mysql client's own commands run a shell (`system`, `\!`), a pager (`pager`, `\P`) or an
  // editor (`edit`, `\e`), write what follows to a file (`tee`, `\T`) or read more of them from
  // one (`source`, `\.`), wherever its SQL is given (`-e`, `--execute=`).
  if (
    (bin === "mysql" || bin === "mariadb") &&
    args.some((arg) => /\\[!PeT.]|\b(system|pager|edit|tee|source)\b/i.test(arg))
  )
    return "client command";
  // dc's `!` runs the rest of its line in a shell, in an expression given on the command line.
  if (bin === "dc" && args.some((arg) => arg.includes("!"))) return "!command";
  // socat's EXEC: and SYSTEM: addresses start a program (`socat - EXEC:id`, `SYSTEM:'id'`).
  if (bin === "socat" && args.some((arg) => /(^|[!,])\s*(exec|system)\s*:/i.test(arg))) return "EXEC:";
  // A compiler runs its passes through `-wrapper`, finds them where `-B` says, and loads a
  // `-fplugin` into itself: each a program of the caller's choosing. (Its short flags take
  // values and never cluster, so only these spellings are read: `-DBUILD` is no `-B`.)
  if (COMPILERS.has(bin)) {
    const flag = args.find((arg) => arg === "-wrapper" || arg.startsWith("-B") || arg.startsWith("-fplugin"));
    if (flag) return flag.startsWith("-B") ? "-B" : flag.startsWith("-fplugin") ? "-fplugin" : flag;
  }
  // rpm expands macros given on the command line, and `%(…)` runs a shell.
  if (bin === "rpm" && args.some((arg) => arg === "-E" || arg === "--eval" || arg.startsWith("--eval=")))
    return "--eval";
  return undefined;
}

const JS_RUNTIMES = new Set(["node", "nodejs", "deno", "bun"]);
const NODE_TEST_REPORTERS = new Set(["spec", "tap", "dot", "junit", "lcov"]);

const COMPILERS = new Set(["gcc", "g++", "cc", "c++", "clang", "clang++"]);

/**
 * The perl switch, if any, loading a module given on the command line with more than plain words
 * after its name: `-Mname=args`, `-mname`, `-d:name=args`, `-dt:name`, also closing a cluster
 * (`-wMstrict`, `-wd:Peek`, `-l0M…`, `-CSDM…`). Every `M`, `m` and `d:` among the letters and
 * digits an argument opens with is read as one: a value of another flag holding such a letter
 * (`-IMyLib`) is then read too, which refuses only where that value holds more than plain words.
 */
function perlModuleFlag(arg: string): "-M" | "-d:" | undefined {
  if (arg.startsWith("--")) return undefined;
  const head = /^-[A-Za-z0-9]*/.exec(arg)?.[0] ?? "";
  const beyondPlainWords = (value: string) => /[^\w:=,.-]/.test(value);
  for (let at = 1; at < head.length; at++) {
    const letter = head[at];
    if ((letter === "M" || letter === "m") && beyondPlainWords(arg.slice(at + 1))) return "-M";
    const debugger_ = /^dt?:/.exec(arg.slice(at))?.[0];
    if (letter === "d" && debugger_ && beyondPlainWords(arg.slice(at + debugger_.length))) return "-d:";
  }
  return undefined;
}

/** Short flags whose value may follow attached, per program: past one, the letters are its value. */
const VALUE_LETTERS: Readonly<Record<string, string>> = {
  perl: "IMmxi",
  python: "WXm",
  pypy: "WXm",
  git: "C",
  ssh: "BbcDEeFIiJLlmOopQRSWw",
  wget: "aABDeiIloOPQRtTUwX",
  curl: "AbcCdDeEFHKmoPQrtTuUwxXyYz",
  scp: "cDFiJloPSX",
  sftp: "BbcDFiJloPRSsX",
  "ssh-keygen": "abCDEFfGIJjMmNnOPRrSsTtVwYZz",
  "ssh-add": "EeHhSst",
  tar: "bCfFgHIKLNTVX",
  sort: "koStT",
  sed: "efil",
  fd: "dteEcjSoxX",
  fdfind: "dteEcjSoxX",
};

/**
 * The flag letters an argument opens with: `-Bc` → `Bc`, `-cprint(1)` → `cprint` (the flag, then
 * its value), `-MTest::More` (perl) → `M` (a flag taking a value: the rest is a module name).
 */
function leadingLetters(bin: string, arg: string): string {
  const letters = arg.startsWith("--") ? "" : (/^-([A-Za-z]+)/.exec(arg)?.[1] ?? "");
  const takesValue = VALUE_LETTERS[familyOf(bin)] ?? "";
  for (let at = 0; at < letters.length; at++)
    if (takesValue.includes(letters[at] as string)) return letters.slice(0, at + 1);
  return letters;
}

/**
 * Long options written in full that GNU getopt_long (and argp) takes as themselves although they
 * are a prefix of a listed one: harmless, and an exact name outranks every abbreviation.
 */
const KEPT_EXACT: Readonly<Record<string, readonly string[]>> = {
  // Only counts records; `--checkpoint-action` is what runs a command at each checkpoint.
  tar: ["--checkpoint"],
  // Sends cookies; `--cookie-jar` is what writes them to a file.
  curl: ["--cookie"],
};

/**
 * Where `arg` names `flag`: the value given attached (`--to-command=x`, `-Ix`), `null` when the
 * value, if the flag takes one, is the next argument, `undefined` when `arg` is not the flag.
 *
 * GNU getopt_long and argp take any unambiguous prefix of a long option for it (`--checkpoint-act`
 * is `--checkpoint-action`, `--ev` is make's `--eval`), so a `--` argument whose name is a prefix
 * of a listed `--` flag is that flag, for every program: an ambiguous one is refused here and by
 * the program alike, and a program that takes only exact names refuses the abbreviation itself.
 * Single-dash long options (find's `-exec`, openssl's `-engine`, erl's `-eval`) are matched
 * exactly: find, openssl and erl take no abbreviation of them.
 */
function named(bin: string, flag: string, arg: string): string | null | undefined {
  if (flag.startsWith("--")) {
    if (!arg.startsWith("--")) return undefined;
    const equals = arg.indexOf("=");
    const name = equals < 0 ? arg : arg.slice(0, equals);
    if (name.length <= 2 || !flag.startsWith(name) || KEPT_EXACT[bin]?.includes(name)) return undefined;
    return equals < 0 ? null : arg.slice(equals + 1);
  }
  if (arg === flag) return null;
  if (/^-[A-Za-z]{2}/.test(flag)) return arg.startsWith(`${flag}=`) ? arg.slice(flag.length + 1) : undefined;
  // A cluster of short flags (`-Bc`, `-le`) holds the letter too, and a short flag takes its
  // value attached (`-cimport os`, `-Psh -c id`): the letter anywhere in the leading letters.
  if (/^-[A-Za-z]$/.test(flag)) {
    const at = leadingLetters(bin, arg).indexOf(flag[1] as string);
    if (at >= 0) return arg.length > at + 2 ? arg.slice(at + 2) : null;
  }
  return undefined;
}

/** An option by which a program runs code given on the command line, or writes where it says. */
export interface CodeFlag {
  flag: string;
  /** It writes a file the caller names (rather than running a program itself). */
  writes: boolean;
}

/** The flag (or the command) by which `bin args…` runs code given on the command line, if any. */
export function codeFlag(bin: string, args: readonly string[]): CodeFlag | undefined {
  const inOther = codeInOtherFlags(bin, args);
  if (inOther) return { flag: inOther, writes: false };
  // sed's `e` command and `s///e` flag run a shell; its `w` and `W` commands and `s///w` flag
  // write a file.
  if (bin === "sed") {
    const scripts = sedScripts(args);
    if (scripts.some(sedScriptRunsShell)) return { flag: "e", writes: false };
    if (scripts.some(sedScriptWritesFile)) return { flag: "w", writes: true };
  }
  const tables = [
    { flags: CODE_FLAGS[bin] ?? [], writes: false },
    { flags: WRITE_FLAGS[bin] ?? [], writes: true },
  ];
  // tar reads a first argument without a dash as short flags, their values from the arguments
  // after it in turn (`tar cIf PROGRAM a.tar …`): every letter of it is a flag.
  const oldStyle = bin === "tar" && args[0] !== undefined && !args[0].startsWith("-") ? args[0] : "";
  for (const { flags, writes } of tables) {
    for (const flag of flags)
      if (/^-[A-Za-z]$/.test(flag) && oldStyle.includes(flag[1] as string)) return { flag, writes };
  }
  // curl's --write-out writes to the file a `%output{FILE}` in it names.
  if (bin === "curl" && args.some((arg) => arg.includes("%output{")))
    return { flag: "%output{}", writes: true };
  for (let at = 0; at < args.length; at++) {
    const arg = args[at] as string;
    for (const { flags, writes } of tables) {
      for (const flag of flags) {
        // vim's `+{command}` (`+5`, a line number, is only a place to start).
        if (flag === "+" && arg.startsWith("+") && !/^\+\d*$/.test(arg)) return { flag: "+", writes };
        const value = named(bin, flag, arg);
        if (value === undefined) continue;
        if (writes && (value ?? args[at + 1]) === "-" && TO_STANDARD_OUTPUT[bin]?.includes(flag)) continue;
        return { flag, writes };
      }
    }
  }
  // Judged after the flags that run code, which a refusal names first (`clone --upload-pack=… DIR`).
  const written = bin === "git" ? gitWrites(args) : writtenOperand(bin, args);
  return written ? { flag: written, writes: true } : undefined;
}
