/**
 * git's command line as the OS-command policy reads it: its global options, the subcommand past
 * them, and the subcommands and options by which git runs a program given on the command line
 * (what it writes at a path of the caller's is git-writes.ts; code-flags.ts judges both with the
 * other programs').
 */

/**
 * git's global options that take a value as the next argument (`--super-prefix` until 2.41,
 * `--attr-source` since 2.42): the value is no subcommand.
 */
export const GIT_VALUE_OPTIONS = new Set([
  "-C",
  "-c",
  "--git-dir",
  "--work-tree",
  "--namespace",
  "--config-env",
  "--super-prefix",
  "--attr-source",
]);
/** `git config`'s options that read: the action, or how what is read is shown. */
const GIT_CONFIG_READS = [
  "--get",
  "--get-all",
  "--get-regexp",
  "--get-urlmatch",
  "--get-color",
  "--get-colorbool",
  "--list",
  "--local",
  "--worktree",
  "--global",
  "--system",
  "--file",
  "--blob",
  "--type",
  "--bool",
  "--int",
  "--bool-or-int",
  "--path",
  "--expiry-date",
  "--null",
  "--name-only",
  "--show-names",
  "--show-origin",
  "--show-scope",
  "--includes",
  "--no-includes",
  "--default",
  "--fixed-value",
  "--all",
  "--regexp",
  "--value",
  "--url",
];
/** `git config`'s options that write (or edit) a file, or choose what a write puts there. */
const GIT_CONFIG_WRITES = [
  "--add",
  "--unset",
  "--unset-all",
  "--replace-all",
  "--rename-section",
  "--remove-section",
  "--edit",
  "--comment",
  "--append",
];
/** Short options of `git config` that read (`-f` and `-t` take a value). */
const GIT_CONFIG_SHORT_READS = new Set(["-l", "-z", "-f", "-t"]);
/** `git config`'s options whose value may be the next argument. */
const GIT_CONFIG_VALUES = ["--file", "--blob", "--type", "--default", "--value", "--url", "--comment"];
/** The subcommands of `git config` (2.46 and later) that only read. */
const GIT_CONFIG_READ_SUBCOMMANDS = new Set(["get", "list"]);
const GIT_CONFIG_WRITE_SUBCOMMANDS = new Set(["set", "unset", "rename-section", "remove-section", "edit"]);

/**
 * Whether `git config …` only reads. Anything else writes a configuration file: the repository's
 * own (`core.fsmonitor`, `alias.x=!…`, run later by the user's git, and refused by cairn's next
 * look at it), or the operator's (`--global`, `--system`, `--file`). git takes a long option by
 * any unambiguous prefix (`--glob` for `--global`, `--uns` for `--unset`): one that may stand for
 * an option that writes, or for none known here, is read as a write.
 */
export function gitConfigReads(rest: readonly string[]): boolean {
  const prefixOf = (name: string, options: readonly string[]) =>
    options.some((option) => name.length > 3 && option.startsWith(name));
  const operands: string[] = [];
  let action = false;
  for (let at = 0; at < rest.length; at++) {
    const arg = rest[at] as string;
    if (arg === "--") {
      operands.push(...rest.slice(at + 1));
      break;
    }
    if (!arg.startsWith("-") || arg === "-") {
      operands.push(arg);
      continue;
    }
    if (arg.startsWith("--")) {
      const equals = arg.indexOf("=");
      const name = equals < 0 ? arg : arg.slice(0, equals);
      if (prefixOf(name, GIT_CONFIG_WRITES) || !prefixOf(name, GIT_CONFIG_READS)) return false;
      if (/^--(get|list)/.test(name)) action = true;
      if (equals < 0 && GIT_CONFIG_VALUES.some((option) => option === name)) at++;
      continue;
    }
    // A cluster of short flags (`-lz`): `-f` and `-t` take the rest of it, or the next argument.
    for (let letter = 1; letter < arg.length; letter++) {
      const flag = `-${arg[letter]}`;
      if (!GIT_CONFIG_SHORT_READS.has(flag)) return false;
      if (flag === "-l") action = true;
      if (flag === "-f" || flag === "-t") {
        if (letter === arg.length - 1) at++;
        break;
      }
    }
  }
  // The subcommand forms (`git config get user.name`), or the old forms: an action that reads, or
  // a name alone (`git config user.name`), a value after it being a write.
  const first = operands[0] as string;
  if (GIT_CONFIG_READ_SUBCOMMANDS.has(first)) return true;
  if (GIT_CONFIG_WRITE_SUBCOMMANDS.has(first)) return false;
  return action || operands.length <= 1;
}

