import { describe, expect, it } from "vitest";
import { canPlan, requirePlanning } from "../../src/domains/goals/authority.js";
import { openQuestions } from "../../src/domains/goals/contract.js";
import { decide } from "../../src/domains/goals/decide.js";
import { draftContract } from "../../src/domains/goals/draft.js";
import { parsePack } from "../../src/domains/goals/evaluators/catalog.js";
import { definitionHash, EvaluatorDefinition } from "../../src/domains/goals/evaluators/definition.js";
import { findCycle } from "../../src/domains/goals/milestones.js";
import { readValue } from "../../src/domains/goals/runner.js";
import { MAX_PAIRS } from "../../src/domains/goals/stats.js";
import { actorOf } from "../../src/domains/identity/actor.js";
import { WorkspaceConfig } from "../../src/domains/workspace/config.js";
import type { AgentRecord, FrozenEvaluatorRecord, ProofSpec, SampleRecord } from "../../src/store/store.js";

const proof = (name: string, extra: Partial<ProofSpec> = {}): ProofSpec => ({
  name,
  direction: "higher",
  threshold: 1,
  manual: false,
  description: "",
  ...extra,
});

const frozen = (
  name: string,
  proofName: string,
  extra: Record<string, unknown> = {},
): FrozenEvaluatorRecord => ({
  name,
  proof: proofName,
  source: "test",
  hash: `h-${name}`,
  definition: EvaluatorDefinition.parse({
    name,
    proof: proofName,
    argv: ["x"],
    direction: "higher",
    threshold: 1,
    ...extra,
  }) as unknown as Record<string, unknown>,
});

const sample = (evaluator: string, value: number | null, error: string | null = null): SampleRecord => ({
  attemptId: "AT-9",
  evaluator,
  proof: "p",
  repeatIndex: 0,
  exitCode: 0,
  value,
  error,
  durationMs: 1,
  outputTail: "",
  outputHash: "",
  gitHead: null,
  at: "",
  side: "attempt",
});
const baseSample = (evaluator: string, value: number): SampleRecord => ({
  ...sample(evaluator, value),
  side: "base",
});

/** An evaluator that reads its number from the output by `pattern`. */
const regexEvaluator = (name: string, pattern: string) =>
  EvaluatorDefinition.parse({ name, proof: "p", argv: ["a"], read: "regex", pattern });

describe("drafting a contract", () => {
  it("maps keywords to proofs and leaves unknowable thresholds open", () => {
    const draft = draftContract("Make the API secure, lint-clean and faster; keep coverage up");
    expect(draft.fields.proofs.map((p) => p.name)).toEqual([
      "tests",
      "lint",
      "coverage",
      "latency",
      "security",
    ]);
    expect(openQuestions(draft.fields).blocking).toEqual([
      "outcome: what is observably true when the goal is met",
      "proofs.coverage.threshold (direction: higher)",
      "proofs.latency.threshold (direction: lower)",
    ]);
  });
});

describe("milestone DAG", () => {
  it("finds a cycle and its path, and accepts a DAG", () => {
    const m = (key: string, dependsOn: string[]) => ({
      key,
      title: key,
      description: "",
      proofs: [],
      dependsOn,
    });
    expect(findCycle([m("a", []), m("b", ["a"]), m("c", ["a", "b"])])).toBeUndefined();
    expect(findCycle([m("a", ["b"]), m("b", ["a"])])).toEqual(["a", "b", "a"]);
    expect(findCycle([m("a", ["a"])])).toEqual(["a", "a"]);
  });
});

