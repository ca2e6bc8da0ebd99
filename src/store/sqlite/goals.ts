import type Database from "better-sqlite3";
import type { GoalRepo, SampleRecord, ScoreReportRecord } from "../goals.js";
import { idsStartingWith } from "../id-prefix.js";
import {
  attemptOf,
  attemptSummaryOf,
  goalOf,
  milestoneOf,
  proposalOf,
  type Row,
  runOf,
  sampleOf,
  tallyOf,
} from "./goal-rows.js";
import { sqliteIdPage } from "./id-page.js";
import { raiseCounter, shortIds } from "./short-ids.js";

export function sqliteGoals(db: Database.Database): GoalRepo {
  const one = (sql: string) => db.prepare<unknown[], Row>(sql);
  const nextGoal = shortIds(db, "goals", "G");
  const nextMilestone = shortIds(db, "goal_milestones", "M");
  const nextProposal = shortIds(db, "goal_evaluator_proposals", "EP");
  const nextRun = shortIds(db, "goal_runs", "R");
  const nextAttempt = shortIds(db, "goal_attempts", "AT");

  const goalById = one("SELECT * FROM goals WHERE id = ?");
  const milestoneById = one("SELECT * FROM goal_milestones WHERE id = ?");
  const runById = one("SELECT * FROM goal_runs WHERE id = ?");
  const attemptById = one("SELECT * FROM goal_attempts WHERE id = ?");
  const proposalById = one("SELECT * FROM goal_evaluator_proposals WHERE id = ?");

  const stmts = {
    insertGoal: db.prepare(
      "INSERT INTO goals (seq, id, goal, outcome, constraints, non_goals, proofs, created_by, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    ),
    updateGoal: db.prepare(
      "UPDATE goals SET goal = ?, outcome = ?, constraints = ?, non_goals = ?, proofs = ?, updated_at = ? WHERE id = ?",
    ),
    goals: one("SELECT * FROM goals ORDER BY seq LIMIT +? OFFSET +?"),
    recentGoals: one("SELECT * FROM goals ORDER BY updated_at DESC, seq DESC LIMIT +?"),
    countGoals: one("SELECT COUNT(*) AS n FROM goals"),
    milestones: one("SELECT * FROM goal_milestones WHERE goal_id = ? ORDER BY position, seq"),
    milestoneByTask: one("SELECT * FROM goal_milestones WHERE task_id = ?"),
    insertMilestone: db.prepare(
      "INSERT INTO goal_milestones (seq, id, goal_id, key, title, description, proofs, depends_on, position, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    ),
    updateMilestone: db.prepare(
      "UPDATE goal_milestones SET key = ?, title = ?, description = ?, proofs = ?, depends_on = ?, position = ? WHERE id = ?",
    ),
    deleteMilestone: db.prepare("DELETE FROM goal_milestones WHERE id = ?"),
    linkTask: db.prepare("UPDATE goal_milestones SET task_id = ? WHERE id = ?"),
    insertProposal: db.prepare(
      "INSERT INTO goal_evaluator_proposals (seq, id, goal_id, proof, definition, status, proposed_by, created_at) VALUES (?, ?, ?, ?, ?, 'proposed', ?, ?)",
    ),
    proposals: one("SELECT * FROM goal_evaluator_proposals WHERE goal_id = ? ORDER BY seq"),
    decideProposal: db.prepare(
      "UPDATE goal_evaluator_proposals SET status = ?, decided_by = ?, decided_at = ? WHERE id = ?",
    ),
    insertRun: db.prepare(
      "INSERT INTO goal_runs (seq, id, goal_id, contract, milestones, manifest, manifest_hash, created_by, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
    ),
    runsAll: one("SELECT * FROM goal_runs ORDER BY seq"),
    runsOfGoal: one("SELECT * FROM goal_runs WHERE goal_id = ? ORDER BY seq"),
    insertAttempt: db.prepare(
      "INSERT INTO goal_attempts (seq, id, run_id, milestone_id, base_head, base_dirty, base_changes, opened_by, opened_at, checkout, checkout_host, base_hashes, inputs_approved_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    ),
    openIn: one(
      "SELECT * FROM goal_attempts WHERE checkout = ? AND (checkout_host IS NULL OR checkout_host = ?) AND reverted_at IS NULL AND (verdict IS NULL OR verdict <> 'keep') ORDER BY seq LIMIT 1",
    ),
    inputDrift: db.prepare("UPDATE goal_attempts SET input_drift = ? WHERE id = ?"),
    resolve: db.prepare("UPDATE goal_attempts SET verdict = ?, resolution = ? WHERE id = ?"),
    insertChange: db.prepare(
      "INSERT INTO goal_contract_changes (goal_id, changed_by, at, fields, before, after) VALUES (?, ?, ?, ?, ?, ?)",
    ),
    changes: one("SELECT * FROM goal_contract_changes WHERE goal_id = ? ORDER BY seq"),
    attempts: one("SELECT * FROM goal_attempts WHERE run_id = ? ORDER BY seq"),
    attemptsPaged: one("SELECT * FROM goal_attempts WHERE run_id = ? ORDER BY seq LIMIT +? OFFSET +?"),
    keptAttempts: one(
      "SELECT * FROM goal_attempts WHERE run_id = ? AND verdict = 'keep' AND reverted_at IS NULL ORDER BY seq",
    ),
    attemptPage: one(
      "SELECT id, milestone_id, opened_by, opened_at, verdict, reverted_at FROM goal_attempts WHERE run_id = ? ORDER BY seq LIMIT +? OFFSET +?",
    ),
    attemptsInReview: one(
      "SELECT * FROM goal_attempts WHERE run_id = ? AND verdict = 'review' AND reverted_at IS NULL ORDER BY seq",
    ),
    attemptCounts: one(
      "SELECT COUNT(*) AS n, COALESCE(SUM(CASE WHEN verdict = 'keep' AND reverted_at IS NULL THEN 1 ELSE 0 END), 0) AS kept, COALESCE(SUM(CASE WHEN verdict = 'review' AND reverted_at IS NULL THEN 1 ELSE 0 END), 0) AS in_review FROM goal_attempts WHERE run_id = ?",
    ),
    latestAttempt: one(
      "SELECT id, verdict, opened_at FROM goal_attempts WHERE run_id = ? ORDER BY opened_at DESC, seq DESC LIMIT 1",
    ),
    baselines: one(
      "SELECT evaluator, attempt_id, mean, noise, direction FROM goal_baselines WHERE run_id = ?",
    ),
    raiseBaseline: db.prepare(
      `INSERT INTO goal_baselines (run_id, evaluator, attempt_id, mean, noise, direction) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (run_id, evaluator) DO UPDATE SET attempt_id = excluded.attempt_id, mean = excluded.mean, noise = excluded.noise, direction = excluded.direction
       WHERE (excluded.direction = 'higher' AND excluded.mean > goal_baselines.mean)
          OR (excluded.direction = 'lower' AND excluded.mean < goal_baselines.mean)`,
    ),
    keptForMilestone: one(
      "SELECT * FROM goal_attempts WHERE milestone_id = ? AND verdict = 'keep' AND reverted_at IS NULL ORDER BY seq DESC LIMIT 1",
    ),
    usingMilestone: db.prepare<[string], { n: number }>(
      "SELECT COUNT(*) AS n FROM goal_attempts WHERE milestone_id = ?",
    ),
    decide: db.prepare("UPDATE goal_attempts SET verdict = ?, decision = ?, decided_at = ? WHERE id = ?"),
    revert: db.prepare("UPDATE goal_attempts SET reverted_at = ? WHERE id = ?"),
    insertSample: db.prepare(
      "INSERT INTO goal_samples (attempt_id, evaluator, proof, repeat_index, exit_code, value, error, duration_ms, output_tail, output_hash, git_head, at, side, tree) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    ),
    samples: one("SELECT * FROM goal_samples WHERE attempt_id = ? ORDER BY seq"),
    insertReport: db.prepare(
      "INSERT INTO goal_score_reports (attempt_id, proof, score, reported_by, at) VALUES (?, ?, ?, ?, ?)",
    ),
    reports: one("SELECT * FROM goal_score_reports WHERE attempt_id = ? ORDER BY seq"),
  };

  const goalOrThrow = (id: string) => goalOf(goalById.get(id) as Row);

  return {
    async insertGoal(fields, createdBy, at) {
      const { seq, id } = nextGoal();
      stmts.insertGoal.run(
        seq,
        id,
        fields.goal,
        fields.outcome,
        JSON.stringify(fields.constraints),
        JSON.stringify(fields.nonGoals),
        JSON.stringify(fields.proofs),
        createdBy,
        at,
        at,
      );
      return goalOrThrow(id);
    },
    async updateGoal(id, fields, at) {
      stmts.updateGoal.run(
        fields.goal,
        fields.outcome,
        JSON.stringify(fields.constraints),
        JSON.stringify(fields.nonGoals),
        JSON.stringify(fields.proofs),
        at,
        id,
      );
      return goalOrThrow(id);
    },
    async goal(id) {
      const row = goalById.get(id);
      return row ? goalOf(row) : undefined;
    },
    async goals(page) {
      const goals = stmts.goals.all(page.limit, page.offset).map(goalOf);
      const counted = stmts.countGoals.get() as { n: number | string } | undefined;
      return { goals, total: Number(counted?.n ?? 0) };
    },
    async recentGoals(limit) {
      const goals = stmts.recentGoals.all(limit).map(goalOf);
      const counted = stmts.countGoals.get() as { n: number | string } | undefined;
      return { goals, total: Number(counted?.n ?? 0) };
    },
    async idsStartingWith(prefix, limit) {
      return sqliteIdPage(db, "goals", idsStartingWith(prefix), limit);
    },
    async milestones(goalId) {
      return stmts.milestones.all(goalId).map(milestoneOf);
    },
    async milestone(id) {
      const row = milestoneById.get(id);
      return row ? milestoneOf(row) : undefined;
    },
    async milestoneByTask(taskId) {
      const row = stmts.milestoneByTask.get(taskId);
      return row ? milestoneOf(row) : undefined;
    },
    async insertMilestone(goalId, fields, position, at) {
      const { seq, id } = nextMilestone();
      stmts.insertMilestone.run(
        seq,
        id,
        goalId,
        fields.key,
        fields.title,
        fields.description,
        JSON.stringify(fields.proofs),
        JSON.stringify(fields.dependsOn),
        position,
        at,
      );
      return milestoneOf(milestoneById.get(id) as Row);
    },
    async updateMilestone(id, fields, position) {
      stmts.updateMilestone.run(
        fields.key,
        fields.title,
        fields.description,
        JSON.stringify(fields.proofs),
        JSON.stringify(fields.dependsOn),
        position,
        id,
      );
    },
    async deleteMilestone(id) {
      // Its id stays spent: with the highest stored seq alone as the floor, the milestone a
      // re-plan dropped, the last planned, gave its id to the next one planned, so the journal's
      // M-3 named two milestones (PostgreSQL, whose counter remembers, gave the next one M-4).
      const seq = (milestoneById.get(id) as Row | undefined)?.seq;
      if (typeof seq === "number") raiseCounter(db, "goal_milestones", seq);
      stmts.deleteMilestone.run(id);
    },
    async linkMilestoneTask(id, taskId) {
      stmts.linkTask.run(taskId, id);
    },
    async insertProposal(goalId, proof, definition, proposedBy, at) {
      const { seq, id } = nextProposal();
      stmts.insertProposal.run(seq, id, goalId, proof, JSON.stringify(definition), proposedBy, at);
      return proposalOf(proposalById.get(id) as Row);
    },
    async proposal(id) {
      const row = proposalById.get(id);
      return row ? proposalOf(row) : undefined;
    },
    async proposals(goalId) {
      return stmts.proposals.all(goalId).map(proposalOf);
    },
    async decideProposal(id, status, decidedBy, at) {
      stmts.decideProposal.run(status, decidedBy, at, id);
    },
    async insertRun(run) {
      const { seq, id } = nextRun();
      stmts.insertRun.run(
        seq,
        id,
        run.goalId,
        JSON.stringify(run.contract),
        JSON.stringify(run.milestones),
        JSON.stringify(run.manifest),
        run.manifestHash,
        run.createdBy,
        run.createdAt,
      );
      return runOf(runById.get(id) as Row);
    },
    async run(id) {
      const row = runById.get(id);
      return row ? runOf(row) : undefined;
    },
    async runs(goalId) {
      return (goalId ? stmts.runsOfGoal.all(goalId) : stmts.runsAll.all()).map(runOf);
    },
    async insertAttempt(attempt) {
      const { seq, id } = nextAttempt();
      stmts.insertAttempt.run(
        seq,
        id,
        attempt.runId,
        attempt.milestoneId,
        attempt.baseHead,
        attempt.baseDirty ? 1 : 0,
        JSON.stringify(attempt.baseChanges),
        attempt.openedBy,
        attempt.openedAt,
        attempt.checkout,
        attempt.checkoutHost,
        JSON.stringify(attempt.baseHashes),
        attempt.inputsApprovedBy,
      );
      return attemptOf(attemptById.get(id) as Row);
    },
    async attempt(id) {
      const row = attemptById.get(id);
      return row ? attemptOf(row) : undefined;
    },
    async openAttemptIn(checkout, host) {
      const row = stmts.openIn.get(checkout, host);
      return row ? attemptOf(row) : undefined;
    },
    async recordInputDrift(id, paths) {
      const current = attemptOf(attemptById.get(id) as Row).inputDrift;
      stmts.inputDrift.run(JSON.stringify([...new Set([...current, ...paths])].sort()), id);
    },
    async resolveAttempt(id, verdict, resolution) {
      stmts.resolve.run(verdict, JSON.stringify(resolution), id);
    },
    async insertContractChange(change) {
      stmts.insertChange.run(
        change.goalId,
        change.changedBy,
        change.at,
        JSON.stringify(change.fields),
        JSON.stringify(change.before),
        JSON.stringify(change.after),
      );
    },
    async contractChanges(goalId) {
      return stmts.changes.all(goalId).map((row) => ({
        goalId: String(row.goal_id),
        changedBy: String(row.changed_by),
        at: String(row.at),
        fields: JSON.parse(String(row.fields)) as string[],
        before: JSON.parse(String(row.before)),
        after: JSON.parse(String(row.after)),
      }));
    },
    async attempts(runId, page) {
      const rows = page ? stmts.attemptsPaged.all(runId, page.limit, page.offset) : stmts.attempts.all(runId);
      return rows.map(attemptOf);
    },
    async keptAttempts(runId) {
      return stmts.keptAttempts.all(runId).map(attemptOf);
    },
    async attemptPage(runId, page) {
      return stmts.attemptPage.all(runId, page.limit, page.offset).map(attemptSummaryOf);
    },
    async attemptsInReview(runId) {
      return stmts.attemptsInReview.all(runId).map(attemptOf);
    },
    async attemptTally(runId) {
      return tallyOf(stmts.attemptCounts.get(runId), stmts.latestAttempt.get(runId));
    },
    async baselines(runId) {
      return stmts.baselines.all(runId).map((row) => ({
        evaluator: String(row.evaluator),
        attemptId: String(row.attempt_id),
        mean: Number(row.mean),
        noise: Number(row.noise),
        direction: row.direction === "lower" ? ("lower" as const) : ("higher" as const),
      }));
    },
    async raiseBaseline(baseline) {
      stmts.raiseBaseline.run(
        baseline.runId,
        baseline.evaluator,
        baseline.attemptId,
        baseline.mean,
        baseline.noise,
        baseline.direction,
      );
    },
    async keptAttemptForMilestone(milestoneId) {
      const row = stmts.keptForMilestone.get(milestoneId);
      return row ? attemptOf(row) : undefined;
    },
    async attemptsUsingMilestone(milestoneId) {
      return stmts.usingMilestone.get(milestoneId)?.n ?? 0;
    },
    async recordDecision(id, verdict, decision, at) {
      stmts.decide.run(verdict, JSON.stringify(decision), at, id);
    },
    async markReverted(id, at) {
      stmts.revert.run(at, id);
    },
    async insertSample(sample: SampleRecord) {
      stmts.insertSample.run(
        sample.attemptId,
        sample.evaluator,
        sample.proof,
        sample.repeatIndex,
        sample.exitCode,
        sample.value,
        sample.error,
        sample.durationMs,
        sample.outputTail,
        sample.outputHash,
        sample.gitHead,
        sample.at,
        sample.side,
        sample.tree ?? null,
      );
    },
    async samples(attemptId) {
      return stmts.samples.all(attemptId).map(sampleOf);
    },
    async samplesOfAttempts(attemptIds) {
      return attemptIds.flatMap((id) => stmts.samples.all(id).map(sampleOf));
    },
    async insertScoreReport(report: ScoreReportRecord) {
      stmts.insertReport.run(report.attemptId, report.proof, report.score, report.reportedBy, report.at);
    },
    async scoreReports(attemptId) {
      return stmts.reports.all(attemptId).map(
        (row): ScoreReportRecord => ({
          attemptId: String(row.attempt_id),
          proof: String(row.proof),
          score: Number(row.score),
          reportedBy: String(row.reported_by),
          at: String(row.at),
        }),
      );
    },
  };
}
