import { existsSync, lstatSync, statSync } from "node:fs";
import { basename, dirname, isAbsolute, join, posix, relative, resolve, sep } from "node:path";
import picomatch from "picomatch";
import { globMatcher } from "../../kernel/glob.js";
import { isInside, realPathOf } from "../../kernel/inside.js";
import { readRegularFile } from "../../kernel/regular-file.js";
import type { FrozenEvaluatorRecord } from "../../store/store.js";
import type { EvaluatorDefinition } from "./evaluators/definition.js";
import {
  checkoutTop,
  filesBelow,
  hashInputFile,
  hashWorkFile,
  ignoredFilesUnder,
  placeInCheckout,
  workFiles,
} from "./git.js";
import { scriptImports } from "./script-imports.js";

/**
 * Frozen inputs: what an evaluator depends on beyond its argv. Freezing a run hashes every file
 * they match; an attempt that changes, adds or deletes one is never kept, because a builder who
 * can rewrite the test script (or the tests) can make any evaluator pass.
 */
export interface FrozenInputs {
  /** Repository-relative globs. */
  patterns: string[];
  /** Repository-relative path → content hash (`absent` for a named file that did not exist). */
  files: Record<string, string>;
  /** Hashes carry the executable bit (`+x`); absent in runs frozen before it was. */
  modes?: boolean;
}

/**
 * A frozen input's hash with its executable bit: `chmod -x checks/strict` alone makes `run-parts
 * checks` (or any runner that runs only executables) skip a check, with no byte changed.
 */
function hashInputWithMode(top: string, path: string): string {
  const hash = hashInputFile(top, path);
  if (hash === "absent") return hash;
  try {
    const stat = statSync(join(top, path));
    return stat.isFile() && (stat.mode & 0o111) !== 0 ? `${hash}+x` : hash;
  } catch {
    return hash;
  }
}

const PACKAGE_RUNNERS = new Set(["npm", "pnpm", "yarn", "bun"]);
/** Programs that read a package runner's project configuration before they run anything. */
const RUNNER_PROGRAMS = new Set([...PACKAGE_RUNNERS, "npx", "pnpx", "bunx", "corepack"]);
/**
 * The project configuration those runners read from the workspace root: an `.npmrc` alone can set
 * `node-options=--require ./x.cjs` or `script-shell=/bin/true` and make any script pass.
 */
const RUNNER_CONFIG = [".npmrc", ".yarnrc", ".yarnrc.yml", ".pnpmfile.cjs", "bunfig.toml"];
/** Subcommands of a package runner that are not a script name. */
const RUNNER_VERBS = new Set(["run", "run-script", "exec", "x", "dlx", "npx"]);

const isFolder = (path: string) => {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
};

const isFile = (path: string) => {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
};

/**
 * `root` and each folder above it up to the checkout's top, relative to `root` ("", "..", "../..").
 * A package runner started in a package of a monorepo reads the project configuration of the
 * repository's top too (npm with `workspaces`, pnpm, yarn): a `.npmrc` created there
 * (`script-shell=/bin/true`) made every `npm test` in the package pass.
 */
function foldersUpTo(root: string, top: string): string[] {
  const folders = [""];
  for (let folder = root; folder !== top && isInside(top, folder); ) {
    const up = dirname(folder);
    if (up === folder) break;
    folder = up;
    folders.push(relative(root, folder).split(sep).join("/"));
  }
  return folders;
}

/** `npm test`, `npm run lint`, `yarn build`: the script name, or null for anything else. */
function scriptNameOf(argv: readonly string[]): string | null {
  const program = basename(argv[0] ?? "");
  if (!PACKAGE_RUNNERS.has(program)) return null;
  const words = argv.slice(1).filter((word) => !word.startsWith("-"));
  const [first, second] = words;
  if (!first) return null;
  if (first === "t" || first === "test") return "test";
  if (first === "run" || first === "run-script") return second ?? null;
  if (RUNNER_VERBS.has(first)) return null;
  return program === "npm" ? null : first;
}

/**
 * Words of a command line that name files of the checkout (flags and their values skipped),
 * relative to `root`: a workspace made in a folder of a repository (a monorepo's package) runs
 * checks kept above it (`node ../shared/check.js`), which the builder can edit as well as its own.
 */
