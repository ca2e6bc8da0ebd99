import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { OWNER, requireStillActive, resolveActor } from "../../src/domains/identity/actor.js";
import { addAgent } from "../../src/domains/identity/agents.js";
import { mintRunIdentityFor } from "../../src/domains/identity/run-identity.js";
import { WorkspaceConfig } from "../../src/domains/workspace/config.js";
import { RefusedError } from "../../src/kernel/outcome.js";
import { openStore } from "../../src/store/open.js";
import type { Store } from "../../src/store/store.js";
import { scratchDir } from "../helpers/workspace.js";

let scratch: { dir: string; cleanup: () => void };
let store: Store;
const now = () => new Date().toISOString();
const config = WorkspaceConfig.parse({ roles: { builder: { grant: "ro" } } });

beforeEach(() => {
  scratch = scratchDir();
  store = openStore(join(scratch.dir, "cairn.db"), { create: true });
});
afterEach(async () => {
  await store.close();
  scratch.cleanup();
});

describe("run identities for children that must act on the board", () => {
  it("mints a child of the named agent with its role and grant, and retires it at the end", async () => {
    const parent = await addAgent(store, config, OWNER, { name: "builder1", role: "builder" }, now());
    const caller = await resolveActor(store, parent.token);
    const run = await mintRunIdentityFor(store, "builder1", "ar-1", now());
    expect(run.token).not.toBe(parent.token);
    const child = await resolveActor(store, run.token);
    expect(child).toMatchObject({ role: "builder", grant: "ro", parentId: caller.id });
    expect(child.lineage?.map((m) => m.id)).toEqual([run.agent.id, caller.id]);
    await run.retire(now());
    await expect(resolveActor(store, run.token)).rejects.toBeInstanceOf(RefusedError);
    await expect(requireStillActive(store, child)).rejects.toBeInstanceOf(RefusedError);
  });

  it("stores only the token's hash, and its retirement is safe to repeat", async () => {
    await addAgent(store, config, OWNER, { name: "nightly", role: "builder" }, now());
    const { token, retire } = await mintRunIdentityFor(store, "nightly", "ar-2", now());
    await retire(now());
    await retire(now());
    await expect(resolveActor(store, token)).rejects.toBeInstanceOf(RefusedError);
    const dump = JSON.stringify(await store.read((tx) => tx.transfer.dump()));
    expect(dump).not.toContain(token);
  });

  it("a retired parent cannot mint one", async () => {
    const parent = await addAgent(store, config, OWNER, { name: "gone", role: "builder" }, now());
    const caller = await resolveActor(store, parent.token);
    await store.write(async (tx) => {
      await tx.agents.retire(caller.id, now());
      await tx.journal.append({
        at: now(),
        actor: "owner",
        action: "agent.retire",
        subject: caller.id,
        data: {},
      });
    });
    await expect(mintRunIdentityFor(store, "gone", "late", now())).rejects.toBeInstanceOf(RefusedError);
    await expect(mintRunIdentityFor(store, "nobody", "late", now())).rejects.toBeInstanceOf(RefusedError);
  });

  it("mints only for an agent in its maker's own line: itself or a descendant, unless the owner makes the run", async () => {
    const maker = await addAgent(store, config, OWNER, { name: "maker", role: "builder" }, now());
    const child = await addAgent(
      store,
      config,
      OWNER,
      { name: "kid", role: "builder", parent: "maker" },
      now(),
    );
    await addAgent(store, config, OWNER, { name: "other", role: "builder" }, now());
    const makerId = maker.agent.id;
    await expect(mintRunIdentityFor(store, "other", "ar-3", now(), undefined, makerId)).rejects.toThrow(
      /neither .* nor one of its descendants/,
    );
    expect((await mintRunIdentityFor(store, "maker", "ar-4", now(), undefined, makerId)).agent.parentId).toBe(
      makerId,
    );
    expect((await mintRunIdentityFor(store, "kid", "ar-5", now(), undefined, makerId)).agent.parentId).toBe(
      child.agent.id,
    );
    // A child may not have a run act as its parent.
    await expect(
      mintRunIdentityFor(store, "maker", "ar-6", now(), undefined, child.agent.id),
    ).rejects.toBeInstanceOf(RefusedError);
    expect((await mintRunIdentityFor(store, "other", "ar-7", now(), undefined, OWNER.id)).agent.name).toMatch(
      /^other-run-/,
    );
  });
});
