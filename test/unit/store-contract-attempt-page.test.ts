import { describe, expect, it } from "vitest";
import type { SampleRecord } from "../../src/store/store.js";
import { contractStores, journaledWrite, storeForSuite } from "../helpers/contract-stores.js";
import { goalFields, newAttempt, newRun, newSample } from "../helpers/new-attempt.js";

const AT = "2026-06-01T00:00:00.000Z";

const byAttemptThenRepeat = (a: SampleRecord, b: SampleRecord) =>
  a.attemptId.localeCompare(b.attemptId) || a.repeatIndex - b.repeatIndex;

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
      const goal = await tx.goals.insertGoal(goalFields("make it fast"), "owner", AT);
      const run = await tx.goals.insertRun(newRun(goal, AT));
      for (let n = 0; n < 7; n++) {
        const attempt = await tx.goals.insertAttempt(
          newAttempt(run.id, `2026-06-01T00:00:0${n}.000Z`, { openedBy: n % 2 ? "A-1" : "owner" }),
        );
        if (n < 5)
          await tx.goals.recordDecision(
            attempt.id,
            (["keep", "revert", "review"] as const)[n % 3] ?? "keep",
            {},
            AT,
          );
        if (n === 1) await tx.goals.markReverted(attempt.id, AT);
        for (const repeatIndex of [0, 1])
          await tx.goals.insertSample(newSample(attempt.id, "speed", repeatIndex, n * 10 + repeatIndex, AT));
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

    // Whole attempts a page at a time, the kept ones (not reverted), and their samples in one call.
    const records = await store.read((tx) => tx.goals.attempts(runId));
    expect(await store.read((tx) => tx.goals.attempts(runId, { limit: 2, offset: 5 }))).toEqual(
      records.slice(5),
    );
    const kept = await store.read((tx) => tx.goals.keptAttempts(runId));
    expect(kept.map((a) => a.id)).toEqual([records[0]?.id, records[3]?.id]);
    const ids = records.map((a) => a.id);
    const one = await store.read(async (tx) =>
      (await Promise.all(ids.map((id) => tx.goals.samples(id)))).flat(),
    );
    expect(one).toHaveLength(14);
    const together = await store.read((tx) => tx.goals.samplesOfAttempts(ids));
    expect([...together].sort(byAttemptThenRepeat)).toEqual([...one].sort(byAttemptThenRepeat));
    for (const id of ids)
      expect(together.filter((s) => s.attemptId === id)).toEqual(one.filter((s) => s.attemptId === id));
    expect(await store.read((tx) => tx.goals.samplesOfAttempts([]))).toEqual([]);
  });
});
