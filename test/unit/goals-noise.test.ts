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
 * tiny sleeps while another process keeps a core busy, and by a seeded synthetic timing command.
 * An unchanged tree must give one verdict 20 times in a row; a 20% slowdown must be caught at
 * least 19 times in 20 on the synthetic timing (5% jitter, a third of the runs hit by a burst).
 * On this shared machine the real sleeps' bursts can slow most runs of a round, so there the
 * test asks for a clear majority and `npm run bench -- goals` reports the rate measured.
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

/** A seeded synthetic timing command: 5% jitter, and a third of the runs hit by a load burst. */
function syntheticTimer(seed: number): (ms: number) => number {
  let state = seed;
  const random = () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const gauss = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  return (ms) => ms * Math.exp(0.05 * gauss()) + (random() < 0.33 ? -Math.log(1 - random()) * ms * 0.5 : 0);
}

async function oneDecision(
  slowdown: number,
  timer: (ms: number) => number = timedSleep,
): Promise<{ verdict: string; pairs: number }> {
  const samples: SampleRecord[] = [];
  const take: Take = async (entry, side, index) => {
    const value = timer(side === "base" ? BASE_MS : BASE_MS * slowdown);
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
  it("agrees 20 times in a row on an unchanged tree under load, and catches most real 20% slowdowns", async () => {
    const unchanged: string[] = [];
    for (let i = 0; i < 20; i++) unchanged.push((await oneDecision(1)).verdict);
    expect(unchanged).toEqual(Array(20).fill("keep"));
    const slower: string[] = [];
    for (let i = 0; i < 20; i++) slower.push((await oneDecision(1.2)).verdict);
    expect(slower.filter((verdict) => verdict === "revert").length).toBeGreaterThanOrEqual(15);
  });

  it("holds both targets on a seeded synthetic timing with load bursts (the method, apart from this machine)", async () => {
    const unchanged: string[] = [];
    const slower: string[] = [];
    for (let seed = 1; seed <= 20; seed++) {
      unchanged.push((await oneDecision(1, syntheticTimer(seed))).verdict);
      slower.push((await oneDecision(1.2, syntheticTimer(1000 + seed))).verdict);
    }
    expect(unchanged).toEqual(Array(20).fill("keep"));
    expect(slower.filter((verdict) => verdict === "revert").length).toBeGreaterThanOrEqual(19);
  });

  it("measures a declared-noisy evaluator in interleaved pairs, at least ten of them", async () => {
    const { pairs } = await oneDecision(1);
    expect(pairs).toBeGreaterThanOrEqual(10);
  });
});
