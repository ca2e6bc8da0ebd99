import {
  closeSync,
  fstatSync,
  lstatSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  readSync,
  realpathSync,
  statSync,
} from "node:fs";
import { extname, join, relative, sep } from "node:path";
import { crypto } from "../../kernel/builtins.js";
import type { FolderCopy } from "../../kernel/folder-copy.js";
import { isInside, realPathOf } from "../../kernel/inside.js";
import { CairnError } from "../../kernel/outcome.js";
import { isRacy, StampCache, stampOf } from "../../kernel/stamp-cache.js";
import { checkServedPath, openInside } from "./paths.js";

/** What a skill folder holds, as its index shows it: bounded in depth and count, noise skipped. */
export interface SkillFile {
  path: string;
  size: number;
  binary: boolean;
  /** Under scripts/ with an interpreter cairn can tell (shebang or extension): `skill_run` runs it. */
  runnable: boolean;
  /**
   * A file cairn will not read: a symlink resolving outside the skill, or one `openInside` refuses
   * (a file with more than one hard link). Listed so nothing is hidden, never read.
   */
  external?: boolean;
}

export const INDEX_LIMIT = 200;
const MAX_DEPTH = 6;
/** The MCP Skills extension's bounds for one skill. */
export const DIGEST_FILE_LIMIT = 512;
export const DIGEST_BYTES_LIMIT = 16 * 1024 * 1024;
const NOISE = new Set(["node_modules", "__pycache__", ".git", ".DS_Store", ".venv", "target"]);

const isNoise = (name: string) =>
  NOISE.has(name) || name.startsWith(".") || name.endsWith("~") || name.endsWith(".swp");

/**
 * What the digest that enables running leaves out: only what no interpreter loads on a script's
 * behalf. A skill's own `node_modules` (Node resolves `require` there first), `.venv`, `target` and
 * dotfiles hold code and settings a script loads without naming their content, so they are
 * covered: changing them changes the digest. `__pycache__` is never read by a run (each run
 * compiles into a fresh prefix); `.git` and editor backups are not loaded by interpreters.
 */
const RUN_NOISE = new Set([".git", "__pycache__", ".DS_Store"]);
const isRunNoise = (name: string) => RUN_NOISE.has(name) || name.endsWith("~") || name.endsWith(".swp");

/** Interpreters by extension, for scripts without a shebang (most real ones). */
export const INTERPRETERS: Readonly<Record<string, readonly string[]>> = {
  ".py": ["python3"],
  ".sh": ["bash"],
  ".bash": ["bash"],
  ".js": [process.execPath],
  ".mjs": [process.execPath],
  ".cjs": [process.execPath],
  ".rb": ["ruby"],
  ".pl": ["perl"],
  ".php": ["php"],
};

/** A file's first bytes: NUL or invalid UTF-8 means binary. */
export function sniff(fd: number, size: number): { binary: boolean; head: string } {
  const length = Math.min(size, 8_192);
  const buffer = Buffer.alloc(length);
  const read = readSync(fd, buffer, 0, length, 0);
  const head = buffer.subarray(0, read);
  if (head.includes(0)) return { binary: true, head: "" };
  try {
    // A multi-byte character cut at the window's end is not a reason to call it binary.
    const text = new TextDecoder("utf-8", { fatal: true }).decode(head.subarray(0, trimToBoundary(head)));
    return { binary: false, head: text };
  } catch {
    return { binary: true, head: "" };
  }
}

/** Bytes of `buffer` up to its last complete UTF-8 character. */
export function trimToBoundary(buffer: Buffer): number {
  let end = buffer.length;
  let back = 0;
  while (back < 4 && end - back - 1 >= 0 && ((buffer[end - back - 1] as number) & 0xc0) === 0x80) back++;
  const lead = end - back - 1;
  if (lead < 0) return end;
  const byte = buffer[lead] as number;
  const width = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
  if (width > back + 1) end = lead;
  return end;
}

export const hasShebang = (head: string) => head.startsWith("#!");

