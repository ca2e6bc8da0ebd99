/**
 * Whether a git index marks any file to be skipped, read from the index file itself rather than
 * from a `git ls-files -v`: before every evaluation, decision and acceptance cairn asks, and
 * nearly always nothing is marked, so the answer "nothing" saves starting a git each time.
 *
 * Only that answer is given here, and only when the whole file reads exactly as git writes it
 * (gitformat-index(5)). Anything else, and every index that marks a file, goes to git, which
 * stays the one authority on what is marked: git itself may read a mark differently from the
 * bytes (a sparse checkout clears skip-worktree on files present in the work tree), so the paths
 * are always git's. The reading is strict because a wrong "nothing" would let a marked file's
 * edit be measured and not kept.
 */
import { crypto } from "../../kernel/builtins.js";

/** What an index file says about marks: nothing marked, or ask git (marked, or not read here). */
export type IndexMarks = "none" | "ask-git";

const SIGNATURE = "DIRC";
/**
 * SHA-1's length: of the trailing checksum and of each entry's object id. A repository on SHA-256,
 * or an index written with `index.skipHash` (a checksum of zeros), fails the check and goes to git.
 */
const CHECKSUM_BYTES = 20;
/** ctime, mtime (8 bytes each), dev, ino, mode, uid, gid, size (4 each), object id, flags. */
const FIXED_ENTRY_BYTES = 40 + CHECKSUM_BYTES + 2;
const ASSUME_VALID = 0x8000;
const EXTENDED = 0x4000;
const NAME_LENGTH = 0x0fff;
const SKIP_WORKTREE = 0x4000;
const INTENT_TO_ADD = 0x2000;
/** The file types an entry may have: regular, symlink, gitlink. A folder's belongs to a sparse index. */
const ENTRY_TYPES = new Set([0o10, 0o12, 0o16]);

/** Read `content`, one whole index file (see `readIndex`). */
export function indexMarks(content: Buffer): IndexMarks {
  try {
    return readEntries(content) ? "none" : "ask-git";
  } catch (error) {
    if (error instanceof Unsure) return "ask-git";
    throw error;
  }
}

/** Thrown wherever the file is not exactly as git writes it. */
class Unsure extends Error {}

function need(condition: boolean): asserts condition {
  if (!condition) throw new Unsure();
}

/** True when every entry is read and none is marked; false at the first marked entry. */
function readEntries(content: Buffer): boolean {
  need(content.length >= 12 + CHECKSUM_BYTES);
  const end = content.length - CHECKSUM_BYTES;
  need(content.toString("latin1", 0, 4) === SIGNATURE);
  const version = content.readUInt32BE(4);
  need(version >= 2 && version <= 4);
  const checksum = crypto().createHash("sha1").update(content.subarray(0, end)).digest();
  need(checksum.equals(content.subarray(end)));

  const count = content.readUInt32BE(8);
  let at = 12;
  let previousNameLength = 0;
  for (let entry = 0; entry < count; entry++) {
    need(at + FIXED_ENTRY_BYTES <= end);
    need(ENTRY_TYPES.has(content.readUInt32BE(at + 24) >>> 12));
    const flags = content.readUInt16BE(at + 60);
    if (flags & ASSUME_VALID) return false;
    let nameAt = at + FIXED_ENTRY_BYTES;
    if (flags & EXTENDED) {
      need(version >= 3 && nameAt + 2 <= end);
      const extended = content.readUInt16BE(nameAt);
      // Any bit git does not know makes git refuse the index: so do we.
      need((extended & ~(SKIP_WORKTREE | INTENT_TO_ADD)) === 0);
      if (extended & SKIP_WORKTREE) return false;
      nameAt += 2;
    }
    const stated = flags & NAME_LENGTH;
    if (version === 4) {
      // The name is the previous one less `strip` bytes at its end, then this NUL-ended suffix.
      const { value: strip, next } = varint(content, nameAt, end);
      need(strip <= previousNameLength);
      const kept = previousNameLength - strip;
      const suffix = nulFrom(content, next, end);
      need(stated === NAME_LENGTH ? kept + suffix >= NAME_LENGTH : kept + suffix === stated);
      previousNameLength = kept + suffix;
      at = next + suffix + 1;
    } else {
      // The name, then 1 to 8 NULs padding the entry to a multiple of 8 bytes.
      const length = nulFrom(content, nameAt, end);
      need(stated === NAME_LENGTH ? length >= NAME_LENGTH : length === stated);
      const size = (nameAt - at + length + 8) & ~7;
      need(at + size <= end);
      for (let pad = nameAt + length; pad < at + size; pad++) need(content[pad] === 0);
      at += size;
    }
  }
  // Extensions: a four-byte signature and a length. One whose signature starts with a capital is
  // optional (a cache git may ignore); any other is required to read the index right (`link`, a
  // split index whose entries live in another file; `sdir`, a sparse index of folder entries).
  // One optional table matters too: `IEOT` names where blocks of entries start, and a git reading
  // them in threads reads from there, not in turn as here.
  while (at < end) {
    need(at + 8 <= end);
    const first = content[at] as number;
    need(first >= 0x41 && first <= 0x5a);
    need(content.toString("latin1", at, at + 4) !== "IEOT");
    at += 8 + content.readUInt32BE(at + 4);
  }
  need(at === end);
  return true;
}

/** The length of the NUL-ended string at `from`, which must end before `end`. */
function nulFrom(content: Buffer, from: number, end: number): number {
  const nul = content.indexOf(0, from);
  need(nul !== -1 && nul < end);
  return nul - from;
}

/** git's offset varint (varint.c): seven bits a byte, high bit set on all but the last, each
 * continuation adding one so that no value has two encodings. */
function varint(content: Buffer, from: number, end: number): { value: number; next: number } {
  let at = from;
  need(at < end);
  let byte = content[at++] as number;
  let value = byte & 0x7f;
  while (byte & 0x80) {
    need(at < end && value < 2 ** 32);
    byte = content[at++] as number;
    value = (value + 1) * 128 + (byte & 0x7f);
  }
  return { value, next: at };
}