/**
 * git subcommands and options that run a command given on the command line (`rebase -x`,
 * `bisect run`, `submodule foreach`, `grep -O`, `difftool -x`, `filter-branch`, `daemon
 * --access-hook`, `merge-index`), run git in a repository not named by `-C` (`for-each-repo`,
 * `receive-pack DIR`), go into submodules, whose own configuration cairn does not read (see
 * git.ts), or write git's configuration: the operator's, which cairn trusts, or the repository's
 * (`config core.fsmonitor …`).
 */
export function gitCode(args: readonly string[]): string | undefined {
  const { sub, rest } = gitSubcommand(args);
  const has = (...flags: string[]) =>
    rest.find((arg) =>
      flags.some((flag) => arg === flag || arg.startsWith(flag.startsWith("--") ? `${flag}=` : flag)),
    );
  const short = (letter: string, takesValue: string) => shortFlag(rest, letter, takesValue);
  for (const arg of args) {
    // By any prefix git takes for the option (`grep --recurse-sub`), as for every long option.
    const equals = arg.indexOf("=");
    const name = equals < 0 ? arg : arg.slice(0, equals);
    const value = equals < 0 ? undefined : arg.slice(equals + 1);
    const names = (option: string) => name.length > 5 && option.startsWith(name);
    if (names("--recurse-submodules") && value !== "no") return "--recurse-submodules";
    if (names("--ignore-submodules") && value !== undefined && value !== "all") return "--ignore-submodules";
  }
  switch (sub) {
    case "submodule":
    // The internal helpers `submodule`, `bisect` and `difftool` run (`submodule--helper foreach CMD`).
    case "submodule--helper":
    case "bisect--helper":
    case "difftool--helper":
    case "filter-branch":
    case "instaweb":
    case "send-email":
    // A server for anyone who connects, running its --access-hook (any program) on each connection.
    case "daemon":
    // Its first operand is the program it runs on each unmerged file (`merge-index ./x.sh -a`).
    case "merge-index":
    // A git command run in every repository a configuration key lists (`maintenance.repo`: the
    // operator's other repositories), as `-C` would, the command itself judged by nothing here
    // (its `--config` was refused until now only as a prefix of `--config-env`).
    case "for-each-repo":
    // A transport's far end run directly: its repository is an operand, which neither the `-C`
    // rule nor the configuration look sees (receive-pack runs its core.alternateRefsCommand).
    case "receive-pack":
    case "upload-pack":
    case "upload-archive":
    // Internal, as remote-curl's helper: `--index-pack-args` is a git command line it runs.
    case "http-fetch":
      return sub;
    case "bisect":
      return rest.includes("run") ? "bisect run" : undefined;
    case "rebase":
      return short("x", "sXC") ? "rebase -x" : undefined;
    case "grep":
      return has("--open-files-in-pager") || short("O", "efABCm") ? "grep -O" : undefined;
    case "difftool":
      return has("--extcmd") || short("x", "t") ? "difftool -x" : undefined;
    case "clone":
      return has("--config") || short("u", "obcj") ? "clone -u" : undefined;
    case "maintenance":
      // Writes the operator's global configuration (`maintenance.repo`) and, for `start`, the
      // user's crontab or systemd timers, which then run git here every hour, outside cairn.
      return rest.some((arg) => arg === "register" || arg === "start") ? "maintenance register" : undefined;
    case "config":
      // Writing the repository's own configuration plants a program the user's git runs later;
      // writing the operator's changes what cairn trusts.
      return gitConfigReads(rest) ? undefined : "config (a write)";
    default:
      return undefined;
  }
}

/**
 * Whether a short flag is among `args`: alone, with its value attached (`-x./evil.sh`), or in a
 * cluster (`-iO./evil.sh`), whose letters are read up to the first that takes the rest of it as
 * its value (one of `takesValue`).
 */
export function shortFlag(args: readonly string[], letter: string, takesValue: string): boolean {
  return args.some((arg) => {
    if (!/^-[A-Za-z0-9]/.test(arg)) return false;
    for (const flag of arg.slice(1)) {
      if (flag === letter) return true;
      if (takesValue.includes(flag) || !/[A-Za-z0-9]/.test(flag)) return false;
    }
    return false;
  });
}

/** The subcommand past git's global options, and the arguments after it. */
export function gitSubcommand(args: readonly string[]): { sub: string | undefined; rest: readonly string[] } {
  let at = 0;
  while (at < args.length && (args[at] as string).startsWith("-")) {
    at += GIT_VALUE_OPTIONS.has(args[at] as string) ? 2 : 1;
  }
  return { sub: args[at], rest: args.slice(at + 1) };
}
