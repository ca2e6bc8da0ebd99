import { describe, expect, it } from "vitest";
import type { Evidence } from "../../src/store/tasks.js";
import { contractStores, journaledWrite, storeForSuite } from "../helpers/contract-stores.js";
import { newTask } from "../helpers/new-task.js";

const AT = "2026-06-01T00:00:00.000Z";

const evidence = (exitCode: number | null): Evidence => ({
  argv: ["true"],
  exit_code: exitCode,
  signal: null,
  timed_out: false,
  duration_ms: 1,
  output_bytes: 0,
  output_tail: "",
  output_sha256: "",
  git_head: null,
  error: null,
  at: AT,
});

/**
 * A board card counts its task's criteria without reading them: every one, those checked, and
 * those checked by a command that exited 0; both stores count alike what reading them all counted.
 */
describe.each(contractStores("criteria-counts"))("criteria counted in the store: $name", ({ create }) => {
  const store = storeForSuite(create);
  const write = journaledWrite(store, AT);

  it("counts all, checked, and verified as a finish counts it: by a command its task's author or the owner set", async () => {
    const task = await write(async (tx) => tx.tasks.insert(newTask("counted", {}), AT));
    expect(await store.read((tx) => tx.tasks.criteriaCounts(task.id))).toEqual({
      total: 0,
      checked: 0,
      verified: 0,
    });
    const task2 = await write(async (tx) =>
      tx.tasks.insert(newTask("by an agent", { createdBy: "A-2" }), AT),
    );
    const plain = { verify: null, shortcut: null, params: {}, timeoutSeconds: null, setting: null };
    // [checked, evidence, who added it]
    const results: [boolean, Evidence | null, string | null][] = [
      [true, evidence(0), "owner"], // verified: cairn ran it, it exited 0
      [true, null, "owner"], // claimed: ticked with nothing to run
      [false, evidence(1), "owner"], // failed: evidence, not checked
      [true, evidence(null), "owner"], // checked, but its command never exited on its own
      [false, null, "owner"], // untouched
      [true, evidence(0), "A-1"], // passed, but a check its holder added: not verified
      [true, evidence(0), null], // passed, added before authors were kept: verified, as it was
    ];
    await write(async (tx) => {
      for (const [n, [checked, proof, addedBy]] of results.entries()) {
        await tx.tasks.addCriterion(task.id, { text: `criterion ${n}`, ...plain, addedBy });
        if (checked || proof)
          await tx.tasks.setCriterion(task.id, n + 1, { checked, by: "owner", at: AT, evidence: proof });
      }
      // On a task an agent wrote, a check its author added is verified.
      await tx.tasks.addCriterion(task2.id, { text: "its author's", ...plain, addedBy: "A-2" });
      await tx.tasks.setCriterion(task2.id, 1, { checked: true, by: "A-2", at: AT, evidence: evidence(0) });
    });
    const all = await store.read((tx) => tx.tasks.criteria(task.id));
    expect(all.map((c) => c.addedBy)).toEqual(results.map(([, , addedBy]) => addedBy));
    expect(await store.read((tx) => tx.tasks.criteriaCounts(task.id))).toEqual({
      total: 7,
      checked: 5,
      verified: 2,
    });
    expect(await store.read((tx) => tx.tasks.criteriaCounts(task2.id))).toEqual({
      total: 1,
      checked: 1,
      verified: 1,
    });
  });
});