describe("evaluator definitions", () => {
  it("hashes content, not formatting or key order", () => {
    const [a] = parsePack('[[evaluator]]\nname = "x"\nproof = "p"\nargv = ["a", "b"]\n', "a.toml");
    const [b] = parsePack('[[evaluator]]\nargv = [ "a","b" ]\nproof = "p"\nname = "x"\n', "b.toml");
    expect(definitionHash(a as EvaluatorDefinition)).toBe(definitionHash(b as EvaluatorDefinition));
    const [c] = parsePack('[[evaluator]]\nname = "x"\nproof = "p"\nargv = ["a", "c"]\n', "c.toml");
    expect(definitionHash(c as EvaluatorDefinition)).not.toBe(definitionHash(a as EvaluatorDefinition));
  });

  it("rejects a regex evaluator without a usable pattern, naming the file and field", () => {
    expect(() =>
      parsePack('[[evaluator]]\nname = "x"\nproof = "p"\nargv = ["a"]\nread = "regex"\n', "f.toml"),
    ).toThrow(/f\.toml: evaluator\.0\.pattern: read = regex needs a pattern/);
    expect(() =>
      parsePack(
        '[[evaluator]]\nname = "x"\nproof = "p"\nargv = ["a"]\nread = "regex"\npattern = "("\n',
        "g.toml",
      ),
    ).toThrow(/g\.toml: .*not a valid regex/);
  });

  it("reads the last regex match and a JSON path", async () => {
    const regex = regexEvaluator("r", "t=([0-9.]+)");
    expect(await readValue(regex, { exitCode: 0, stdout: "", combined: "t=1\nt=2.5\n" })).toEqual({
      value: 2.5,
      error: null,
    });
    const json = EvaluatorDefinition.parse({
      name: "j",
      proof: "p",
      argv: ["a"],
      read: "json",
      json_path: "$.a[1].b",
    });
    expect(await readValue(json, { exitCode: 0, stdout: '{"a":[{},{"b":7}]}', combined: "" })).toEqual({
      value: 7,
      error: null,
    });
  });

  it("reads a regex under match = only when every match reads one number, and none when two differ", async () => {
    const only = EvaluatorDefinition.parse({
      name: "r",
      proof: "p",
      argv: ["a"],
      read: "regex",
      pattern: "time: ([0-9.]+) ms",
      match: "only",
    });
    const read = (combined: string) => readValue(only, { exitCode: 0, stdout: "", combined });
    // The harness printing its figure twice, in two spellings, is one reading.
    expect(await read("time: 12.5 ms\nsummary\ntime: 12.50 ms\n")).toEqual({ value: 12.5, error: null });
    // The code under test printing a figure of its own at exit is a second one: no number.
    const forged = await read("time: 12.5 ms\ntime: 1 ms\n");
    expect(forged.value).toBeNull();
    expect(forged.error).toContain("2 different numbers");
    expect(forged.error).toContain('match = "only"');
    // A match that is no number at all differs from one that is.
    expect((await read("time: 12.5 ms\ntime: . ms\n")).value).toBeNull();
    // Past the distinct spellings a search reports, the output holds several.
    const spellings = Array.from({ length: 18 }, (_, zeros) => `time: 3.${"0".repeat(zeros + 1)} ms`);
    expect((await read(spellings.join("\n"))).error).toContain("more than 16 different matches");
    expect(await read(spellings.slice(0, 16).join("\n"))).toEqual({ value: 3, error: null });
    // The default reads the last match, as before.
    const last = EvaluatorDefinition.parse({ ...only, match: undefined });
    expect(
      await readValue(last, { exitCode: 0, stdout: "", combined: "time: 12.5 ms\ntime: 1 ms\n" }),
    ).toEqual({
      value: 1,
      error: null,
    });
  });

  it("keeps match out of a definition that does not name it, so hashes frozen before it stay the same", () => {
    const fields = { name: "r", proof: "p", argv: ["a"], read: "regex", pattern: "t=([0-9]+)" };
    const parsed = EvaluatorDefinition.parse(fields);
    expect("match" in parsed).toBe(false);
    expect(definitionHash(EvaluatorDefinition.parse({ ...fields, match: "last" }))).not.toBe(
      definitionHash(parsed),
    );
    expect(() =>
      EvaluatorDefinition.parse({ ...fields, read: "json", json_path: "a", match: "only" }),
    ).toThrow(/match applies to read = regex only/);
  });

  it("reads no number from an empty, blank or non-decimal match, nor from a JSON string like that", async () => {
    // Number("") is 0: a benchmark printing `p95:  ms` (or {"p95": ""}) read as a perfect latency.
    const loose = regexEvaluator("r", "p95:([^m]*)ms");
    for (const printed of ["p95:ms", "p95:   ms", "p95:0x1Fms", "p95:Infinityms", "p95:1e309ms"])
      expect((await readValue(loose, { exitCode: 0, stdout: "", combined: printed })).value).toBeNull();
    expect((await readValue(loose, { exitCode: 0, stdout: "", combined: "p95: -1.5e2 ms" })).value).toBe(
      -150,
    );
    const json = EvaluatorDefinition.parse({
      name: "j",
      proof: "p",
      argv: ["a"],
      read: "json",
      json_path: "p95",
    });
    for (const stdout of ['{"p95":""}', '{"p95":" "}', '{"p95":"0b1"}', '{"p95":true}'])
      expect(await readValue(json, { exitCode: 0, stdout, combined: "" })).toEqual({
        value: null,
        error: "no number at p95 in stdout's JSON",
      });
    expect((await readValue(json, { exitCode: 0, stdout: '{"p95":"12.5"}', combined: "" })).value).toBe(12.5);
  });

  it("gives up on a pattern that backtracks on the output, within its budget, instead of hanging cairn", async () => {
    // The shipped latency pattern is quadratic on a run of digits with no "ms": code under test
    // printing a million of them held cairn (and any server) for many minutes, past every timeout.
    const latency = regexEvaluator("l", "([0-9]+(?:\\.[0-9]+)?)\\s*ms");
    const started = Date.now();
    const digits = { exitCode: 0, stdout: "", combined: "1".repeat(100_000) };
    expect(await readValue(latency, digits, { budgetMs: 100 })).toEqual({
      value: null,
      error: expect.stringMatching(/took longer than/),
    });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it("searches in a worker: cairn's own thread keeps running, and a cancel stops the search at once", async () => {
    const nested = regexEvaluator("n", "(a+)+b");
    const output = { exitCode: 0, stdout: "", combined: "a".repeat(40) };
    const cancel = new AbortController();
    const reading = readValue(nested, output, { signal: cancel.signal });
    // Timers fire while the pattern backtracks: the search is not in this thread.
    const ticks = await new Promise<number>((resolve) => {
      let count = 0;
      const timer = setInterval(() => {
        if (++count === 10) {
          clearInterval(timer);
          resolve(count);
        }
      }, 20);
    });
    expect(ticks).toBe(10);
    const cancelledAt = Date.now();
    cancel.abort();
    expect(await reading).toEqual({ value: null, error: "cancelled while reading the output" });
    expect(Date.now() - cancelledAt).toBeLessThan(1_000);
    // The next search gets a fresh worker and reads as before.
    const regex = regexEvaluator("r", "t=([0-9.]+)");
    expect(await readValue(regex, { exitCode: 0, stdout: "", combined: "t=3" })).toEqual({
      value: 3,
      error: null,
    });
  });

  it("reports a pattern that fails to run instead of throwing", async () => {
    // A pack with this pattern is refused when parsed; handed it anyway, the reader says so.
    const broken = { ...regexEvaluator("b", "x"), pattern: "(" };
    expect(await readValue(broken, { exitCode: 0, stdout: "", combined: "x" })).toEqual({
      value: null,
      error: expect.stringMatching(/^no number: the pattern \/\(\/ failed: .*Unterminated group/),
    });
  });

  it("quotes a match that is not a number short, whatever its length", async () => {
    const greedy = regexEvaluator("g", "t=(.*)");
    const huge = `t=${"x".repeat(100_000)}`;
    const { value, error } = await readValue(greedy, { exitCode: 0, stdout: "", combined: huge });
    expect(value).toBeNull();
    expect(error).toMatch(/^no number: \/t=\(\.\*\)\/ matched "x{60}"… \(100000 characters\)$/);
  });
});

describe("an evaluation cut short", () => {
  it("does not keep on fewer repeats than the evaluator's own: a cancel between two repeats is not a pass", () => {
    const checks = frozen("checks", "tests", { repeats: 3 });
    const input = {
      attemptId: "AT-9",
      proofs: [proof("tests")],
      required: new Set(["tests"]),
      manifest: [checks],
      reports: [],
      touchedInputs: [],
      inputsApproved: false,
    };
    const one = decide({ ...input, samples: [sample("checks", 1)] });
    expect(one.verdict).not.toBe("keep");
    expect(one.reasons.join("\n")).toMatch(/tests: .*attempt eval/);
    // Two evaluations each stopped after their first repeat are still one repeat of three.
    expect(decide({ ...input, samples: [sample("checks", 1), sample("checks", 1)] }).verdict).not.toBe(
      "keep",
    );
    const all = decide({
      ...input,
      samples: [0, 1, 2].map((repeatIndex) => ({ ...sample("checks", 1), repeatIndex })),
    });
    expect(all.verdict).toBe("keep");
  });

  it("does not keep a number whose base was never measured: a cancel as the base's checkout is made is not a pass", () => {
    const bench = frozen("bench", "speed", {
      read: "regex",
      pattern: "(\\d+)",
      direction: "lower",
      threshold: 100,
    });
    const input = {
      attemptId: "AT-9",
      proofs: [proof("speed", { direction: "lower", threshold: 100 })],
      required: new Set(["speed"]),
      manifest: [bench],
      reports: [],
    };
    const cut = decide({ ...input, samples: [sample("bench", 90)] });
    expect(cut.verdict).toBe("review");
    expect(cut.reasons.join("\n")).toMatch(/bench \(speed\): the base was not measured/);
    expect(decide({ ...input, samples: [sample("bench", 90), baseSample("bench", 90)] }).verdict).toBe(
      "keep",
    );
  });

  it("does not keep a noisy number cut short before its test settled: a cancel after two pairs is not a pass", () => {
    const bench = frozen("bench", "speed", {
      read: "regex",
      pattern: "(\\d+)",
      direction: "lower",
      threshold: 100,
      noisy: true,
    });
    const input = {
      attemptId: "AT-9",
      proofs: [proof("speed", { direction: "lower", threshold: 100 })],
      required: new Set(["speed"]),
      manifest: [bench],
      reports: [],
    };
    // Sixty percent slower, but two pairs cannot show it at any confidence.
    const pair = (b: number, a: number, repeatIndex: number) => [
      { ...baseSample("bench", b), repeatIndex },
      { ...sample("bench", a), repeatIndex },
    ];
    const cut = decide({ ...input, samples: [...pair(50, 80, 0), ...pair(52, 84, 1)] });
    expect(cut.verdict).toBe("review");
    expect(cut.reasons.join("\n")).toMatch(/speed: .*attempt eval/);
    // Twenty pairs settle it: a regression.
    const full = decide({
      ...input,
      samples: [...Array(20).keys()].flatMap((i) => pair(50 + (i % 3), 80 + (i % 4), i)),
    });
    expect(full.verdict).toBe("revert");
  });
});

describe("deciding an attempt", () => {
  const speed = proof("speed", { direction: "lower", threshold: 100 });
  const speedEval = frozen("bench", "speed", {
    read: "regex",
    pattern: "(\\d+)",
    direction: "lower",
    threshold: 100,
  });
  const base = {
    attemptId: "AT-9",
    proofs: [speed],
    required: new Set(["speed"]),
    manifest: [speedEval],
    reports: [],
  };
  const twice = (values: number[]) => [...values, ...values.map((v) => v + 0.5)];
  const series = (make: (e: string, v: number) => SampleRecord, values: number[]) =>
    values.map((value) => make("bench", value));

  it("calls a regression against the base measured in the same session only beyond noise and the minimum effect", () => {
    const noisyBase = series(baseSample, twice([50, 52, 49, 51, 53, 50, 48, 52, 51, 49]));
    const same = decide({
      ...base,
      samples: [...noisyBase, ...series(sample, twice([51, 49, 52, 50, 48, 53, 50, 51, 52, 49]))],
    });
    expect(same.verdict).toBe("keep");
    expect(same.evaluators[0]?.comparison?.regression).toBe(false);
    const slower = decide({
      ...base,
      samples: [...noisyBase, ...series(sample, twice([61, 60, 62, 59, 63, 61, 60, 62, 61, 60]))],
    });
    expect(slower.verdict).toBe("revert");
    expect(slower.reasons[0]).toMatch(/regression in bench \(speed\) against its base: Mann-Whitney/);
    expect(slower.next).toMatch(/attempt revert AT-9 --confirm/);
    // Significant but smaller than the minimum effect (a tenth of the base): no regression.
    const tiny = decide({
      ...base,
      samples: [...noisyBase, ...series(sample, twice([53, 54, 53, 54, 55, 53, 54, 54, 53, 55]))],
    });
    expect(tiny.verdict).toBe("keep");
    const better = decide({
      ...base,
      samples: [...noisyBase, ...series(sample, [40, 41, 40, 42, 41, 40, 41, 39, 40, 41])],
    });
    expect(better.verdict).toBe("keep");
  });

  it("does not average away an attempt slow in some runs where its base never varied (bimodal)", () => {
    const steadyBase = series(baseSample, Array(MAX_PAIRS).fill(10));
    // Four runs in ten three times as slow: its better third looks exactly like the base.
    const sometimesSlow = Array.from({ length: MAX_PAIRS }, (_, i) => (i % 10 < 4 ? 30 : 10));
    const bimodal = decide({ ...base, samples: [...steadyBase, ...series(sample, sometimesSlow)] });
    expect(bimodal.verdict).toBe("review");
    expect(bimodal.reasons.join("\n")).toMatch(
      /bench \(speed\): 20 of its runs were worse than its base by more than the minimum effect/,
    );
    expect(bimodal.evaluators[0]?.comparison?.test).toMatch(/every sample \(the base never varied\)/);
    // Mostly slow: a regression, reverted.
    const mostlySlow = Array.from({ length: MAX_PAIRS }, (_, i) => (i % 10 < 6 ? 30 : 10));
    expect(decide({ ...base, samples: [...steadyBase, ...series(sample, mostlySlow)] }).verdict).toBe(
      "revert",
    );
    // Varying, but never worse than the steady base: kept.
    const neverWorse = Array.from({ length: 10 }, (_, i) => (i % 2 ? 9 : 10));
    expect(
      decide({ ...base, samples: [...steadyBase.slice(0, 10), ...series(sample, neverWorse)] }).verdict,
    ).toBe("keep");
  });

  it("sends a regression on a proof the milestone does not require to review, and only warns when it fails", () => {
    const check = frozen("check", "check");
    const input = {
      ...base,
      proofs: [proof("check"), speed],
      manifest: [check, speedEval],
      required: new Set(["check"]),
    };
    const regressed = decide({
      ...input,
      samples: [sample("check", 1), ...series(baseSample, [50, 50]), ...series(sample, [80, 80])],
    });
    expect(regressed.verdict).toBe("review");
    expect(regressed.next).toMatch(/attempt accept AT-9/);
    const failing = decide({ ...input, samples: [sample("check", 1), sample("bench", 500)] });
    expect(failing.verdict).toBe("keep");
    expect(failing.warnings.join()).toMatch(/bench measured 500, needs ≤ 100/);
  });

  it("never keeps an attempt whose milestone requires a proof its run's contract does not have", () => {
    const check = frozen("check", "check");
    const replanned = decide({
      ...base,
      proofs: [proof("check")],
      manifest: [check],
      required: new Set(["security"]),
      samples: [sample("check", 1)],
    });
    expect(replanned.verdict).toBe("review");
    expect(replanned.reasons).toEqual([
      "security: required by the milestone, but this run's contract has no such proof to measure",
    ]);
  });

  it("scores a failed numeric proof by its distance to the threshold", () => {
    const failed = decide({ ...base, samples: [sample("bench", 200)] });
    expect(failed.verdict).toBe("revert");
    expect(failed.proofs[0]?.score).toBeCloseTo(0.5);
  });

  it("reviews when a proof's evaluators have not all run", () => {
    const partial = decide({
      attemptId: "AT-9",
      proofs: [proof("check")],
      required: new Set(["check"]),
      manifest: [frozen("a", "check"), frozen("b", "check")],
      samples: [sample("a", 1)],
      reports: [],
    });
    expect(partial.verdict).toBe("review");
  });

  it("never keeps on an agent's self-report; the owner's report is a judgment that decides the proof", () => {
    const input = {
      attemptId: "AT-9",
      proofs: [proof("check"), proof("review", { manual: true, threshold: 0.5 })],
      required: new Set(["check", "review"]),
      manifest: [frozen("a", "check")],
      samples: [sample("a", 1)],
    };
    const agent = decide({
      ...input,
      reports: [{ attemptId: "AT-9", proof: "review", score: 1, reportedBy: "A-1", at: "" }],
    });
    expect(agent.verdict).toBe("review");
    const owner = decide({
      ...input,
      reports: [{ attemptId: "AT-9", proof: "review", score: 1, reportedBy: "owner", at: "" }],
    });
    expect(owner.verdict).toBe("keep");
    expect(owner.proofs[1]?.source).toBe("owner_judgment");
    const low = decide({
      ...input,
      reports: [{ attemptId: "AT-9", proof: "review", score: 0.2, reportedBy: "owner", at: "" }],
    });
    expect(low.verdict).toBe("revert");
  });

  it("never keeps an attempt that changed a frozen input; with the owner's approval it reaches review", () => {
    const touched = [{ path: "package.json", evaluators: ["bench"] }];
    const changed = decide({ ...base, samples: [sample("bench", 50)], touchedInputs: touched });
    expect(changed.verdict).toBe("revert");
    expect(changed.reasons[0]).toMatch(/changes frozen evaluator inputs: package\.json \(bench\)/);
    const approved = decide({
      ...base,
      samples: [sample("bench", 50)],
      touchedInputs: touched,
      inputsApproved: true,
    });
    expect(approved.verdict).toBe("review");
  });
});

describe("planning authority", () => {
  it("a child of a builder does not plan, even in a planning role its parent's child_roles lists", () => {
    const config = WorkspaceConfig.parse({
      roles: { builder: { child_roles: ["planner"] }, planner: { planning: true } },
    });
    const agent = (id: string, role: string, parentId: string | null = null) =>
      ({ id, name: id, role, grant: "rw", parentId }) as AgentRecord;
    const builder = agent("A-1", "builder");
    const planner = agent("A-2", "planner");
    expect(canPlan(actorOf(planner), config)).toBe(true);
    expect(canPlan(actorOf(agent("A-3", "planner", planner.id), [planner]), config)).toBe(true);
    const minted = actorOf(agent("A-4", "planner", builder.id), [builder]);
    expect(canPlan(minted, config)).toBe(false);
    expect(() => requirePlanning(minted, config, "approve evaluator proposals")).toThrow(
      /under A-1, an ancestor of role builder/,
    );
  });
});
