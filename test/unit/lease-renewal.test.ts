import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { actorOf, OWNER } from "../../src/domains/identity/actor.js";
import { addAgent, retireAgent } from "../../src/domains/identity/agents.js";
import { addTask } from "../../src/domains/tasks/board.js";
import { CALLER_LOOK_MS, claimTask, keepingLeases } from "../../src/domains/tasks/claims.js";
import { WorkspaceConfig } from "../../src/domains/workspace/config.js";
import { RefusedError } from "../../src/kernel/outcome.js";
import { stopCauseOf } from "../../src/kernel/until-stopped.js";
import { openStore } from "../../src/store/open.js";
import type { Store } from "../../src/store/store.js";
import { scratchDir } from "../helpers/workspace.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A store whose writes wait `writeMs` before they start, and which remembers every read or write
 * that reached it after `close` was called: a caller (the CLI) closes the store as soon as its call returns.
 */
function slowWrites(store: Store, writeMs: number) {
  let closedAt = 0;
  const afterClose: string[] = [];
  const slow: Store = {
    schemaVersion: store.schemaVersion,
    shared: store.shared,
    changes: store.changes,
    read: (work) => {
      if (closedAt) afterClose.push("read");
      return store.read(work);
    },
    write: async (work) => {
      await sleep(writeMs);
      if (closedAt) afterClose.push("write");
      return store.write(work);
    },
    close: () => {
      closedAt = Date.now();
      return store.close();
    },
  };
  return { slow, afterClose };
}

/**
 * A scratch store with a lease of 3 s (renewed, and the caller looked at, at most once a second
 * while a call runs) and an agent bob, for `work`; closed and removed after.
 */
async function withBob(
  work: (setup: {
    scratch: { dir: string };
    store: Store;
    config: WorkspaceConfig;
    now: () => string;
    bob: ReturnType<typeof actorOf>;
  }) => Promise<void>,
): Promise<void> {
  const scratch = scratchDir();
  const store = openStore(join(scratch.dir, "cairn.db"), { create: true });
  try {
    const config = WorkspaceConfig.parse({ claims: { lease_minutes: 0.05 } });
    const now = () => new Date().toISOString();
    const bob = actorOf(
      (await addAgent(store, config, OWNER, { name: "bob", role: "builder" }, now())).agent,
    );
    await work({ scratch, store, config, now, bob });
  } finally {
    await store.close();
    scratch.cleanup();
  }
}

describe("leases kept during a long call", () => {
  it("the call ends only after a renewal it started, so nothing uses the store once its caller closes it", async () => {
    await withBob(async ({ scratch, store, config, now, bob }) => {
      const task = await addTask(store, bob, { title: "held" }, now(), {});
      await claimTask(store, config, bob, task.id, now());
      const { slow, afterClose } = slowWrites(store, 400);
      // The lease is older than the renewal step by the time the first renewal starts (1 s in);
      // the call's own work ends 100 ms later, while that renewal's write is still waiting.
      await keepingLeases(slow, config, bob, now, () => sleep(1_100));
      await slow.close();
      await sleep(800);
      expect(afterClose).toEqual([]);
      const reopened = openStore(join(scratch.dir, "cairn.db"));
      try {
        const events = await reopened.read((tx) => tx.journal.list({ limit: 50 }));
        expect(events.map((event) => event.action)).toContain("task.lease_renew");
      } finally {
        await reopened.close();
      }
    });
  });

  it("a caller retired while its call runs is looked at within seconds, though its renewals are a minute apart", async () => {
    await withBob(async ({ store, now, bob }) => {
      // The default lease: 30 minutes, renewed every minute.
      const config = WorkspaceConfig.parse({});
      const started = Date.now();
      const call = keepingLeases(store, config, bob, now, async (signal) => {
        await retireAgent(store, OWNER, "bob", now());
        await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
        throw new Error("cancelled");
      });
      await expect(call).rejects.toBeInstanceOf(RefusedError);
      expect(Date.now() - started).toBeLessThan(CALLER_LOOK_MS + 2_000);
    });
  });

  it("a caller retired while its call runs has the call cancelled at the next renewal, and refused", async () => {
    await withBob(async ({ store, config, now, bob }) => {
      let why: string | undefined;
      // A call that runs until it is cancelled, as a long shortcut or agent run does.
      const call = keepingLeases(store, config, bob, now, async (signal) => {
        await retireAgent(store, OWNER, "bob", now());
        await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
        why = stopCauseOf(signal);
        throw new Error("cancelled");
      });
      const refused = await call.then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(refused).toBeInstanceOf(RefusedError);
      expect((refused as RefusedError).refusal).toMatchObject({ policy: "identity" });
      expect(why).toMatch(/^its caller may no longer act: agent bob \(A-1\) was retired at /);
    });
  });
});
