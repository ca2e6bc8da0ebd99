import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { listenersOf, subscribe, unsubscribe } from "../../src/faces/mcp/shared-watch.js";

const root = mkdtempSync(join(tmpdir(), "cairn-shared-watch-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Resolves on the listener's next call. */
function next(listeners: Map<string, () => void>, name: string): Promise<void> {
  return new Promise((resolve) => listeners.set(name, resolve));
}

describe("watches shared by every catalog watcher of a server", () => {
  it("watch a path once for many listeners, tell each of a change, and close with the last", async () => {
    const dir = join(root, "one");
    mkdirSync(dir);
    const waiting = new Map<string, () => void>();
    const a = () => waiting.get("a")?.();
    const b = () => waiting.get("b")?.();
    subscribe(dir, a);
    subscribe(dir, b);
    // One watch, both listeners on it.
    expect(listenersOf(dir)).toBe(2);
    const both = Promise.all([next(waiting, "a"), next(waiting, "b")]);
    writeFileSync(join(dir, "file"), "x");
    await both;
    unsubscribe(dir, a);
    expect(listenersOf(dir)).toBe(1);
    unsubscribe(dir, b);
    expect(listenersOf(dir)).toBeUndefined();
  });

  it("re-arming after a change watches a folder made again at the same path", async () => {
    const parent = join(root, "two");
    const dir = join(parent, "skill");
    mkdirSync(dir, { recursive: true });
    const waiting = new Map<string, () => void>();
    const a = () => waiting.get("a")?.();
    const b = () => waiting.get("b")?.();
    subscribe(parent, a);
    subscribe(dir, a);
    subscribe(dir, b);
    const seen = next(waiting, "a");
    rmSync(dir, { recursive: true });
    mkdirSync(dir);
    await seen;
    // What a watcher does once the change settles: arm again; the second finds it fresh.
    subscribe(dir, a);
    subscribe(dir, b);
    const inside = Promise.all([next(waiting, "a"), next(waiting, "b")]);
    writeFileSync(join(dir, "SKILL.md"), "x");
    await inside;
    for (const path of [parent, dir]) unsubscribe(path, a);
    unsubscribe(dir, b);
  });
});
