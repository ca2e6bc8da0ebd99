/**
 * What git writes at a path of the caller's, read from its command line: the subcommands and
 * options that put what a repository holds (or a report, a socket) where the caller says, out of
 * the workspace too (code-flags.ts judges them with the other programs' writing flags).
 */
import { gitSubcommand, shortFlag } from "./git-args.js";

/** Options of `git clone` and `git init` that take their value as the next argument. */
const GIT_CLONE_VALUES = new Set(["-o", "-b", "-u", "-c", "-j"]);
const GIT_CLONE_LONG_VALUES = new Set([
  "--origin",
  "--branch",
  "--upload-pack",
  "--config",
  "--jobs",
  "--reference",
  "--reference-if-able",
  "--separate-git-dir",
  "--depth",
  "--shallow-since",
  "--shallow-exclude",
  "--server-option",
  "--filter",
  "--bundle-uri",
  "--template",
  "--ref-format",
  "--initial-branch",
  "--object-format",
]);

/** The operands of a `clone` or `init` command line (an option's own value is none). */
function gitOperands(rest: readonly string[]): string[] {
  const operands: string[] = [];
  for (let at = 0; at < rest.length; at++) {
    const arg = rest[at] as string;
    if (arg === "--") return [...operands, ...rest.slice(at + 1)];
    if (!arg.startsWith("-") || arg === "-") operands.push(arg);
    else if (GIT_CLONE_VALUES.has(arg) || GIT_CLONE_LONG_VALUES.has(arg)) at++;
  }
  return operands;
}

/**
 * A file or folder written where the caller says, beyond WRITE_FLAGS (write-flags.ts): `git
 * archive -o FILE` (`-oFILE`), and git's other ways of putting what a repository holds (an
 * agent's commits, its branch names) at a path of the caller's: a bundle (whose ref names a shell
 * runs, as ~/.bashrc), patches, the work tree's files (`--work-tree`, `checkout-index --prefix`,
 * `worktree add`), a clone or a new repository elsewhere, and the plumbing's files (marks, a
 * mail's parts, packs and their indexes, reports, a credential socket). An agent's commits are its own to put
 * in the workspace; what lands outside it (a startup file, a folder a shell sources) runs later.
 */
export function gitWrites(args: readonly string[]): string | undefined {
  const { sub, rest } = gitSubcommand(args);
  const global = args.slice(0, args.length - rest.length - (sub === undefined ? 0 : 1));
  if (global.some((arg) => arg === "--work-tree" || arg.startsWith("--work-tree="))) return "--work-tree";
  switch (sub) {
    case "archive":
      return shortFlag(rest, "o", "") ? "archive -o" : undefined;
    // A repository on this machine: git writes its refs and objects, where the caller says, and
    // runs its receive-pack with its own hooks and configuration (a remote name, or an alias, that
    // stands for one meets git's local transport turned off: see gitEnv in git.ts).
    case "push":
    case "send-pack": {
      const to = pushDestination(rest);
      return to !== undefined && localRepository(to) ? `${sub} to a local repository` : undefined;
    }
    case "bundle":
      // `create -` writes to standard output.
      return rest[0] === "create" && gitOperands(rest.slice(1))[0] !== "-" ? "bundle create" : undefined;
    case "format-patch":
      // (-v takes a reroll count, and diff's -S, -G, -O, -I, -U, -l, -X, -B, -M, -C their values.)
      return shortFlag(rest, "o", "vSGOIUlXBMC") || rest.some((arg) => /^--output-d/.test(arg))
        ? "format-patch -o"
        : undefined;
    case "checkout-index":
      return rest.some((arg) => abbreviates(arg, "--prefix")) ? "checkout-index --prefix" : undefined;
    // The marks file, and fast-import's list of packs, written where the option says.
    case "fast-export":
    case "fast-import":
      for (const option of ["--export-marks", "--export-pack-edges"])
        if (rest.some((arg) => abbreviates(arg, option))) return `${sub} ${option}`;
      return undefined;
    // The message and the patch of the mail on standard input, at its two operands.
    case "mailinfo":
      return sub;
    // A pack and its index at `BASENAME-<hash>.pack`, `.idx`, unless the pack goes to standard output.
    case "pack-objects":
      return rest.includes("--stdout") ? undefined : "pack-objects BASENAME";
    // The index at `-o FILE`, or beside the pack file named (and a `.keep` with `--keep`), unless
    // it only verifies the pack; `--stdin` alone writes into the repository's own objects.
    case "index-pack": {
      if (rest.includes("-o")) return "index-pack -o";
      const verifies = rest.some((arg) => arg.startsWith("--verify"));
      return rest.some((arg) => !arg.startsWith("-")) && !verifies ? "index-pack PACK" : undefined;
    }
    // A report, or a zip of the repository's details, in the folder `-o` names.
    case "bugreport":
    case "diagnose":
      return shortFlag(rest, "o", "s") || rest.some((arg) => abbreviates(arg, "--output-directory"))
        ? `${sub} -o`
        : undefined;
    // Another object directory than the repository's: files and folders written there, as
    // `--git-dir` would point git at another repository.
    case "multi-pack-index":
    case "commit-graph":
      return rest.some((arg) => abbreviates(arg, "--object-dir")) ? `${sub} --object-dir` : undefined;
    // A socket made at a path of the caller's (whatever file was there removed first), and a
    // daemon left running behind it, holding credentials, out of cairn's sight.
    case "credential-cache":
    case "credential-cache--daemon":
    // The script merge-index runs: it removes (`rm -f`) or writes the file its fourth operand names.
    case "merge-one-file":
      return sub;
    case "worktree":
      return rest[0] === "add" || rest[0] === "move" ? `worktree ${rest[0]}` : undefined;
    // The first operand takes the merged text, but to standard output (or, 2.44+, as an object).
    case "merge-file":
      return mergeFileWritesNothing(rest) ? undefined : "merge-file";
    // A patch's files out of the work tree, where `--directory` says.
    case "apply":
      return rest.some((arg) => abbreviates(arg, "--unsafe-paths")) ? "apply --unsafe-paths" : undefined;
    // Each message of a mailbox, a file in the folder `-o` names.
    case "mailsplit":
      return rest.some((arg) => arg.startsWith("-o")) ? "mailsplit -o" : undefined;
    case "clone":
    case "init":
    // init's other name.
    case "init-db":
      // By any prefix git takes for them (`--templ=…`, `--separate-git=…`), as for every long option.
      for (const option of ["--separate-git-dir", "--template"])
        if (rest.some((arg) => abbreviates(arg, option))) return `${sub} ${option}`;
      // A clone into a folder of the caller's (its second operand), a repository made at one.
      return gitOperands(rest).length > (sub === "clone" ? 1 : 0) ? `${sub} DIRECTORY` : undefined;
    default:
      return undefined;
  }
}