/** Walk the skill folder (real path), depth- and count-bounded, sorted, noise skipped. */
export function indexFiles(
  realDir: string,
  limit = INDEX_LIMIT,
  /** Sniff each file for binary and runnable (the index a model reads); a digest needs only paths. */
  describe = true,
  /** Each entry whose content the index does not hold: a link out of the skill or to a folder, a FIFO. */
  onLink?: (path: string, target: string) => void,
  /** Names passed over: the index a model reads skips dependency folders and dotfiles. */
  skip: (name: string) => boolean = isNoise,
): { files: SkillFile[]; truncated: boolean } {
  const files: SkillFile[] = [];
  let truncated = false;
  const walk = (dir: string, prefix: string, depth: number) => {
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch {
      return;
    }
    for (const name of names) {
      if (skip(name)) continue;
      if (files.length >= limit) {
        truncated = true;
        return;
      }
      const path = prefix ? `${prefix}/${name}` : name;
      if (path === "SKILL.md") continue;
      const full = join(dir, name);
      let link = false;
      try {
        link = lstatSync(full).isSymbolicLink();
      } catch {
        continue;
      }
      let real = full;
      if (link) {
        try {
          real = realpathSync.native(full);
        } catch {
          continue; // dangling
        }
        if (!isInside(realDir, real)) {
          onLink?.(path, linkTarget(full));
          files.push({ path, size: 0, binary: false, runnable: false, external: true });
          continue;
        }
      }
      let stats: ReturnType<typeof statSync>;
      try {
        stats = statSync(real);
      } catch {
        continue;
      }
      if (stats.isDirectory()) {
        // A symlinked folder inside the skill is listed, not walked (no loops).
        if (link) onLink?.(path, linkTarget(full));
        else if (depth < MAX_DEPTH) walk(real, path, depth + 1);
        // A folder past the depth bound holds files no index or digest sees: say so.
        else truncated = true;
        continue;
      }
      if (!stats.isFile()) {
        // A FIFO or socket: no content to index, yet an interpreter may read one (Node resolves
        // `require` to it like a file, and a writer behind it supplies the code). Named to the
        // digest as a link is, so planting one changes what the operator enabled.
        onLink?.(path, "\0not a regular file");
        continue;
      }
      files.push(
        describe
          ? describeFile(realDir, path, stats.size)
          : { path, size: stats.size, binary: false, runnable: false },
      );
    }
  };
  walk(realDir, "", 0);
  return { files, truncated };
}

function linkTarget(path: string): string {
  try {
    return readlinkSync(path);
  } catch {
    return "";
  }
}

function describeFile(realDir: string, path: string, size: number): SkillFile {
  let binary = false;
  let head = "";
  try {
    const opened = openInside(realDir, path);
    try {
      ({ binary, head } = sniff(opened.fd, opened.size));
    } finally {
      closeSync(opened.fd);
    }
  } catch {
    return { path, size, binary: false, runnable: false, external: true };
  }
  const runnable =
    path.startsWith("scripts/") &&
    !binary &&
    (hasShebang(head) || extname(path).toLowerCase() in INTERPRETERS);
  return { path, size, binary, runnable };
}

export interface Digest {
  /** SHA-256 over every file's path and digest, in path order: changes when any file does. */
  digest: string;
  files: { path: string; sha256: string; size: number }[];
  /**
   * Over the extension's bounds (512 files, 16 MiB, folders nested deeper than the index walks):
   * the digest covers what was read, so what it left out can change without changing it.
   */
  truncated: boolean;
  /**
   * Files the walk found but the digest could not read (one with a second hard link, one this
   * user may not read): left out of it, so what they hold can change without changing it.
   */
  unread: string[];
}

/**
 * Files hashed earlier in this process, by real path and stamp, for what only publishes digests
 * (the Skills extension's lists, skill_read's pages). What enables a script to run never reads from it.
 */
const HASHED = new StampCache<string>();

/**
 * The skill's content digest: SKILL.md and every file (symlinks out excluded): for a run, every
 * file a script may load (`isRunNoise`); for publishing, the files the index lists. Every file is
 * hashed from its bytes unless publishing, which may reuse hashes kept by file stamp
 * (`skill_run`'s check against the operator's enabling always hashes afresh).
 *
 * The whole digest also names every link whose content no file entry holds (one pointing out of
 * the skill, one to a folder), with its target: a script's interpreter follows them (a planted
 * `scripts/json.py -> /tmp/x.py` shadows Python's json module), so adding one must change what
 * the operator enabled. A skill without such links keeps the digest it had.
 */