function fileWords(words: readonly string[], cwd: string, root: string, top: string): string[] {
  const found: string[] = [];
  for (const raw of words) {
    const word = raw.includes("=") && raw.startsWith("-") ? raw.slice(raw.indexOf("=") + 1) : raw;
    if (word === "" || word.startsWith("-")) continue;
    const full = isAbsolute(word) ? word : resolve(cwd, word);
    if (full === top || !isInside(top, full)) continue;
    if (isFile(full)) found.push(relative(root, full).split(sep).join("/"));
  }
  return found;
}

/**
 * `python -m pytest` runs the first `pytest` on its path, and the path starts with the working
 * directory: a `pytest.py` or `pytest/` the builder adds there replaces the tool. Where the
 * workspace has no such module at freeze, its would-be files are inputs (absent): creating one
 * is a change. A module the workspace does have is its own code, judged, not frozen.
 */
function shadowingModules(argv: readonly string[], root: string): string[] {
  if (!/^python[0-9.]*$/.test(basename(argv[0] ?? ""))) return [];
  const flag = argv.indexOf("-m");
  const module = flag > 0 ? argv[flag + 1]?.split(".")[0] : undefined;
  if (!module || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(module)) return [];
  if (existsSync(join(root, `${module}.py`)) || existsSync(join(root, module))) return [];
  return [`${module}.py`, `${module}/__init__.py`, `${module}/__main__.py`];
}

/**
 * The inputs cairn adds by itself, relative to the workspace root: files the argv names, for a
 * package runner (npm, npx, yarn…) its project configuration, and for `npm test` / `npm run X`
 * the package manifest and the files its script (with pre/post hooks) names, and the local modules
 * each of those scripts loads (see script-imports.ts). Declared `inputs` (the evaluator's or its pack's test folders) come on top.
 */
export function defaultInputs(definition: EvaluatorDefinition, root: string, top = root): string[] {
  const inputs = new Set<string>(fileWords(definition.argv, root, root, top));
  if (RUNNER_PROGRAMS.has(basename(definition.argv[0] ?? "")))
    for (const folder of foldersUpTo(root, top))
      for (const file of RUNNER_CONFIG) inputs.add(folder === "" ? file : `${folder}/${file}`);
  const script = scriptNameOf(definition.argv);
  const manifest = join(root, "package.json");
  if (script && existsSync(manifest)) {
    inputs.add("package.json");
    try {
      const scripts = (JSON.parse(readRegularFile(manifest)) as { scripts?: Record<string, unknown> })
        .scripts;
      for (const name of [`pre${script}`, script, `post${script}`]) {
        const line = scripts?.[name];
        if (typeof line === "string")
          for (const file of fileWords(line.split(/\s+/), root, root, top)) inputs.add(file);
      }
    } catch {
      // An unreadable manifest (a FIFO in its place too, never waited on) is still an input: its
      // hash catches any change.
    }
  }
  for (const file of shadowingModules(definition.argv, root)) inputs.add(file);
  // The helpers those scripts load judge the attempt as much as the scripts do.
  for (const file of scriptImports([...inputs], root, top)) inputs.add(file);
  for (const declared of definition.inputs) {
    // An input outside the checkout is not the builder's to change, and not cairn's to read; one
    // above the workspace's folder but in its checkout (`../shared/**`) is as editable as any.
    const full = isAbsolute(declared) ? declared : resolve(root, declared);
    if (full === top || !isInside(top, full)) continue;
    inputs.add(relative(root, full).split(sep).join("/"));
  }
  return [...inputs].sort();
}

/** A pattern relative to the workspace root made repository-relative (`../shared/**` from `pkg`). */
const globOf = (prefix: string, pattern: string) =>
  posix.normalize(prefix ? `${prefix}/${pattern}` : pattern);

/** The repository-relative place of the workspace root inside its checkout ("" at the top). */
async function prefixOf(root: string): Promise<{ top: string; prefix: string } | null> {
  const top = await checkoutTop(root);
  if (!top) return null;
  return { top, prefix: placeInCheckout(top, root) };
}

/**
 * Every file a set of patterns can match in a checkout: tracked and untracked files, and the ones
 * git ignores inside a pattern's folder (`tests/**`, `checks/*.js`). Ignore rules are the
 * builder's to write (`.git/info/exclude` is not even in the tree), so they must not hide a new
 * test helper or setup file from the inputs. A pattern with no folder of its own (`*.py` at any depth) matches
 * ignored files only where they are named: listing every ignored dependency would hash them all.
 */
