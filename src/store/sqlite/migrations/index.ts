import { spine } from "./0001_spine.js";
import { tasks } from "./0002_tasks.js";
import { knowledge } from "./0003_knowledge.js";
import { goals } from "./0004_goals.js";
import { gates } from "./0005_gates.js";
import { identity } from "./0006_identity.js";
import { agents } from "./0007_agents.js";
import { readPaths } from "./0009_read_paths.js";
import { briefReads } from "./0010_brief_reads.js";
import { runHosts } from "./0011_run_hosts.js";
import { runSupervisorStarts } from "./0012_run_supervisor_starts.js";
import { sampleTrees } from "./0013_sample_trees.js";
import { supersededNorms } from "./0014_superseded_norms.js";
import { criterionSettings } from "./0015_criterion_settings.js";
import { criterionShortcuts } from "./0016_criterion_shortcuts.js";
import { attemptHosts } from "./0017_attempt_hosts.js";
import { shortcutHeads } from "./0018_shortcut_heads.js";
import { criterionAuthors } from "./0019_criterion_authors.js";
import { trustSetters } from "./0020_trust_setters.js";
import { unverifiedDone } from "./0021_unverified_done.js";
import { runDeadlines } from "./0022_run_deadlines.js";
import { riskClosing } from "./0023_risk_closing.js";
import { noteSuperseding } from "./0024_note_superseding.js";
import type { Migration } from "./migration.js";

/**
 * Versioned schema changes, applied in order, each recorded by name. A database that records a
 * name this build does not know was written by a newer cairn and is refused, never touched.
 * New domains append here; never edit a migration that has shipped.
 */
export const MIGRATIONS: readonly Migration[] = [
  spine,
  tasks,
  knowledge,
  goals,
  gates,
  identity,
  agents,
  readPaths,
  briefReads,
  runHosts,
  runSupervisorStarts,
  sampleTrees,
  supersededNorms,
  criterionSettings,
  criterionShortcuts,
  attemptHosts,
  shortcutHeads,
  criterionAuthors,
  trustSetters,
  unverifiedDone,
  runDeadlines,
  riskClosing,
  noteSuperseding,
];

/**
 * Tables whose rows are the workspace's content, in dependency order (parents first).
 * Export, import and status walk this list; derived tables (indexes, FTS) stay out of it.
 */
export const CONTENT_TABLES: readonly string[] = [
  "meta",
  "agents",
  "events",
  "goals",
  "goal_milestones",
  "goal_evaluator_proposals",
  "goal_runs",
  "goal_attempts",
  "goal_baselines",
  "goal_samples",
  "goal_score_reports",
  "goal_contract_changes",
  "notes",
  "facts",
  "risks",
  "glossary",
  "briefs",
  "tasks",
  "task_criteria",
  "task_dependencies",
  "task_notes",
  "task_asks",
  "queues",
  "queue_keys",
  "shortcuts",
  "agent_runs",
  "agent_windows",
  "agent_schedules_seen",
];
