import { statSync } from "node:fs";
import { dirname, extname, isAbsolute, join, relative, resolve, sep } from "node:path";
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
    return statSync(path).isFile();
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
 * script at the workspace root, where the harness and the code under test sit side by side.
 */
export function scriptImports(start: readonly string[], root: string): string[] {
  const found = new Set<string>();
  for (const first of start) {
    const home = dirname(resolve(root, first));
    const inHome = relative(root, home);
    if (inHome === "" || inHome.startsWith("..") || isAbsolute(inHome)) continue;
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
  return [...found].sort();
}

/** The local files one script loads, absolute; none for a file that is not a script cairn reads. */
function loads(file: string, root: string): string[] {
  const ext = extname(file).toLowerCase();
  if (!JS.has(ext) && !SHELL.has(ext) && !PYTHON.has(ext)) return [];
  let text: string;
  try {
    if (statSync(file).size > MAX_SCAN_BYTES) return [];
    text = readRegularFile(file);
  } catch {
    return [];
  }
  if (JS.has(ext)) return jsTargets(text, file);
  return SHELL.has(ext) ? shellTargets(text, file, root) : pythonTargets(text, file);
}
