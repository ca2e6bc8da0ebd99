import { describe, expect, it } from "vitest";
import { draftContract, openQuestions } from "../../src/domains/goals/contract.js";
import { decide } from "../../src/domains/goals/decide.js";
import { parsePack } from "../../src/domains/goals/evaluators/catalog.js";
import { definitionHash, EvaluatorDefinition } from "../../src/domains/goals/evaluators/definition.js";
import { findCycle } from "../../src/domains/goals/milestones.js";
import { readValue } from "../../src/domains/goals/runner.js";
import type { FrozenEvaluatorRecord, ProofSpec, SampleRecord } from "../../src/store/store.js";

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
});

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

  it("reads the last regex match and a JSON path", () => {
    const regex = EvaluatorDefinition.parse({
      name: "r",
      proof: "p",
      argv: ["a"],
      read: "regex",
      pattern: "t=([0-9.]+)",
    });
    expect(readValue(regex, { exitCode: 0, stdout: "", combined: "t=1\nt=2.5\n" })).toEqual({
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
    expect(readValue(json, { exitCode: 0, stdout: '{"a":[{},{"b":7}]}', combined: "" })).toEqual({
      value: 7,
      error: null,
    });
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
  const base = { proofs: [speed], required: new Set(["speed"]), manifest: [speedEval], reports: [] };

  it("sends a worsening within the repeats' noise to review, and one beyond it to revert", () => {
    const baselines = new Map([["bench", { attemptId: "AT-1", mean: 50, noise: 5 }]]);
    const within = decide({ ...base, baselines, samples: [sample("bench", 52), sample("bench", 54)] });
    expect(within.verdict).toBe("review");
    expect(within.reasons[0]).toMatch(/within noise/);
    const beyond = decide({ ...base, baselines, samples: [sample("bench", 70), sample("bench", 71)] });
    expect(beyond.verdict).toBe("revert");
    const better = decide({ ...base, baselines, samples: [sample("bench", 40), sample("bench", 41)] });
    expect(better.verdict).toBe("keep");
  });

  it("scores a failed numeric proof by its distance to the threshold", () => {
    const failed = decide({ ...base, baselines: new Map(), samples: [sample("bench", 200)] });
    expect(failed.verdict).toBe("revert");
    expect(failed.proofs[0]?.score).toBeCloseTo(0.5);
  });

  it("reviews when a proof's evaluators have not all run", () => {
    const partial = decide({
      proofs: [proof("check")],
      required: new Set(["check"]),
      manifest: [frozen("a", "check"), frozen("b", "check")],
      samples: [sample("a", 1)],
      reports: [],
      baselines: new Map(),
    });
    expect(partial.verdict).toBe("review");
  });

  it("never keeps on a self-report, even a perfect one beside passing measurements", () => {
    const mixed = decide({
      proofs: [proof("check"), proof("review", { manual: true, threshold: 0.5 })],
      required: new Set(["check", "review"]),
      manifest: [frozen("a", "check")],
      samples: [sample("a", 1)],
      reports: [{ attemptId: "AT-9", proof: "review", score: 1, reportedBy: "A-1", at: "" }],
      baselines: new Map(),
    });
    expect(mixed.verdict).toBe("review");
  });
});
