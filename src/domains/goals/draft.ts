import type { GoalFields, ProofSpec } from "../../store/store.js";

/** `goal create`: a contract drafted from a vague goal by keyword rules, with no model. */

interface ProofRule {
  /** Whole words (or word stems) in the vague goal that call for this proof. */
  words: RegExp;
  proof: ProofSpec;
}

/**
 * Deterministic drafting: words in the goal map to proofs. A threshold that only the goal's
 * author can know (how fast is fast?) is left `null` and listed as something to fill in.
 */
const RULES: readonly ProofRule[] = [
  {
    words: /\b(test|tests|tested|testing|passing|green|regressions?|bugs?|fix|fixes)\b/,
    proof: {
      name: "tests",
      direction: "higher",
      threshold: 1,
      manual: false,
      description: "the test suite passes",
    },
  },
  {
    words: /\b(typed|types|typing|typecheck|type-safe|typescript|mypy)\b/,
    proof: {
      name: "typecheck",
      direction: "higher",
      threshold: 1,
      manual: false,
      description: "the type checker is clean",
    },
  },
  {
    words: /\b(lint|linted|linting|clean|tidy|style)\b/,
    proof: {
      name: "lint",
      direction: "higher",
      threshold: 1,
      manual: false,
      description: "the linter is clean",
    },
  },
  {
    words: /\b(coverage|covered|cover)\b/,
    proof: {
      name: "coverage",
      direction: "higher",
      threshold: null,
      manual: false,
      description: "line coverage, percent",
    },
  },
  {
    words: /\b(fast|faster|speed|speedy|latency|slow|slower|quick|quicker|perf|performance|p50|p95|p99)\b/,
    proof: {
      name: "latency",
      direction: "lower",
      threshold: null,
      manual: false,
      description: "a benchmark's time, ms (lower is better)",
    },
  },
  {
    words: /\b(throughput|scale|scalable|rps|qps|ops)\b/,
    proof: {
      name: "throughput",
      direction: "higher",
      threshold: null,
      manual: false,
      description: "operations per second",
    },
  },
  {
    words: /\b(secure|security|safe|safer|vulnerabilit(y|ies)|cve|audit|hardened?)\b/,
    proof: {
      name: "security",
      direction: "higher",
      threshold: 1,
      manual: false,
      description: "no known high-severity vulnerabilities",
    },
  },
  {
    words: /\b(build|builds|compile|compiles|ship|shippable)\b/,
    proof: {
      name: "build",
      direction: "higher",
      threshold: 1,
      manual: false,
      description: "the project builds",
    },
  },
  {
    words: /\b(docs?|documented|documentation|readme|usable|ux|readable|clear|friendly)\b/,
    proof: {
      name: "review",
      direction: "higher",
      threshold: 0.8,
      manual: true,
      description: "a person judges the result",
    },
  },
];

export interface Draft {
  fields: GoalFields;
  matched: string[];
}

export function draftContract(vague: string): Draft {
  const words = vague.toLowerCase();
  const proofs: ProofSpec[] = [];
  const matched: string[] = [];
  for (const rule of RULES) {
    const hit = rule.words.exec(words);
    if (!hit) continue;
    matched.push(`"${hit[0]}" → ${rule.proof.name}`);
    proofs.push({ ...rule.proof });
  }
  // Whatever the goal says, a change that breaks the tests is not done.
  if (!proofs.some((proof) => proof.name === "tests")) {
    proofs.unshift({ ...(RULES[0] as ProofRule).proof });
    matched.push("(default) → tests");
  }
  return {
    fields: { goal: vague.trim(), outcome: null, constraints: [], nonGoals: [], proofs },
    matched,
  };
}
