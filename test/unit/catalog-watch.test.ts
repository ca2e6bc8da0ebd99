import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { watchCatalog } from "../../src/faces/mcp/catalog-watch.js";

const root = mkdtempSync(join(tmpdir(), "cairn-catalog-watch-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Resolves once `check` holds, polling; rejects after `ms`. */
async function until(check: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("a catalog watcher", () => {
  it("announces a change made while it was reading the catalog, not only the change that woke it", async () => {
    const dir = join(root, "agents");
    mkdirSync(dir);
    const reads: string[] = [];
    /** Once set, runs just after the next read: a change landing between the read and re-arming. */
    let afterNextRead: (() => void) | undefined;
    const fingerprint = async () => {
      const listing = readdirSync(dir).sort().join(",");
      reads.push(listing);
      const hook = afterNextRead;
      afterNextRead = undefined;
      hook?.();
      return listing;
    };
    let notified = 0;
    const watcher = watchCatalog(
      async () => [dir],
      fingerprint,
      () => notified++,
    );
    try {
      await until(() => reads.length === 1, 5_000);
      // Let the first arming finish before the change that wakes the watcher.
      await new Promise((resolve) => setTimeout(resolve, 50));
      afterNextRead = () => writeFileSync(join(dir, "second.toml"), "");
      writeFileSync(join(dir, "first.toml"), "");
      await until(() => notified >= 1, 5_000);
      expect(reads.at(-1)).toBe("first.toml");
      // The second file was written after that read: it must be announced too.
      await until(() => notified >= 2, 5_000);
      expect(reads.at(-1)).toBe("first.toml,second.toml");
    } finally {
      watcher.close();
    }
  });
});
