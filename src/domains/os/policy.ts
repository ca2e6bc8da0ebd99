import type { OsConfig } from "./config.js";
import { sedScriptRunsShell } from "./sed-script.js";

/**
 * Whether a model may run `bin args…`, decided before anything is spawned, in a fixed order:
 * a name that is not bare is refused; then `deny`; then anything `allow` does not admit; then
 * whatever needs a person's confirmation (which a model can never give). Entries are a binary
 * name optionally followed by arguments. An allow entry admits what starts with them, token by
 * token: `kubectl get` admits `kubectl get pods`, not `kubectl getx` nor `kubectl delete`. A deny
 * or confirm entry holds wherever its words occur in order (`git -C . push` for `git push`).
 *
 * What needs a person is judged on every name the program goes by: the name given, the name of
 * the file PATH resolves it to (`rbash` and `sh` are links to bash and dash, `vi` and `editor`
 * to vim), and each of those without a version or variant suffix (`python3.11`, `perl5.36.0`,
 * `vim.basic`, `mkfs.ext4`), so another name for a listed program is no way around the list.
 */

export type Verdict =
  | { verdict: "allow" }
  | { verdict: "refuse"; rule: "not_bare" | "deny" | "not_allowed" | "confirm"; reason: string };

/** Shells, binaries that destroy data or stop the machine, and wrappers that run another program. */
export const DEFAULT_CONFIRM: readonly string[] = [
  // shells
  "sh",
  "bash",
  "zsh",
  "fish",
  "dash",
  "ksh",
  "csh",
  "tcsh",
  "ash",
  "mksh",
  "pwsh",
  "powershell",
  // destructive
  "rm",
  "rmdir",
  "dd",
  "mkfs",
  "shred",
  "fdisk",
  "sfdisk",
  "parted",
  "wipefs",
  "mkswap",
  "truncate",
  "diskutil",
  "shutdown",
  "reboot",
  "halt",
  "poweroff",
  "kill",
  "killall",
  "pkill",
  // wrappers: each runs whatever program its arguments name
  "env",
  "nice",
  "nohup",
  "timeout",
  "xargs",
  "sudo",
  "doas",
  "su",
  "runuser",
  "time",
  "command",
  "busybox",
  "toybox",
  "exec",
  "eval",
  "stdbuf",
  "setsid",
  "chroot",
  "ionice",
  "taskset",
  "unshare",
  "nsenter",
  "strace",
  "ltrace",
  "watch",
  "flock",
  "script",
  "expect",
  "parallel",
  "systemd-run",
  "ld.so",
  "chrt",
  "prlimit",
  "setpriv",
  "numactl",
  "cgexec",
  "capsh",
  "firejail",
  // each runs the program its arguments name (`perf stat cmd`, `xvfb-run cmd`)
  "perf",
  "xvfb-run",
  "catchsegv",
  "bwrap",
  "fakeroot",
  "pkexec",
  "sg",
  "unbuffer",
  "run-parts",
  "dbus-run-session",
  "ssh-agent",
  "start-stop-daemon",
  "tmux",
  "screen",
  "gdb",
  "lldb",
  "valgrind",
  "xdg-open",
  // Its SQL's edit(text, program) runs a program, as do .shell and .system (`.sh` for short).
  "sqlite3",
  // languages whose program is an argument
  "awk",
  "gawk",
  "mawk",
  "nawk",
];

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
  // --import and the loaders take a `data:` URL: a module given whole on the command line.
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
  git: ["-c", "--config-env", "--exec-path", "--upload-pack", "--receive-pack", "--exec"],
  zip: ["-TT", "--unzip-command"],
  // The askpass program, also named through a wgetrc command (`-e use_askpass=…`).
  wget: ["--use-askpass", "-e", "--execute"],
  scp: ["-S", "-o"],
  sftp: ["-S", "-o"],
  tar: ["--to-command", "--use-compress-program", "-I", "--checkpoint-action"],
  sed: ["e"],
  rsync: ["-e", "--rsh", "--rsync-path"],
  ssh: ["-o"],
  vim: ["-c", "--cmd", "-S", "+"],
  nvim: ["-c", "--cmd", "-S", "+"],
  // The pager and the browser are command lines, run by a shell.
  man: ["-P", "--pager", "-H", "--html"],
  mysql: ["--pager"],
  mariadb: ["--pager"],
  // The program a connection is handed to.
  nc: ["-e", "-c", "--exec", "--sh-exec", "--lua-exec"],
  ncat: ["-e", "-c", "--exec", "--sh-exec", "--lua-exec"],
  netcat: ["-e", "-c", "--exec", "--sh-exec", "--lua-exec"],
  emacs: ["--eval", "-eval"],
  julia: ["-e", "-E", "--eval", "--print"],
  elixir: ["-e", "--eval"],
  erl: ["-eval"],
  guile: ["-c"],
  // The command run on each saved file, once rotated.
  tcpdump: ["-z"],
};

