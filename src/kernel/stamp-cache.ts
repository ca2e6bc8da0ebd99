import type { Stats } from "node:fs";

/**
 * What a long-running server parsed or hashed earlier, keyed by a file's identity and a stamp
 * of what the file system says about it (inode, size, modification and change times). A file
 * rewritten in place changes its change time, which no program can set back, and one replaced
 * by a rename changes its inode, so a stamp that still matches means the same bytes, with one
 * exception: a write landing within the same tick of the file system's clock as the read that
 * filled the entry (ext4 and tmpfs tick every few milliseconds, some file systems once a second,
 * FAT every two). An entry is therefore only kept once its file's change time is `RACY_MS` in
 * the past at the moment it was read; a file changed more recently than that is simply read
 * again on every build until it settles (git's "racy" rule, the same trade).
 */

export const RACY_MS = 2_000;

export type Stamp = string;

export function stampOf(stats: Pick<Stats, "ino" | "dev" | "size" | "mtimeMs" | "ctimeMs">): Stamp {
  return `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}`;
}

/** Recently changed enough that a further write may leave the same stamp. */
export function isRacy(stats: Pick<Stats, "mtimeMs" | "ctimeMs">, now: number): boolean {
  return now - Math.max(stats.mtimeMs, stats.ctimeMs) < RACY_MS;
}

export class StampCache<T> {
  private readonly entries = new Map<string, { stamp: Stamp; value: T }>();
  /** Bumped by every change: what a disk copy (stamp-store.ts) saves against. */
  changes = 0;

  constructor(readonly maxEntries = 20_000) {}

  /** The value stored for `key` at exactly this stamp, else undefined. */
  get(key: string, stamp: Stamp): T | undefined {
    const hit = this.entries.get(key);
    return hit && hit.stamp === stamp ? hit.value : undefined;
  }

  /** An entry is held for `key`, at whatever stamp. */
  has(key: string): boolean {
    return this.entries.has(key);
  }

  /**
   * Keep `value` for `key` at `stamp` (taken before the file was read), unless `racy` says the
   * file changed too recently to trust the stamp. An older entry for the key is dropped either way.
   */
  set(key: string, stamp: Stamp, racy: boolean, value: T): void {
    if (this.entries.delete(key)) this.changes++;
    if (racy) return;
    this.changes++;
    // A crude bound: a server that met more files than this starts over rather than grow.
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(key, { stamp, value });
  }

  get size(): number {
    return this.entries.size;
  }

  /** Every entry, for a disk copy. */
  dump(): [key: string, stamp: Stamp, value: T][] {
    return [...this.entries].map(([key, { stamp, value }]) => [key, stamp, value]);
  }

  /** Entries from a disk copy, for keys this cache does not hold (what it holds is as fresh). */
  absorb(entries: readonly [string, Stamp, T][]): void {
    for (const [key, stamp, value] of entries) {
      if (this.entries.size >= this.maxEntries) return;
      if (!this.entries.has(key)) this.entries.set(key, { stamp, value });
    }
  }
}
