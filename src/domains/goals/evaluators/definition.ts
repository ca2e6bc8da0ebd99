import { z } from "zod";
import { sha256Hex } from "../../../kernel/builtins.js";
import { inCodeUnitOrder } from "../../../kernel/text.js";
import { PROOF_NAME } from "../contract.js";

const EVALUATOR_NAME = /^[a-z0-9][a-z0-9_.-]{0,63}$/;

/**
 * One evaluator: a command cairn runs itself (argv, never a shell) and how to read a number from
 * it. `exit_code` reads 1 for exit 0 and 0 otherwise, so a threshold of 1 means "every repeat
 * passed"; `regex` reads the first capture group (or the whole match) of the last match in
 * stdout+stderr (or, with `match = "only"`, of every match, which must all read the same
 * number); `json` reads a dotted path (`a.b.0.c`) from stdout parsed as JSON. A command that exits
 * non-zero yields no number unless `ignore_exit_code` says its exit code means nothing.
 */
export const EvaluatorDefinition = z
  .object({
    name: z.string().regex(EVALUATOR_NAME, "evaluator names are lowercase letters, digits, ., - and _"),
    proof: z.string().regex(PROOF_NAME, "proof names are lowercase letters, digits, - and _"),
    description: z.string().default(""),
    argv: z.array(z.string().min(1)).min(1, "argv needs at least the program"),
    read: z.enum(["exit_code", "regex", "json"]).default("exit_code"),
    pattern: z.string().optional(),
    /**
     * Which matches of `pattern` count (regex only). `last` (the default): the last one. `only`:
     * every match must read the same number, or there is none. The output is partly the code
     * under test's, and code that prints a line shaped like the measurement (`time: 1 ms` at
     * exit) supplied the last match; under `only` two readings that differ are no number, and an
     * attempt without its number is never kept. Left out rather than defaulted, so that the
     * content hash of every definition written before it stays what it was.
     */
    match: z.enum(["last", "only"]).optional(),
    json_path: z.string().optional(),
    direction: z.enum(["higher", "lower"]).optional(),
    threshold: z.number().optional(),
    repeats: z.number().int().min(1).max(50).default(1),
    timeout_seconds: z.number().positive().max(86_400).default(600),
    hidden: z.boolean().default(false),
    /**
     * Paths and globs (relative to the workspace root) the evaluator depends on, besides the
     * defaults cairn adds (files its argv names, the manifest whose script it runs, the test
     * folders of its pack). Content-hashed at freeze; an attempt touching one is never kept.
     */
    inputs: z.array(z.string().min(1)).default([]),
    /** Timing-like: measured interleaved with the base in the same session, never remembered. */
    noisy: z.boolean().default(false),
    /** The smallest regression worth calling, in the evaluator's own units (default: 5% of the base). */
    min_effect: z.number().nonnegative().optional(),
    /** Read the number even when the command exits non-zero (regex and json only). */
    ignore_exit_code: z.boolean().default(false),
    /** Selected only when one of these files exists at the workspace root (empty: always). */
    applies_when: z.array(z.string()).default([]),
    /** A starting point for `eval propose --template`, never selected on its own. */
    template: z.boolean().default(false),
  })
  .strict()
  .superRefine((definition, issues) => {
    if (definition.read === "regex") {
      if (!definition.pattern) {
        issues.addIssue({ code: "custom", path: ["pattern"], message: "read = regex needs a pattern" });
        return;
      }
      try {
        new RegExp(definition.pattern);
      } catch (error) {
        const message = (error as Error).message;
        // The engine's message quotes the pattern; a holdout's is named by its place only, since
        // a broken pack is reported to whichever agent lists or selects evaluators (and audited).
        const why = definition.hidden
          ? `the hidden evaluator's pattern (not quoted): ${/: ([^:/]+)$/.exec(message)?.[1] ?? "rejected by the regex engine"}`
          : message;
        issues.addIssue({ code: "custom", path: ["pattern"], message: `not a valid regex: ${why}` });
      }
    }
    if (definition.match !== undefined && definition.read !== "regex") {
      issues.addIssue({ code: "custom", path: ["match"], message: "match applies to read = regex only" });
    }
    if (definition.read === "json" && !definition.json_path) {
      issues.addIssue({ code: "custom", path: ["json_path"], message: "read = json needs a json_path" });
    }
  });
export type EvaluatorDefinition = z.infer<typeof EvaluatorDefinition>;

/** Which regex matches count, as views show it: null for the other ways of reading. */
export const matchOf = (definition: { read?: unknown; match?: unknown }): "last" | "only" | null =>
  definition.read === "regex" ? (definition.match === "only" ? "only" : "last") : null;

/** A TOML pack: an optional `[pack]` header and `[[evaluator]]` tables. */
export const EvaluatorPack = z
  .object({
    pack: z.object({ name: z.string().optional(), description: z.string().optional() }).strict().optional(),
    evaluator: z.array(EvaluatorDefinition).default([]),
  })
  .strict();

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => inCodeUnitOrder(a, b));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonical(item)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/**
 * Content hash of a definition: key order and formatting of the source file do not matter. A
 * hidden evaluator's is salted (a random salt its run keeps, `FrozenEvaluatorRecord.salt`): run
 * status shows every evaluator's hash to every agent, and a plain one let a builder that guessed
 * the rest (often a visible evaluator's argv and pattern) find a holdout's bar by hashing each
 * candidate, or confirm a guessed command. The run's manifest hash, built on it, is no oracle
 * either.
 */
export function definitionHash(definition: EvaluatorDefinition, salt?: string): string {
  return `sha256:${sha256Hex(salt === undefined ? canonical(definition) : `${salt}\n${canonical(definition)}`)}`;
}

export function manifestHash(hashes: readonly string[]): string {
  return `sha256:${sha256Hex(hashes.join("\n"))}`;
}
