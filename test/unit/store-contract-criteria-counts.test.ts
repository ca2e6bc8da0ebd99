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

  it("counts all, checked and verified as reading every criterion would", async () => {
    const task = await write(async (tx) => tx.tasks.insert(newTask("counted", {}), AT));
    expect(await store.read((tx) => tx.tasks.criteriaCounts(task.id))).toEqual({
      total: 0,
      checked: 0,
      verified: 0,
    });
    const plain = {
      verify: null,
      shortcut: null,
      params: {},
      timeoutSeconds: null,
      setting: null,
      addedBy: "A-1",
    };
    const results: [boolean, Evidence | null][] = [
      [true, evidence(0)], // verified: cairn ran it, it exited 0
      [true, null], // claimed: ticked with nothing to run
      [false, evidence(1)], // failed: evidence, not checked
      [true, evidence(null)], // checked, but its command never exited on its own
      [false, null], // untouched
    ];
    await write(async (tx) => {
      for (const [n, [checked, proof]] of results.entries()) {
        await tx.tasks.addCriterion(task.id, { text: `criterion ${n}`, ...plain });
        if (checked || proof)
          await tx.tasks.setCriterion(task.id, n + 1, { checked, by: "owner", at: AT, evidence: proof });
      }
    });
    const all = await store.read((tx) => tx.tasks.criteria(task.id));
    const read = {
      total: all.length,
      checked: all.filter((c) => c.checked).length,
      verified: all.filter((c) => c.checked && c.evidence?.exit_code === 0).length,
    };
    expect(read).toEqual({ total: 5, checked: 3, verified: 1 });
    expect(all.map((c) => c.addedBy)).toEqual(["A-1", "A-1", "A-1", "A-1", "A-1"]);
    expect(await store.read((tx) => tx.tasks.criteriaCounts(task.id))).toEqual(read);
  });
});
