import { codeFlag } from "./code-flags.js";
import type { OsConfig } from "./config.js";
import { familyOf } from "./family.js";

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
    const code = codeFlag(name, args);
    if (code) {
      return {
        verdict: "refuse",
        rule: "confirm",
        reason: code.writes
          ? `\`${bin} ${code.flag}\` writes a file named on the command line (what it writes may run later, from a shell's startup file or a hook) and needs a person's confirmation`
          : `\`${bin} ${code.flag}\` runs code given on the command line and needs a person's confirmation`,
      };
    }
  }
  return { verdict: "allow" };
}

/** The names a program is judged by: as given, as PATH resolves it, and each one's family. */
function namesOf(bin: string, realName: string | undefined): string[] {
  const names = realName && realName !== bin ? [bin, realName] : [bin];
  return [...new Set(names.flatMap((name) => [name, familyOf(name)]))];
}