const BARE = /^[A-Za-z0-9_][A-Za-z0-9._+-]{0,63}$/;

export function bareNameProblem(bin: string): string | undefined {
  if (bin === "") return "the binary name is empty";
  if (bin.includes("\0")) return "the binary name contains a NUL byte";
  if (bin.includes("/") || bin.includes("\\"))
    return `${JSON.stringify(bin.slice(0, 80))} is a path, not a bare name`;
  if (bin.startsWith("-")) return `${JSON.stringify(bin.slice(0, 80))} starts with \`-\``;
  if (bin === "." || bin === ".." || bin.includes(".."))
    return `${JSON.stringify(bin.slice(0, 80))} contains \`..\``;
  if (!BARE.test(bin)) {
    return `${JSON.stringify(bin.slice(0, 80))} is not a bare ASCII name (letters, digits, . _ + -)`;
  }
  return undefined;
}

const tokens = (entry: string) => entry.trim().split(/\s+/).filter(Boolean);

/** The entry's first token is `bin` and each next token equals the argument at its position. */
export function matches(entry: string, bin: string, args: readonly string[]): boolean {
  const [first, ...rest] = tokens(entry);
  if (first !== bin) return false;
  return rest.every((token, index) => args[index] === token);
}

/**
 * A deny or confirm entry holds wherever its words occur, in order, among the arguments: options
 * put before them (`git -C . push`, `kubectl -n prod delete`) are no way around `git push` or
 * `kubectl delete`. It may hold where a leading match would not (`git log --grep push`): for a
 * list that restricts, that is the safe side.
 */
export function restricts(entry: string, bin: string, args: readonly string[]): boolean {
  const [first, ...rest] = tokens(entry);
  if (first !== bin) return false;
  let at = 0;
  for (const token of rest) {
    while (at < args.length && args[at] !== token) at++;
    if (at === args.length) return false;
    at++;
  }
  return true;
}

/** Modules of Python's standard library whose arguments are code (`-m timeit 'stmt'`, `-m pdb -c`). */
const PYTHON_CODE_MODULES = new Set(["timeit", "pdb", "profile", "cProfile", "trace", "code"]);

