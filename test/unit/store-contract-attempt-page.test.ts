import { describe, expect, it } from "vitest";
import { contractStores, journaledWrite, storeForSuite } from "../helpers/contract-stores.js";

const AT = "2026-06-01T00:00:00.000Z";

/**
 * A run's ledger is read a page at a time, each attempt summarised (an agent's loop leaves
 * thousands a run): both stores page it first opened first, and a page says of each attempt what
 * reading every attempt whole says.
 */
describe.each(contractStores("attempt-page"))("a run's ledger paged in the store: $name", ({ create }) => {
  const store = storeForSuite(create);
  const write = journaledWrite(store, AT);

  it("pages in ledger order with each attempt's verdict and reversal, as the whole read has them", async () => {
    const runId = await write(async (tx) => {
      const goal = await tx.goals.insertGoal(
        { goal: "make it fast", outcome: null, constraints: [], nonGoals: [], proofs: [] },
        "owner",
        AT,
      );
      const run = await tx.goals.insertRun({
        goalId: goal.id,
        contract: goal,
        milestones: [],
        manifest: [],
        manifestHash: "h",
        createdBy: "owner",
        createdAt: AT,
      });
      for (let n = 0; n < 7; n++) {
        const attempt = await tx.goals.insertAttempt({
          runId: run.id,
          milestoneId: null,
          baseHead: null,
          baseDirty: false,
          baseChanges: [],
          baseHashes: {},
          checkout: null,
          checkoutHost: null,
          inputsApprovedBy: null,
          openedBy: n % 2 ? "A-1" : "owner",
          openedAt: `2026-06-01T00:00:0${n}.000Z`,
        });
        if (n < 5)
          await tx.goals.recordDecision(
            attempt.id,
            (["keep", "revert", "review"] as const)[n % 3] ?? "keep",
            {},
            AT,
          );
        if (n === 1) await tx.goals.markReverted(attempt.id, AT);
      }
      return run.id;
    });
    const whole = (await store.read((tx) => tx.goals.attempts(runId))).map((a) => ({
      id: a.id,
      milestoneId: a.milestoneId,
      openedBy: a.openedBy,
      openedAt: a.openedAt,
      verdict: a.verdict,
      revertedAt: a.revertedAt,
    }));
    expect(whole.map((a) => a.verdict)).toEqual(["keep", "revert", "review", "keep", "revert", null, null]);
    const page = (limit: number, offset: number) =>
      store.read((tx) => tx.goals.attemptPage(runId, { limit, offset }));
    expect(await page(100, 0)).toEqual(whole);
    expect(await page(3, 0)).toEqual(whole.slice(0, 3));
    expect(await page(3, 3)).toEqual(whole.slice(3, 6));
    expect(await page(3, 6)).toEqual(whole.slice(6));
    expect(await page(3, 7)).toEqual([]);
  });
});
