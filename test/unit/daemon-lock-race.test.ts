import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Daemon } from "../../src/domains/agents/daemon-loop.js";
import { projectWorkspace } from "../../src/domains/workspace/discover.js";
import { openStore } from "../../src/store/open.js";
import type { Store } from "../../src/store/store.js";
import { scratchDir } from "../helpers/workspace.js";

/** Runs once, in the middle of the first write of a daemon lock's content (see below). */
let meanwhile: (() => void) | undefined;
/** Runs once, as the first daemon to find the lock stale is about to clear it. */
let meanwhileStale: (() => void) | undefined;

vi.mock("node:fs", async (original) => {
  const real = await original<typeof import("node:fs")>();
  const writeSync = ((fd: number, data: unknown, ...rest: never[]) => {
    if (typeof data === "string" && /^\d+ \S*\n$/.test(data) && meanwhile) {
      const other = meanwhile;
      meanwhile = undefined;
      other();
    }
    return (real.writeSync as (...args: unknown[]) => number)(fd, data, ...rest);
  }) as typeof real.writeSync;
  // Moving or removing a stale lock: the moment another daemon, which found it stale too, may act.
  const atLock = <F extends (path: never, ...rest: never[]) => unknown>(call: F): F =>
    ((path: string, ...rest: never[]) => {
      if (String(path).endsWith("daemon.pid") && meanwhileStale) {
        const other = meanwhileStale;
        meanwhileStale = undefined;
        other();
      }
      return call(path as never, ...rest);
    }) as unknown as F;
  const unlinkSync = atLock(real.unlinkSync);
  const renameSync = atLock(real.renameSync);
  const replaced = { writeSync, unlinkSync, renameSync };
  return { ...real, default: { ...real, ...replaced }, ...replaced };
});

let scratch: { dir: string; cleanup: () => void };
let store: Store;

beforeEach(() => {
  scratch = scratchDir();
  mkdirSync(join(scratch.dir, ".cairn"));
  store = openStore(join(scratch.dir, ".cairn", "cairn.db"), { create: true });
});
afterEach(async () => {
  await store.close();
  scratch.cleanup();
});

const daemon = () =>
  new Daemon({
    store,
    workspace: projectWorkspace(scratch.dir),
    env: { ...process.env, CAIRN_HOME: join(scratch.dir, "home"), DOTAGENT_HOME: join(scratch.dir, "no") },
    actorId: "owner",
    log: () => {},
  });

describe("the daemon lock", () => {
  it("is held by one of two daemons starting at the same moment, never both", async () => {
    let second: Promise<unknown> | undefined;
    // The second daemon starts just as the first writes its pid into the lock: a lock file that
    // already exists then, empty, named no live holder and was taken over.
    meanwhile = () => {
      second = daemon().once(false);
    };
    const first = daemon().once(false);
    const outcomes = await Promise.allSettled([first, second]);
    expect(second).toBeDefined();
    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(["fulfilled", "rejected"]);
    const refused = outcomes.find((outcome) => outcome.status === "rejected") as PromiseRejectedResult;
    expect(String(refused.reason)).toMatch(/a daemon already runs for this workspace/);
  });

  it("is held by one of two daemons taking over the same stale lock, never both", async () => {
    // A lock left by a process long gone (pid 2^22 + 1 is past Linux's largest).
    writeFileSync(join(scratch.dir, ".cairn", "daemon.pid"), "4194305 boot:1\n");
    let second: Promise<unknown> | undefined;
    meanwhileStale = () => {
      second = daemon().once(false);
    };
    const first = daemon().once(false);
    const outcomes = await Promise.allSettled([first, second]);
    expect(second).toBeDefined();
    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(["fulfilled", "rejected"]);
  });
});