export function digestSkill(
  realDir: string,
  purpose: "run" | "publish" = "run",
  /** Folders agents write (the project workspace): a link from the skill into them is not covered. */
  untrusted: readonly string[] = [],
  /** Where to write what was hashed, byte for byte: the copy a run starts from (kernel/folder-copy.ts). */
  copy?: FolderCopy,
): Digest {
  const reuse = purpose === "publish";
  const links: { path: string; target: string }[] = [];
  const realUntrusted = reuse ? [] : untrusted.map(realPathOf);
  let unhashed = false;
  // Publishing lists the files the index shows; enabling a run covers whatever a script may load.
  const { files, truncated } = indexFiles(
    realDir,
    DIGEST_FILE_LIMIT - 1,
    false,
    (path, target) => {
      links.push({ path, target });
      if (!reuse && reachesUnhashed(realDir, path, realUntrusted)) unhashed = true;
    },
    reuse ? isNoise : isRunNoise,
  );
  const entries = [{ path: "SKILL.md" }, ...files.filter((file) => !file.external)];
  const out: Digest["files"] = [];
  const unread: string[] = [];
  let bytes = 0;
  // A linked folder's files are hashed where the walk meets the folder itself; one it passes
  // over (`lib~`, `.git/x`), or one out of the skill where agents write, is reached through the
  // link (`scripts/util -> ../lib~/util`) with no file of it hashed: what it holds could change
  // under the digest, as past its bounds.
  let cut = truncated || unhashed;
  for (const { path } of entries) {
    let hash: string;
    let size: number;
    try {
      const opened = openInside(realDir, path);
      try {
        size = opened.size;
        if (bytes + size > DIGEST_BYTES_LIMIT) {
          cut = true;
          continue;
        }
        if (copy) {
          // The bytes hashed are the bytes copied: one read, so nothing can change in between.
          const content = readFileSync(opened.fd);
          size = content.length;
          if (bytes + size > DIGEST_BYTES_LIMIT) {
            cut = true;
            continue;
          }
          hash = crypto().createHash("sha256").update(content).digest("hex");
          copy.file(path, content, opened.mode);
        } else hash = reuse ? hashReusing(opened.fd, opened.real) : hashFd(opened.fd);
      } finally {
        closeSync(opened.fd);
      }
    } catch (error) {
      // Gone (SKILL.md, which an agent's folder has not) is absent; there but not read is not.
      if (!(error instanceof CairnError && error.errorKind === "not_found")) unread.push(path);
      continue;
    }
    bytes += size;
    out.push({ path, sha256: hash, size });
  }
  const whole = crypto().createHash("sha256");
  for (const file of out) whole.update(`${file.path}\0${file.sha256}\n`);
  for (const link of links) whole.update(`${link.path}\0link\0${link.target}\n`);
  if (copy) for (const link of links) copy.link(link.path, link.target);
  return { digest: `sha256:${whole.digest("hex")}`, files: out, truncated: cut, unread };
}

/**
 * A link in the skill whose content the run digest holds nowhere and an agent may change: to a
 * folder inside the skill that the digest passes over (or one below such), or to anything out of
 * the skill inside `realUntrusted`. A link out to elsewhere is named by its target, as before.
 */
function reachesUnhashed(realDir: string, path: string, realUntrusted: readonly string[]): boolean {
  let real: string;
  try {
    real = realpathSync.native(join(realDir, path));
  } catch {
    return false;
  }
  if (!isInside(realDir, real)) return realUntrusted.some((folder) => isInside(folder, real));
  return relative(realDir, real).split(sep).some(isRunNoise);
}

function hashReusing(fd: number, real: string): string {
  const now = Date.now();
  const stats = fstatSync(fd);
  const stamp = stampOf(stats);
  const hit = HASHED.get(real, stamp);
  if (hit) return hit;
  const hash = hashFd(fd);
  HASHED.set(real, stamp, isRacy(stats, now), hash);
  return hash;
}

function hashFd(fd: number): string {
  const hash = crypto().createHash("sha256");
  const buffer = Buffer.alloc(64 * 1024);
  for (let position = 0; ; ) {
    const read = readSync(fd, buffer, 0, buffer.length, position);
    if (read === 0) break;
    hash.update(buffer.subarray(0, read));
    position += read;
  }
  return hash.digest("hex");
}

export interface Page {
  size: number;
  offset: number;
  binary: boolean;
  /** The page's text (null for a binary file). */
  text: string | null;
  next_offset: number | null;
  /** The whole file's SHA-256; empty for a file over `DIGEST_BYTES_LIMIT`, which is never hashed. */
  sha256: string;
}

export const PAGE_BYTES = 64 * 1024;

/** One page of a file in the skill (paths judged by `openInside`), cut on a character boundary. */
export function readPage(realDir: string, path: string, offset: number, pageBytes = PAGE_BYTES): Page {
  checkServedPath(path);
  const opened = openInside(realDir, path);
  try {
    const { binary } = sniff(opened.fd, opened.size);
    // Hashing is bounded as the extension's digests are: a page of a file of many gigabytes (a
    // sparse one costs nothing to make) must not read all of it, on every page, in the server's
    // one thread. A hash kept by stamp spares paging through a large file the same cost again.
    const sha256 = opened.size <= DIGEST_BYTES_LIMIT ? hashReusing(opened.fd, opened.real) : "";
    if (binary) return { size: opened.size, offset: 0, binary, text: null, next_offset: null, sha256 };
    const start = Math.min(offset, opened.size);
    const length = Math.min(pageBytes, opened.size - start);
    const buffer = Buffer.alloc(length);
    const read = readSync(opened.fd, buffer, 0, length, start);
    const end = start + read < opened.size ? trimToBoundary(buffer.subarray(0, read)) : read;
    const text = buffer.subarray(0, end).toString("utf8");
    const next = start + end < opened.size ? start + end : null;
    return { size: opened.size, offset: start, binary, text, next_offset: next, sha256 };
  } finally {
    closeSync(opened.fd);
  }
}

/** Read the head of a regular file for a shebang, opening it through the same checks; with the real path checked. */
export function firstLine(realDir: string, path: string, within: string): { line: string; real: string } {
  const opened = openInside(realDir, path, within);
  try {
    const { head, binary } = sniff(opened.fd, opened.size);
    return { line: binary ? "" : (head.split("\n")[0] ?? ""), real: opened.real };
  } finally {
    closeSync(opened.fd);
  }
}
