import { z } from "zod";
import { canPlan, readsHoldouts } from "../../domains/goals/authority.js";
import { goalOrThrow } from "../../domains/goals/contract.js";
import { catalogDirectories, driftOf, freezeRun, runOrThrow } from "../../domains/goals/runs.js";
import { settingOf } from "../../kernel/setting.js";
import { defineCommand } from "../define.js";
import { shortId } from "../ids.js";
import { Run, runView } from "./views.js";

export const runFreeze = defineCommand({
  name: "run freeze",
  summary:
    "Freeze a goal into a run: the contract, each selected evaluator's definition and the inputs it depends on, content-hashed",
  effect: "write",
  positional: ["goal"],
  input: z.object({ goal: shortId("G").describe("goal id") }),
  output: z.object({ run: Run }),
  async handler(input, ctx) {
    const run = await freezeRun(
      ctx.store,
      input.goal,
      ctx.workspace.root,
      catalogDirectories(ctx.workspace, ctx.env),
      ctx.actor.id,
      ctx.now(),
      canPlan(ctx.actor, ctx.config),
      settingOf(ctx.env),
    );
    return { run: runView(run, readsHoldouts(ctx)) };
  },
  // Each evaluator with where it came from: a pack file beside the workspace that replaced a
  // shipped evaluator of the same name shows its path, not cairn's pack.
  render: (out) =>
    `Froze ${out.run.id} for ${out.run.goal_id} (${out.run.manifest_hash.slice(0, 19)}…): ${out.run.evaluators.map((e) => `${e.name} (${e.source})`).join(", ")}`,
});

export const runList = defineCommand({
  name: "run list",
  summary: "Every run (of one goal with --goal) with its attempts and verdicts",
  effect: "read",
  input: z.object({ goal: z.string().optional().describe("only this goal's runs") }),
  output: z.object({
    runs: z.array(
      z.object({
        id: z.string(),
        goal_id: z.string(),
        goal: z.string(),
        evaluators: z.number(),
        attempts: z.number(),
        kept: z.number(),
        created_at: z.string(),
      }),
    ),
  }),
  async handler(input, ctx) {
    return ctx.store.read(async (tx) => {
      if (input.goal) await goalOrThrow(tx, input.goal);
      const runs = await tx.goals.runs(input.goal);
      const rows = [];
      for (const run of runs) {
        // Counted by the store, none read whole: an agent's loop leaves thousands of attempts a
        // run. A kept attempt is never reverted, so the tally's kept is every keep.
        const tally = await tx.goals.attemptTally(run.id);
        rows.push({
          id: run.id,
          goal_id: run.goalId,
          goal: run.contract.goal,
          evaluators: run.manifest.length,
          attempts: tally.attempts,
          kept: tally.kept,
          created_at: run.createdAt,
        });
      }
      return { runs: rows };
    });
  },
  render: (out) =>
    out.runs.length === 0
      ? "No runs yet: `cairn run freeze GOAL`."
      : out.runs
          .map(
            (r) =>
              `${r.id.padEnd(6)} ${r.goal_id.padEnd(6)} ${r.attempts} attempts, ${r.kept} kept  ${r.goal}`,
          )
          .join("\n"),
});

/** Attempts a `run status` shows at once: a run of an agent's loop holds thousands. */
const LEDGER_PAGE = 100;

/**
 * Where the run's evaluators find their programs and user configuration: the PATH folders (first,
 * the caller's after them) and HOME of whoever froze it, one line per distinct setting.
 */
function frozenSettingLines(
  evaluators: { name: string; path: string[] | null; home: string | null }[],
): string[] {
  const settings = new Map<string, string[]>();
  for (const e of evaluators) {
    if (e.path === null && e.home === null) continue;
    const setting = `HOME ${e.home ?? "(the caller's)"}; PATH first: ${e.path ? e.path.join(":") : "(the caller's)"}`;
    settings.set(setting, [...(settings.get(setting) ?? []), e.name]);
  }
  return [...settings].map(
    ([setting, names]) => `  as frozen${settings.size > 1 ? ` (${names.join(", ")})` : ""}: ${setting}`,
  );
}

