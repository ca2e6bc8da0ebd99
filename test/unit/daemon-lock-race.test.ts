import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Daemon } from "../../src/domains/agents/daemon-loop.js";
import { projectWorkspace } from "../../src/domains/workspace/discover.js";
import { openStore } from "../../src/store/open.js";
import type { Store } from "../../src/store/store.js";
import { scratchDir } from "../helpers/workspace.js";

/** Runs once, in the middle of the first write of a daemon lock's content (see below). */
let meanwhile: (() => void) | undefined;

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
  return { ...real, default: { ...real, writeSync }, writeSync };
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
});