/** Options of `git push` whose value may be the next argument (`--exec` is send-pack's). */
const GIT_PUSH_VALUES = new Set(["--repo", "-o", "--push-option", "--receive-pack", "--exec"]);

/** The repository a push goes to: `--repo` (by any prefix), or its first operand. */
function pushDestination(rest: readonly string[]): string | undefined {
  let repo: string | undefined;
  for (let at = 0; at < rest.length; at++) {
    const arg = rest[at] as string;
    if (arg === "--") return rest[at + 1] ?? repo;
    if (!arg.startsWith("-") || arg === "-") return arg;
    const equals = arg.indexOf("=");
    if (abbreviates(arg, "--repo")) repo = equals < 0 ? rest[++at] : arg.slice(equals + 1);
    // (A cluster ending in `-o`, `-fo`, takes the next argument as a push option too.)
    else if (equals < 0 && (GIT_PUSH_VALUES.has(arg) || /^-[A-Za-z0-9]*o$/.test(arg))) at++;
  }
  return repo;
}

/**
 * Whether git reads `url` as a repository on this machine: a `file:` URL or a path, not a
 * network URL (`scheme://`) or an ssh one (`host:path`, a colon before any slash). A bare name
 * is taken for a remote's here, though git takes one no remote has as a path.
 */
function localRepository(url: string): boolean {
  if (/^file:/i.test(url)) return true;
  if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(url)) return false;
  const colon = url.indexOf(":");
  const slash = url.indexOf("/");
  if (colon >= 0 && (slash < 0 || colon < slash)) return false;
  return slash >= 0 || url === "." || url === "..";
}

/** Whether `arg` names the long `option`, written whole or by a prefix (`--templ=x` for `--template`). */
function abbreviates(arg: string, option: string): boolean {
  const name = arg.split("=")[0] as string;
  return name.length > 2 && name.startsWith("--") && option.startsWith(name);
}

/**
 * Whether `git merge-file` prints the merge (`-p`, `--stdout`, `-qp`) or stores it as an object
 * (`--object-id`) rather than writing it over its first operand. A label (`-L -p`) is no `-p`;
 * an abbreviation of `--stdout` is read as a write.
 */
function mergeFileWritesNothing(rest: readonly string[]): boolean {
  for (let at = 0; at < rest.length; at++) {
    const arg = rest[at] as string;
    if (arg === "--") return false;
    if (arg === "--stdout" || arg === "--object-id") return true;
    if (arg.startsWith("--") || !arg.startsWith("-")) continue;
    // A cluster of short flags: `-L` takes the rest of it, or the next argument, as a label.
    const label = arg.indexOf("L");
    if (arg.slice(1, label < 0 ? undefined : label).includes("p")) return true;
    if (label === arg.length - 1) at++;
  }
  return false;
}
