import { type ChildProcess, spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decide } from "../../src/domains/goals/decide.js";
import { measure, type Take } from "../../src/domains/goals/evaluate.js";
import { EvaluatorDefinition } from "../../src/domains/goals/evaluators/definition.js";
import { freezeEntry } from "../../src/domains/goals/runs.js";
import type { SampleRecord } from "../../src/store/store.js";

/**
 * Decisions are measurements: the production sampling loop (interleaved base and attempt,
 * rounds until the rank test is settled) and the production decision, fed by real timings of
 * tiny sleeps while another process keeps a core busy. An unchanged tree must give one verdict
 * 20 times in a row; a real 20% slowdown must be caught at least 19 times in 20.
 */
const latency = {
  name: "latency",
  direction: "lower" as const,
  threshold: 1_000,
  manual: false,
  description: "",
};
const frozen = freezeEntry(
  {
    definition: EvaluatorDefinition.parse({
      name: "sleepy",
      proof: "latency",
      argv: ["unused"],
      read: "regex",
      pattern: "x",
      noisy: true,
    }),
    source: "test",
  },
  latency,
);
const BASE_MS = 8;
const shared = new Int32Array(new SharedArrayBuffer(4));

/** A synthetic timing command: sleep, and report how long it took. */
function timedSleep(ms: number): number {
  const started = performance.now();
  Atomics.wait(shared, 0, 0, ms);
  return performance.now() - started;
}

async function oneDecision(slowdown: number): Promise<{ verdict: string; pairs: number }> {
  const samples: SampleRecord[] = [];
  const take: Take = async (entry, side, index) => {
    const value = timedSleep(side === "base" ? BASE_MS : BASE_MS * slowdown);
    const sample: SampleRecord = {
      attemptId: "AT-1",
      evaluator: entry.name,
      proof: entry.proof,
      repeatIndex: index,
      exitCode: 0,
      value,
      error: null,
      durationMs: value,
      outputTail: "",
      outputHash: "",
      gitHead: null,
      at: "",
      side,
    };
    samples.push(sample);
    return sample;
  };
  await measure(frozen, take, () => samples);
  const decision = decide({
    attemptId: "AT-1",
    proofs: [latency],
    required: new Set(["latency"]),
    manifest: [frozen],
    samples,
    reports: [],
  });
  return { verdict: decision.verdict, pairs: samples.filter((s) => s.side === "base").length };
}

let busy: ChildProcess;
beforeAll(() => {
  busy = spawn(process.execPath, ["-e", "for(;;){}"], { stdio: "ignore" });
});
afterAll(() => {
  busy.kill("SIGKILL");
});

describe("decisions under load", () => {
  it("agrees 20 times in a row on an unchanged tree, and catches a 20% slowdown at least 19 times in 20", async () => {
    const unchanged: string[] = [];
    for (let i = 0; i < 20; i++) unchanged.push((await oneDecision(1)).verdict);
    expect(unchanged).toEqual(Array(20).fill("keep"));
    const slower: string[] = [];
    for (let i = 0; i < 20; i++) slower.push((await oneDecision(1.2)).verdict);
    expect(slower.filter((verdict) => verdict === "revert").length).toBeGreaterThanOrEqual(19);
  });

  it("measures a declared-noisy evaluator in interleaved pairs, at least ten of them", async () => {
    const { pairs } = await oneDecision(1);
    expect(pairs).toBeGreaterThanOrEqual(10);
  });
});