/** Code an interpreter takes inside another flag: `python3 -m timeit`, `perl '-Mstrict;system…'`. */
function codeInOtherFlags(bin: string, args: readonly string[]): string | undefined {
  if (CODE_FLAGS[bin]?.includes("-c") && /^(python|pypy)/.test(bin)) {
    for (let at = 0; at < args.length; at++) {
      const arg = args[at] as string;
      const module = arg === "-m" ? args[at + 1] : /^-m./.test(arg) ? arg.slice(2) : undefined;
      if (module !== undefined && PYTHON_CODE_MODULES.has(module)) return `-m ${module}`;
    }
  }
  // perl turns `-Mname=args` into `use name split(/,/, q{args});`: anything past a module name
  // and plain words (`;`, a space, a bracket) is a statement of its own.
  if (bin === "perl") {
    for (const arg of args) if (/^-[Mm]/.test(arg) && /[^\w:=,.-]/.test(arg.slice(2))) return "-M";
  }
  if (bin === "git") return gitCode(args);
  // ed reads a file named `!command` from what a shell running the command prints.
  if (bin === "ed" && args.some((arg) => arg.startsWith("!"))) return "!command";
  // psql's meta-commands (`\!`, `\g |cmd`, `\o |cmd`, `\copy … program`) run shells; they
  // come only with a backslash, wherever -c's text is put (`-c`, `--command=`, `-Xc\! id`).
  if (bin === "psql" && args.some((arg) => arg.includes("\\"))) return "\\ meta-command";
  // The mysql client's own commands run a shell (`system`, `\!`), a pager (`pager`, `\P`) or an
  // editor (`edit`, `\e`), wherever its SQL is given (`-e`, `--execute=`).
  if (
    (bin === "mysql" || bin === "mariadb") &&
    args.some((arg) => /\\[!Pe]|\b(system|pager|edit)\b/i.test(arg))
  )
    return "client command";
  // dc's `!` runs the rest of its line in a shell, in an expression given on the command line.
  if (bin === "dc" && args.some((arg) => arg.includes("!"))) return "!command";
  // socat's EXEC: and SYSTEM: addresses start a program (`socat - EXEC:id`, `SYSTEM:'id'`).
  if (bin === "socat" && args.some((arg) => /(^|[!,])\s*(exec|system)\s*:/i.test(arg))) return "EXEC:";
  return undefined;
}