async function candidates(top: string, patterns: readonly string[]): Promise<string[]> {
  const scanned = patterns.map((pattern) => picomatch.scan(pattern));
  const named = scanned.filter((scan) => !scan.isGlob).map((scan) => scan.input);
  const folders = scanned.filter((scan) => scan.isGlob && scan.base !== "").map((scan) => scan.base);
  // Only a folder a pattern can reach inside is listed: a vendored repository elsewhere is not read.
  const bases = scanned.map((scan) => (scan.isGlob ? scan.base : scan.input));
  const reachable = (folder: string) =>
    bases.some((base) => base === "" || base.startsWith(`${folder}/`) || `${folder}/`.startsWith(`${base}/`));
  const found = new Set<string>();
  for (const path of [...(await workFiles(top)), ...(await ignoredFilesUnder(top, folders))]) {
    // A nested repository (`tests/x/`) or a submodule is one entry to git, a folder of files to
    // the evaluator: a glob such as `tests/**/*.js` must see each file inside.
    const folder = path.replace(/\/$/, "");
    if (isFolder(join(top, folder)) && reachable(folder))
      for (const file of filesBelow(join(top, folder))) found.add(`${folder}/${file}`);
    else found.add(path);
  }
  for (const path of named) if (hashWorkFile(top, path) !== "absent") found.add(path);
  return [...found].sort();
}

/** Hash what the patterns match in the checkout holding `root`. */
export async function freezeInputs(
  definition: EvaluatorDefinition,
  workspace: string,
): Promise<FrozenInputs> {
  // By real paths, as git names its top: `..` above the workspace's folder is where the
  // evaluator, run there, finds it.
  const root = realPathOf(workspace);
  const where = await prefixOf(root);
  if (!where) return { patterns: [], files: {}, modes: true };
  const patterns = defaultInputs(definition, root, realPathOf(where.top)).map((pattern) =>
    globOf(where.prefix, pattern),
  );
  const matches = globMatcher(patterns);
  const files: Record<string, string> = {};
  for (const path of await candidates(where.top, patterns))
    if (matches(path)) files[path] = hashInputWithMode(where.top, path);
  // A named file that does not exist yet is an input too: creating it is a change.
  for (const pattern of patterns)
    if (!picomatch.scan(pattern).isGlob && !(pattern in files)) files[pattern] = "absent";
  return { patterns, files, modes: true };
}

/**
 * Frozen inputs that differ in the checkout at `dir`: changed, deleted, or new files matching a
 * frozen pattern. Each path is repository-relative.
 */
export async function inputDrift(
  manifest: readonly FrozenEvaluatorRecord[],
  dir: string,
  topOfCheckout?: Promise<string | null>,
): Promise<string[]> {
  const frozen = manifest.filter((entry) => entry.inputs && entry.inputs.patterns.length > 0);
  if (frozen.length === 0) return [];
  const top = await (topOfCheckout ?? checkoutTop(dir));
  if (!top) return [];
  const present = await candidates(
    top,
    frozen.flatMap((entry) => (entry.inputs as FrozenInputs).patterns),
  );
  const drifted = new Set<string>();
  for (const entry of frozen) {
    const inputs = entry.inputs as FrozenInputs;
    const current = inputs.modes ? hashInputWithMode : hashInputFile;
    for (const [path, hash] of Object.entries(inputs.files))
      if (current(top, path) !== hash) drifted.add(path);
    const matches = globMatcher(inputs.patterns);
    for (const path of present) if (matches(path) && !(path in inputs.files)) drifted.add(path);
  }
  return [...drifted].sort();
}

/** Which frozen evaluators depend on each drifted path (for the verdict's wording). */
export function dependents(manifest: readonly FrozenEvaluatorRecord[], paths: readonly string[]) {
  const inputs = manifest.flatMap((entry) =>
    entry.inputs
      ? [{ name: entry.name, files: entry.inputs.files, matches: globMatcher(entry.inputs.patterns) }]
      : [],
  );
  return paths.map((path) => ({
    path,
    evaluators: inputs.filter(({ files, matches }) => path in files || matches(path)).map(({ name }) => name),
  }));
}