export const runStatus = defineCommand({
  name: "run status",
  summary:
    "A run's frozen evaluators (rules and inputs), its attempt ledger, and drift since freezing for every evaluator kind",
  effect: "read",
  positional: ["run"],
  input: z.object({
    run: shortId("R").describe("run id, e.g. R-1"),
    // Described in the tool's description, where a model reads it once: every token of an input
    // schema is paid in every session.
    offset: z.number().int().min(0).optional(),
  }),
  output: z.object({
    run: Run,
    drift: z
      .array(z.string())
      .describe("evaluators that drifted after freezing; the run keeps using its frozen copy"),
    drift_details: z.array(
      z.object({
        evaluator: z.string(),
        kind: z.enum(["definition", "missing", "proposal", "inputs"]),
        files: z.array(z.string()).describe("for inputs: the frozen files changed in this checkout"),
      }),
    ),
    attempts: z.array(
      z.object({
        id: z.string(),
        milestone_id: z.string().nullable(),
        opened_by: z.string(),
        opened_at: z.string(),
        verdict: z.enum(["keep", "revert", "review"]).nullable(),
        reverted: z.boolean(),
      }),
    ),
    attempts_total: z.number(),
    kept: z.number(),
    in_review: z.number(),
    offset: z.number().describe("the first attempt shown, counted from 0"),
  }),
  async handler(input, ctx) {
    const limit = LEDGER_PAGE;
    const { run, tally, offset, attempts, proposals } = await ctx.store.read(async (tx) => {
      const run = await runOrThrow(tx, input.run);
      const tally = await tx.goals.attemptTally(run.id);
      // The ledger's newest end unless asked: what an agent's loop did last is what it needs.
      const offset = input.offset ?? Math.max(0, tally.attempts - limit);
      return {
        run,
        tally,
        offset,
        attempts: await tx.goals.attemptPage(run.id, { limit, offset }),
        proposals: await tx.goals.proposals(run.goalId),
      };
    });
    const drift = await driftOf(
      run,
      catalogDirectories(ctx.workspace, ctx.env),
      proposals,
      ctx.workspace.root,
    );
    const hidden = new Set(run.manifest.filter((e) => e.definition.hidden === true).map((e) => e.name));
    const shown = drift.map((d) =>
      hidden.has(d.evaluator) && !readsHoldouts(ctx) ? { ...d, evaluator: "(hidden)", files: [] } : d,
    );
    return {
      run: runView(run, readsHoldouts(ctx)),
      drift: [...new Set(shown.map((d) => d.evaluator))],
      drift_details: shown,
      attempts: attempts.map((attempt) => ({
        id: attempt.id,
        milestone_id: attempt.milestoneId,
        opened_by: attempt.openedBy,
        opened_at: attempt.openedAt,
        verdict: attempt.verdict,
        reverted: attempt.revertedAt !== null,
      })),
      attempts_total: tally.attempts,
      kept: tally.kept,
      in_review: tally.inReview,
      offset,
    };
  },
  render: (out) =>
    [
      `${out.run.id} of ${out.run.goal_id}: ${out.run.evaluators.map((e) => e.name).join(", ")}`,
      ...out.run.evaluators.map(
        (e) =>
          `  ${e.name.padEnd(18)} ${e.read}${e.pattern ? ` /${e.pattern}/` : ""}${e.match === "only" ? " only" : ""}${e.json_path ? ` ${e.json_path}` : ""}${e.noisy ? " noisy" : ""}${e.inputs?.length ? ` inputs: ${e.inputs.join(", ")}` : ""}`,
      ),
      ...frozenSettingLines(out.run.evaluators),
      ...out.drift_details.map(
        (d) =>
          `drift: ${d.evaluator} ${d.kind}${d.files.length ? ` (${d.files.join(", ")})` : ""}; the run keeps its frozen copy`,
      ),
      ledgerLine(out),
      ...out.attempts.map(
        (a) =>
          `  ${a.id.padEnd(7)} ${(a.verdict ?? "open").padEnd(7)}${a.reverted ? " reverted" : ""}${a.milestone_id ? ` ${a.milestone_id}` : ""}`,
      ),
    ].join("\n"),
});

/** The ledger's heading: its counts, and where the rest of it is when one page does not hold it. */
function ledgerLine(out: {
  attempts: unknown[];
  attempts_total: number;
  kept: number;
  in_review: number;
  offset: number;
}): string {
  const counts = `${out.attempts_total} attempts, ${out.kept} kept, ${out.in_review} in review`;
  if (out.attempts.length === out.attempts_total) return `${counts}:`;
  const shown =
    out.attempts.length === 0 ? "none shown" : `${out.offset + 1}–${out.offset + out.attempts.length} shown`;
  const earlier =
    out.offset > 0 ? `; earlier: --offset ${Math.max(0, out.offset - out.attempts.length)}` : "";
  const later =
    out.offset + out.attempts.length < out.attempts_total
      ? `; later: --offset ${out.offset + out.attempts.length}`
      : "";
  return `${counts} (${shown}${earlier}${later}):`;
}
