import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createGoal, updateGoal } from "../../src/domains/goals/contract.js";
import { planMilestones } from "../../src/domains/goals/milestones.js";
import { nextMilestone } from "../../src/domains/goals/next.js";
import { milestoneGate, recordingLink } from "../../src/domains/goals/task-link.js";
import { openSqliteStore } from "../../src/store/sqlite/sqlite-store.js";
import type { Store } from "../../src/store/store.js";
import { newAttempt } from "../helpers/new-attempt.js";

let dir: string;
let store: Store;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "cairn-link-"));
  store = openSqliteStore(join(dir, "cairn.db"), { create: true });
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const AT = "2026-01-01T00:00:00.000Z";

describe("run baselines", () => {
  it("keep only the best kept measurement per evaluator", async () => {
    const { goal } = await createGoal(store, "make it fast", "owner", AT);
    const raise = (mean: number) =>
      store.write(async (tx) => {
        const run =
          (await tx.goals.runs(goal.id))[0] ??
          (await tx.goals.insertRun({
            goalId: goal.id,
            contract: goal,
            milestones: [],
            manifest: [],
            manifestHash: "h",
            createdBy: "owner",
            createdAt: AT,
          }));
        const attempt = await tx.goals.insertAttempt(newAttempt(run.id, AT));
        await tx.goals.raiseBaseline({
          runId: run.id,
          evaluator: "bench",
          attemptId: attempt.id,
          mean,
          noise: 1,
          direction: "lower",
        });
        await tx.journal.append({
          at: AT,
          actor: "owner",
          action: "test.baseline",
          subject: attempt.id,
          data: {},
        });
        return run.id;
      });
    await raise(60);
    await raise(40);
    const runId = await raise(50);
    const baselines = await store.read((tx) => tx.goals.baselines(runId));
    expect(baselines).toEqual([
      { evaluator: "bench", attemptId: "AT-2", mean: 40, noise: 1, direction: "lower" },
    ]);
  });
});

describe("the seam between milestones and the task board", () => {
  it("creates one task per new milestone, links it, and keeps the link across a re-plan", async () => {
    const { goal } = await createGoal(store, "make it tested and documented", "owner", AT);
    const link = recordingLink();
    const planned = await planMilestones(store, goal.id, undefined, "owner", AT, { link });
    expect(planned.milestones.map((m) => m.taskId)).toEqual(["T-1", "T-2"]);
    expect(link.dependencies).toEqual(
      new Map([
        ["T-1", []],
        ["T-2", ["T-1"]],
      ]),
    );
    expect(link.requests[0]?.criteria).toEqual(["proof tests: ≥ 1 in a kept attempt"]);
    expect(link.requests[0]?.title).toBe(`${goal.id}/core: Make it work: make it tested and documented`);
    expect(link.requests[0]?.body).toContain(`--milestone ${planned.milestones[0]?.id}`);
    const found = await store.read((tx) => tx.goals.milestoneByTask("T-2"));
    expect(found?.key).toBe("review");

    const replanned = await planMilestones(
      store,
      goal.id,
      [
        { key: "core", title: "Core, renamed", proofs: ["tests"] },
        { key: "review", title: "Review", proofs: ["review"], depends_on: ["core"] },
      ],
      "owner",
      AT,
      { link },
    );
    expect(replanned.milestones.map((m) => m.taskId)).toEqual(["T-1", "T-2"]);
    await expect(
      updateGoal(store, goal.id, { remove_proofs: ["review"] }, "owner", AT, true),
    ).rejects.toThrow(/milestone review \(M-2\) owns review/);
    expect(link.requests.at(-2)?.title).toContain("Core, renamed");
  });

  it("gates finishing a milestone's task on a kept attempt and offers the next ready milestone", async () => {
    const { goal } = await createGoal(store, "make it tested", "owner", AT);
    await updateGoal(store, goal.id, { outcome: "tests pass" }, "owner", AT, true);
    const { milestones } = await planMilestones(store, goal.id, undefined, "owner", AT, {
      link: recordingLink(),
    });
    const core = milestones[0];
    if (!core) throw new Error("no milestone");
    const closed = await milestoneGate(store, core.id);
    expect(closed).toMatchObject({ pass: false, refusal: { policy: "proof-gate" } });
    expect((await nextMilestone(store, goal.id)).milestone?.id).toBe(core.id);

    const attemptId = await store.write(async (tx) => {
      const run = await tx.goals.insertRun({
        goalId: goal.id,
        contract: goal,
        milestones,
        manifest: [],
        manifestHash: "h",
        createdBy: "owner",
        createdAt: AT,
      });
      const attempt = await tx.goals.insertAttempt(newAttempt(run.id, AT, { milestoneId: core.id }));
      await tx.goals.recordDecision(attempt.id, "keep", { verdict: "keep", evaluators: [] }, AT);
      await tx.journal.append({ at: AT, actor: "owner", action: "test.keep", subject: attempt.id, data: {} });
      return attempt.id;
    });
    expect(await milestoneGate(store, core.id)).toEqual({ pass: true, attemptId });
    const next = await nextMilestone(store, goal.id);
    expect(next.milestone).toBeNull();
    expect(next.note).toMatch(/every milestone/);
  });
});
