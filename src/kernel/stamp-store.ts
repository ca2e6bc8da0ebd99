import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { replaceFileSync } from "./leftovers.js";
import { readRegularFile } from "./regular-file.js";
import { type Stamp, StampCache } from "./stamp-cache.js";
import { CAIRN_VERSION } from "./version.js";

/**
 * A stamp cache with a copy on disk, so the first catalog build of a new process (a `cairn mcp`
 * starting, a CLI call) re-reads only files that changed since any earlier process parsed them.
 * An entry on disk is trusted exactly as one in memory: only at the very stamp it was filled at,
 * and only for a file that had settled (stamp-cache.ts). The file lives in the machine's
 * CAIRN_HOME, which only the person at this machine writes; a repository cannot bring one along.
 * A copy from another cairn version or format is ignored, an unreadable one (a FIFO in its place
 * too: it is not waited on) is simply rebuilt, and concurrent writers each replace it whole (by
 * rename): the worst case is a cache miss.
 */

interface OnDisk {
  format: string;
  entries: [string, Stamp, unknown][];
}

/** Saving waits this long after a build, off its path; a process leaving writes what is pending. */
const SAVE_AFTER_MS = 500;

export class StampStore<T> {
  private readonly caches = new Map<string, { cache: StampCache<T>; saved: number }>();
  private readonly pending = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private hooked = false;

  /**
   * @param format names what the values mean; change it whenever the code that fills them
   *   changes what it produces, so older copies are ignored.
   * @param valid what a value read back from disk must look like to be used.
   */
  constructor(
    private readonly format: string,
    private readonly valid: (value: unknown) => value is T,
  ) {}

  private get stamp(): string {
    return `${CAIRN_VERSION}/${this.format}`;
  }

  /** The cache backed by `file` (loaded on first use), or a memory-only one without a file. */
  cache(file: string | undefined): StampCache<T> {
    const key = file ?? "";
    let held = this.caches.get(key);
    if (!held) {
      const cache = new StampCache<T>();
      if (file) cache.absorb(this.read(file));
      held = { cache, saved: cache.changes };
      this.caches.set(key, held);
    }
    return held.cache;
  }

  /** Write the cache behind `file` soon, if it changed since it was loaded or last saved. */
  save(file: string | undefined): void {
    if (!file) return;
    const held = this.caches.get(file);
    if (!held || held.saved === held.cache.changes) return;
    this.pending.add(file);
    if (!this.hooked) {
      this.hooked = true;
      process.once("exit", () => this.flush());
    }
    if (!this.timer) {
      this.timer = setTimeout(() => this.flush(), SAVE_AFTER_MS);
      this.timer.unref();
    }
  }

  /** Write every pending cache now. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    for (const file of this.pending) this.write(file);
    this.pending.clear();
  }

  private write(file: string): void {
    const held = this.caches.get(file);
    if (!held || held.saved === held.cache.changes) return;
    held.saved = held.cache.changes;
    // What other processes saved meanwhile is kept, behind this process's own entries.
    const merged = new StampCache<T>(held.cache.maxEntries);
    merged.absorb(held.cache.dump());
    merged.absorb(this.read(file));
    const body: OnDisk = { format: this.stamp, entries: merged.dump() };
    try {
      mkdirSync(dirname(file), { recursive: true });
      replaceFileSync(file, JSON.stringify(body), 0o600);
    } catch {
      // A read-only or missing home: the cache stays in memory only.
    }
  }

  private read(file: string): [string, Stamp, T][] {
    let parsed: OnDisk;
    try {
      parsed = JSON.parse(readRegularFile(file)) as OnDisk;
    } catch {
      return [];
    }
    if (parsed?.format !== this.stamp || !Array.isArray(parsed.entries)) return [];
    return parsed.entries.filter(
      (entry): entry is [string, Stamp, T] =>
        Array.isArray(entry) &&
        typeof entry[0] === "string" &&
        typeof entry[1] === "string" &&
        this.valid(entry[2]),
    );
  }
}
