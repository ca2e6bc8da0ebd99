import { statSync } from "node:fs";
import { basename, dirname, extname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { readRegularFile } from "../../kernel/regular-file.js";

/**
 * The local files a frozen script loads: a test runner whose verdict lives in `./lib/verdict.js`
 * is judged by that file as much as by the one its argv names, so a builder who edits the helper
 * changes what is measured. Read by pattern, not by running anything: relative `require`,
 * `import` and `export … from` in JavaScript and TypeScript, `source` / `.` in shell, and in
 * Python the modules found beside the script. Followed from file to file inside the starting
 * script's own folder (see `scriptImports`).
 */

/** Enough for any real test harness; a pathological tree stops here instead of hashing the disk. */
const MAX_FILES = 500;
/** A script larger than this is data, not a harness: not scanned (it is still hashed). */
const MAX_SCAN_BYTES = 1_000_000;

const JS = new Set([".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx"]);
const JS_TRY = ["", ".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".tsx", ".jsx", ".json"];
const JS_INDEX = ["index.js", "index.mjs", "index.cjs", "index.ts"];
const SHELL = new Set([".sh", ".bash", ".zsh", ".ksh"]);
const PYTHON = new Set([".py"]);

const JS_SPECIFIER =
  /(?:\brequire\s*\(\s*|\bimport\s*\(\s*|\bfrom\s*|\bimport\s+)(["'`])(\.{1,2}\/[^"'`\n]*)\1/g;
/**
 * After a line's start, only that line's blanks: a blank line is a line start of its own (`^\s*`
 * rescanned every following blank line from every line start, minutes for a script of newlines).
 */
export const SHELL_SOURCE =
  /(?:^[^\S\n\r\u2028\u2029]*|(?:[;&|{(]|\bthen|\bdo|\belse)\s*)(?:source|\.)\s+([^;&|\n#]+)/gm;
/**
 * `from ..pkg.mod import x`: the leading dots, then the module, which starts with a word character
 * (`(\.*)([\w.]*)` split a run of dots every way, and a long `from ....` line without ` import`
 * took minutes; both groups hold what they held before).
 */
export const PY_IMPORT =
  /^[ \t]*(?:from[ \t]+(\.*)((?:\w[\w.]*)?)[ \t]+import[ \t]+([\w \t,*()]+)|import[ \t]+([\w., \t]+))/gm;

const isFile = (path: string) => {
  try {
    // No error built for a path that is not there: a script may name many.
    return statSync(path, { throwIfNoEntry: false })?.isFile() === true;
  } catch {
    return false;
  }
};

function jsTargets(text: string, from: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(JS_SPECIFIER)) {
    const base = resolve(dirname(from), (match[2] as string).replace(/[?#].*$/, ""));
    const file =
      JS_TRY.map((ext) => base + ext).find(isFile) ?? JS_INDEX.map((i) => join(base, i)).find(isFile);
    if (file) found.push(file);
  }
  return found;
}

/** `. "$(dirname "$0")/common.sh"`, `source ./lib.sh`, `. lib/env.sh`: beside the script or the cwd. */
function shellTargets(text: string, from: string, cwd: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(SHELL_SOURCE)) {
    const line = (match[1] as string).replace(/["']/g, "").trim();
    const beside = line.match(
      /^(?:\$\(dirname\s+(?:--\s+)?\$\{?(?:0|BASH_SOURCE(?:\[0\])?)\}?\)|\$\{(?:0|BASH_SOURCE)%\/\*\})\/(\S+)/,
    );
    if (beside) {
      found.push(resolve(dirname(from), beside[1] as string));
      continue;
    }
    const word = line.split(/\s+/)[0] ?? "";
    if (word === "") continue;
    if (word.includes("$") || word.includes("`")) continue;
    found.push(isAbsolute(word) ? word : resolve(cwd, word), resolve(dirname(from), word));
  }
  return found.filter(isFile);
}

/** Modules a Python script imports that live beside it (its sys.path[0]) or relative to its package. */
function pythonTargets(text: string, from: string): string[] {
  const found: string[] = [];
  const moduleFile = (folder: string, dotted: string) => {
    const base = join(folder, ...dotted.split(".").filter((part) => part !== ""));
    return [`${base}.py`, join(base, "__init__.py")].find(isFile);
  };
  for (const match of text.matchAll(PY_IMPORT)) {
    if (match[4] !== undefined) {
      for (const name of match[4].split(",").map((part) => part.trim().split(/\s+/)[0] ?? "")) {
        const file = name ? moduleFile(dirname(from), name) : undefined;
        if (file) found.push(file);
      }
      continue;
    }
    const dots = (match[1] as string).length;
    let folder = dirname(from);
    for (let level = 1; level < dots; level++) folder = dirname(folder);
    const module = match[2] as string;
    const own = module ? moduleFile(folder, module) : undefined;
    if (own) found.push(own);
    // `from . import helper` / `from pkg import helper`: a name may itself be a module.
    const inside = module ? join(folder, ...module.split(".")) : folder;
    for (const name of (match[3] as string).replace(/[()]/g, "").split(",")) {
      const word = name.trim().split(/\s+/)[0] ?? "";
      const file = word && word !== "*" ? moduleFile(inside, word) : undefined;
      if (file) found.push(file);
    }
  }
  return found;
}

/**
 * Every file the scripts at `start` (workspace-relative paths) load, directly or through each
 * other, workspace-relative, the starting files excluded. A harness's helpers are told from the
 * code it tests by place: only loads inside the starting script's own folder are followed (a
 * `checks/run.js` judging through `checks/lib/verdict.js`), never `../src/…`, and nothing from a
 * script at the workspace root, where the harness and the code under test sit side by side. A
 * script above the root but in its checkout (`../shared/checks/run.js`, from a workspace made in
 * a package of a monorepo) is a harness like any (`top`: the checkout's top, by its real path).
 */
export function scriptImports(start: readonly string[], root: string, top = root): string[] {
  const found = new Set<string>();
  for (const first of start) {
    const home = dirname(resolve(root, first));
    if (!isHome(home, root, top)) continue;
    const seen = new Set([resolve(root, first)]);
    const queue = [...seen];
    while (queue.length > 0 && seen.size < MAX_FILES) {
      const file = queue.shift() as string;
      for (const target of loads(file, root)) {
        const below = relative(home, target);
        if (below.startsWith("..") || isAbsolute(below) || seen.has(target)) continue;
        seen.add(target);
        found.add(relative(root, target).split(sep).join("/"));
        queue.push(target);
      }
    }
  }
  for (const first of start) found.delete(first);
  for (const first of start)
    for (const pattern of [...pythonPathModules(first, root, top), ...nodeModulesBeside(first, root, top)])
      found.add(pattern);
  return [...found].sort();
}

/** A starting script's folder whose loads are followed: in the checkout, and not the root itself. */
function isHome(home: string, root: string, top: string): boolean {
  const inTop = relative(top, home);
  return (
    home !== root && inTop !== "" && !inTop.startsWith(`..${sep}`) && inTop !== ".." && !isAbsolute(inTop)
  );
}

/** Glob characters, escaped where a folder's own name is put in a pattern. */
const escapeGlob = (path: string) => path.replace(/[*?[\]{}()!+@\\]/g, "\\$&");

/** The starting script's folder, workspace-relative, as a glob; null for a script at the root. */
function homeGlob(first: string, root: string, top: string): string | null {
  const folder = dirname(resolve(root, first));
  if (!isHome(folder, root, top)) return null;
  return escapeGlob(relative(root, folder).split(sep).join("/"));
}

/**
 * Python puts a script's folder first on `sys.path` (pytest too, for a test folder with no
 * `__init__.py`), ahead of the standard library and installed packages: a `json.py`, a compiled
 * `json.so` or a `json/__init__.py` the builder adds beside `checks/check.py` replaces the module
 * for the script and for every module it loads. So the top-level modules of that folder, present
 * or not, are inputs: globs, under which a new file is a change. Never for a script at the root,
 * whose folder is the code under test.
 */
function pythonPathModules(first: string, root: string, top: string): string[] {
  const folder = homeGlob(first, root, top);
  return folder && PYTHON.has(kindOf(resolve(root, first)) ?? "")
    ? ["*.py", "*.pyc", "*.so", "*/__init__.*"].map((module) => `${folder}/${module}`)
    : [];
}

/**
 * Node resolves a package name (`require("chai")`) in the `node_modules` of the script's folder
 * and of each folder above it before the workspace's own: a `checks/node_modules/chai/index.js`
 * the builder adds (which git ignores, so no diff shows it) replaces the assertion library the
 * harness judges by. So every file under a `node_modules` inside the script's folder, present or
 * not, is an input. The workspace's own `node_modules` is the installed dependencies, not frozen.
 */
function nodeModulesBeside(first: string, root: string, top: string): string[] {
  const folder = homeGlob(first, root, top);
  return folder && JS.has(kindOf(resolve(root, first)) ?? "")
    ? [`${folder}/node_modules/**`, `${folder}/**/node_modules/**`]
    : [];
}

/**
 * The kind of script an extensionless file is, by its `#!` line (`#!/bin/sh`, `#!/usr/bin/env
 * -S node --flag`): a harness run as `checks/run` loads and runs files as much as `run.sh` does.
 */
const SHEBANG = /^#![ \t]*(\S+)(?:[ \t]+(?:-\S*[ \t]+)*(\S+))?/;
function shebangKind(text: string): ".sh" | ".js" | ".py" | null {
  const line = SHEBANG.exec(text.slice(0, 256));
  if (!line) return null;
  const program = basename(line[1] as string) === "env" ? (line[2] ?? "") : (line[1] as string);
  const name = basename(program);
  if (/^(?:ba|da|z|k|mk)?sh$/.test(name)) return ".sh";
  if (/^(?:node|nodejs|bun|deno|tsx|ts-node)$/.test(name)) return ".js";
  return /^python[0-9.]*$/.test(name) ? ".py" : null;
}

/** A script's text, or null for one too large to scan, or not a regular file. */
function scriptText(file: string): string | null {
  try {
    return statSync(file).size > MAX_SCAN_BYTES ? null : readRegularFile(file);
  } catch {
    return null;
  }
}

/** The kind of script a file is, as an extension: by its name, or with none by its `#!` line. */
function kindOf(file: string, text = () => scriptText(file)): string | null {
  const named = extname(file).toLowerCase();
  if (JS.has(named) || SHELL.has(named) || PYTHON.has(named)) return named;
  const read = named === "" ? text() : null;
  return read === null ? null : shebangKind(read);
}

/** The local files one script loads, absolute; none for a file that is not a script cairn reads. */
function loads(file: string, root: string): string[] {
  // A file with no extension may be a script by its `#!` line; one with another is not read.
  if (extname(file) !== "" && kindOf(file) === null) return [];
  const text = scriptText(file);
  const ext = text === null ? null : kindOf(file, () => text);
  if (text === null || ext === null) return [];
  const runs = namedScripts(text, file, root, SHELL.has(ext));
  if (JS.has(ext)) return [...jsTargets(text, file), ...runs];
  return [...runs, ...(SHELL.has(ext) ? shellTargets(text, file, root) : pythonTargets(text, file))];
}

/** `$(dirname "$0")`, `${0%/*}`, `${BASH_SOURCE%/*}`: the script's own folder, in shell. */
const SHELL_HERE =
  /\$\(dirname\s+(?:--\s+)?\$\{?(?:0|BASH_SOURCE(?:\[0\])?)\}?\)|\$\{(?:0|BASH_SOURCE)%\/\*\}/g;
/** A quoted string on one line (each scan stops at the next quote: one pass over the text). */
const QUOTED = /(["'`])([^"'`\n]{1,4096})\1/g;
const isScriptName = (path: string) => {
  const ext = extname(path).toLowerCase();
  return JS.has(ext) || SHELL.has(ext) || PYTHON.has(ext);
};
const isScript = (path: string) => {
  if (isScriptName(path)) return true;
  try {
    const stat = statSync(path);
    return stat.isFile() && (stat.mode & 0o111) !== 0;
  } catch {
    return false;
  }
};

/**
 * Scripts a script runs rather than loads: `bash checks/verify.sh` or `./verify` in a shell
 * script, `spawnSync("node", ["checks/verify.js"])` or `subprocess.run(["sh", "verify.sh"])`.
 * The script it runs judges the attempt as much as the one the argv names, so a builder who
 * rewrites it to `exit 0` must not go unseen. Taken as any word of a shell script, or any quoted
 * string of another, that names an existing script (by extension, or executable) from the
 * working directory (the workspace root) or from the script's folder; `scriptImports` keeps only
 * those inside the starting script's folder.
 */
function namedScripts(text: string, from: string, cwd: string, shell: boolean): string[] {
  const here = dirname(from);
  const words = shell
    ? text
        .replace(/["']/g, "")
        .replace(SHELL_HERE, "\0here")
        .split(/[\s;&|(){}<>`=]+/)
    : [...text.matchAll(QUOTED)].map((match) => match[2] as string);
  const found: string[] = [];
  // Only a word that looks like a path is looked up: a script of many words costs no more stats.
  const pathLike = (word: string) => word.includes("/") || isScriptName(word);
  for (const word of new Set(words.filter(pathLike))) {
    if (word.startsWith("\0here/")) {
      found.push(resolve(here, word.slice("\0here/".length)));
      continue;
    }
    if (word === "" || word.includes("$") || word.includes("\0") || word.startsWith("-")) continue;
    found.push(isAbsolute(word) ? word : resolve(cwd, word), resolve(here, word));
  }
  // A folder that is not there holds none of its words: one look for all the paths under it.
  const folders = new Map<string, boolean>();
  const inFolder = (path: string) => {
    const folder = dirname(path);
    let there = folders.get(folder);
    if (there === undefined) {
      try {
        there = statSync(folder, { throwIfNoEntry: false })?.isDirectory() === true;
      } catch {
        there = false; // a path through a file, or one too long
      }
      folders.set(folder, there);
    }
    return there;
  };
  return found.filter((path) => path !== from && inFolder(path) && isFile(path) && isScript(path));
}