/** git's global options that take a value as the next argument. */
const GIT_VALUE_OPTIONS = new Set(["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env"]);
const GIT_CONFIG_READS = new Set(["--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "-l"]);
const GIT_CONFIG_WRITES = new Set([
  "--add",
  "--unset",
  "--unset-all",
  "--replace-all",
  "--rename-section",
  "--remove-section",
  "--edit",
  "-e",
]);

/**
 * git subcommands and options that run a command given on the command line (`rebase -x`,
 * `bisect run`, `submodule foreach`, `grep -O`, `difftool -x`, `filter-branch`), go into
 * submodules, whose own configuration cairn does not read (see git.ts), or write the operator's
 * configuration, which cairn trusts (`config --global`, `--system`, `--file`).
 */
function gitCode(args: readonly string[]): string | undefined {
  let at = 0;
  while (at < args.length && (args[at] as string).startsWith("-")) {
    at += GIT_VALUE_OPTIONS.has(args[at] as string) ? 2 : 1;
  }
  const sub = args[at];
  const rest = args.slice(at + 1);
  const has = (...flags: string[]) =>
    rest.find((arg) =>
      flags.some((flag) => arg === flag || arg.startsWith(flag.startsWith("--") ? `${flag}=` : flag)),
    );
  const short = (letter: string) =>
    rest.find((arg) => arg === `-${letter}` || (/^-[A-Za-z]{2,}$/.test(arg) && arg.includes(letter)));
  for (const arg of args) {
    if (
      arg === "--recurse-submodules" ||
      (arg.startsWith("--recurse-submodules=") && arg !== "--recurse-submodules=no")
    )
      return "--recurse-submodules";
    if (arg.startsWith("--ignore-submodules=") && arg !== "--ignore-submodules=all")
      return "--ignore-submodules";
  }
  switch (sub) {
    case "submodule":
    case "filter-branch":
    case "instaweb":
    case "send-email":
      return sub;
    case "bisect":
      return rest.includes("run") ? "bisect run" : undefined;
    case "rebase":
      return short("x") ? "rebase -x" : undefined;
    case "grep":
      return has("-O", "--open-files-in-pager") ? "grep -O" : undefined;
    case "difftool":
      return has("--extcmd") || short("x") ? "difftool -x" : undefined;
    case "clone":
      return has("-u", "--config") ? "clone -u" : undefined;
    case "config": {
      const scoped = rest.some(
        (arg) => ["--global", "--system", "-f"].includes(arg) || /^--file(=|$)/.test(arg),
      );
      const readOnly =
        rest.some((arg) => GIT_CONFIG_READS.has(arg)) && !rest.some((arg) => GIT_CONFIG_WRITES.has(arg));
      return scoped && !readOnly ? "config --global" : undefined;
    }
    default:
      return undefined;
  }
}

/** Short flags whose value may follow attached, per program: past one, the letters are its value. */
const VALUE_LETTERS: Readonly<Record<string, string>> = {
  perl: "IMmxi",
  python: "WXm",
  pypy: "WXm",
  git: "C",
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

function codeFlag(bin: string, args: readonly string[]): string | undefined {
  const inOther = codeInOtherFlags(bin, args);
  if (inOther) return inOther;
  const flags = CODE_FLAGS[bin];
  if (!flags) return undefined;
  for (const arg of args) {
    for (const flag of flags) {
      if (arg === flag || (flag.startsWith("--") && arg.startsWith(`${flag}=`))) return flag;
      // A cluster of short flags (`-Bc`, `-le`) holds the letter too, and a short flag takes its
      // value attached (`-cimport os`, `-Psh -c id`): the letter anywhere in the leading letters.
      if (/^-[A-Za-z]$/.test(flag) && leadingLetters(bin, arg).includes(flag[1] as string)) return flag;
      // vim's `+{command}` (`+5`, a line number, is only a place to start).
      if (flag === "+" && arg.startsWith("+") && !/^\+\d*$/.test(arg)) return "+";
      // sed's `e` command and `s///e` flag run a shell.
      if (bin === "sed" && flag === "e" && sedScriptRunsShell(arg)) return "e";
    }
  }
  return undefined;
}

export function decide(
  config: OsConfig,
  bin: string,
  args: readonly string[],
  /** The file's own name once PATH resolves `bin` through its links (see `realNameOf`). */
  realName?: string,
): Verdict {
  const problem = bareNameProblem(bin);
  if (problem) return { verdict: "refuse", rule: "not_bare", reason: problem };
  const names = namesOf(bin, realName);
  const denied = config.deny.find((entry) => names.some((name) => restricts(entry, name, args)));
  if (denied) return { verdict: "refuse", rule: "deny", reason: `\`${denied}\` is on the deny list` };
  const wildcard = config.allow.some((entry) => tokens(entry)[0] === "*");
  if (!wildcard && !config.allow.some((entry) => matches(entry, bin, args))) {
    const scoped = config.allow.filter((entry) => tokens(entry)[0] === bin);
    return {
      verdict: "refuse",
      rule: "not_allowed",
      reason:
        scoped.length > 0
          ? `\`${bin}\` is allowed only as ${scoped.map((entry) => `\`${entry}\``).join(", ")}`
          : `\`${bin}\` is not on the allow list`,
    };
  }
  for (const name of names) {
    const confirm = [...DEFAULT_CONFIRM, ...config.confirm].find((entry) => restricts(entry, name, args));
    if (confirm) {
      return {
        verdict: "refuse",
        rule: "confirm",
        reason: `\`${confirm}\`${name === bin ? "" : ` (as which \`${bin}\` runs)`} needs a person's confirmation (a shell, a destructive binary, or one that runs another program)`,
      };
    }
    const flag = codeFlag(name, args);
    if (flag) {
      return {
        verdict: "refuse",
        rule: "confirm",
        reason: `\`${bin} ${flag}\` runs code given on the command line and needs a person's confirmation`,
      };
    }
  }
  return { verdict: "allow" };
}

/**
 * A name without its version or variant suffix: `python3.11` → `python`, `vim.basic` → `vim`.
 * A shared object run as a program is the dynamic loader (`ld-linux-x86-64.so.2`), which runs
 * whatever binary its arguments name.
 */
export function familyOf(name: string): string {
  if (/\.so(\.|$)/.test(name)) return "ld.so";
  const family = /^[A-Za-z_+-]*[A-Za-z_+]/.exec(name)?.[0] ?? name;
  return family.replace(/[-_]+$/, "") || name;
}

/** The names a program is judged by: as given, as PATH resolves it, and each one's family. */
function namesOf(bin: string, realName: string | undefined): string[] {
  const names = realName && realName !== bin ? [bin, realName] : [bin];
  return [...new Set(names.flatMap((name) => [name, familyOf(name)]))];
}
