import { spine } from "../../sqlite/migrations/0001_spine.js";
import { tasks } from "../../sqlite/migrations/0002_tasks.js";
import { knowledge } from "../../sqlite/migrations/0003_knowledge.js";
import { goals } from "../../sqlite/migrations/0004_goals.js";
import { gates } from "../../sqlite/migrations/0005_gates.js";
import { identity } from "../../sqlite/migrations/0006_identity.js";
import { agents } from "../../sqlite/migrations/0007_agents.js";
import { readPaths } from "../../sqlite/migrations/0009_read_paths.js";
import { briefReads } from "../../sqlite/migrations/0010_brief_reads.js";
import { runHosts } from "../../sqlite/migrations/0011_run_hosts.js";
import { runSupervisorStarts } from "../../sqlite/migrations/0012_run_supervisor_starts.js";
import { sampleTrees } from "../../sqlite/migrations/0013_sample_trees.js";
import { supersededNorms } from "../../sqlite/migrations/0014_superseded_norms.js";
import { criterionSettings } from "../../sqlite/migrations/0015_criterion_settings.js";
import { criterionShortcuts } from "../../sqlite/migrations/0016_criterion_shortcuts.js";
import { attemptHosts } from "../../sqlite/migrations/0017_attempt_hosts.js";
import { shortcutHeads } from "../../sqlite/migrations/0018_shortcut_heads.js";
import { criterionAuthors } from "../../sqlite/migrations/0019_criterion_authors.js";
import { trustSetters } from "../../sqlite/migrations/0020_trust_setters.js";
import { unverifiedDone } from "../../sqlite/migrations/0021_unverified_done.js";
import { runDeadlines } from "../../sqlite/migrations/0022_run_deadlines.js";
import { riskClosing } from "../../sqlite/migrations/0023_risk_closing.js";
import { noteSuperseding } from "../../sqlite/migrations/0024_note_superseding.js";
import { FACTS_SEARCH } from "./facts-search.js";
import { PG_BULK_TERMS } from "./pg-bulk-terms.js";
import { PG_COUNTER_STATEMENTS } from "./pg-counter-statements.js";
import { PG_DEFERRABLE_REFERENCES } from "./pg-deferrable-references.js";
import { PG_LONG_KEYS } from "./pg-long-keys.js";
import { PG_NUL_WORDS } from "./pg-nul-words.js";
import { JOURNAL_GUARDS, PLUMBING } from "./plumbing.js";
import { fromSqlite } from "./translate.js";

/**
 * The PostgreSQL twin of ../../sqlite/migrations: the same names in the same order (the ledgers
 * must agree, and a test checks it), each built from the SQLite migration's own DDL. Porting a
 * new SQLite migration is one line here; only triggers and FTS tables need hand-written SQL,
 * and `fromSqlite` refuses to skip them unless they are listed in `handPorted`.
 */
export interface PgMigration {
  name: string;
  /** The schema's unaccent dictionary (or null when the server has none) decides the FTS setup. */
  sql: (env: { unaccent: string | null }) => string;
  /**
   * A PostgreSQL-only step (named `pg_NNNN_…`): not in the SQLite ledger, and not counted in the
   * schema version that exports carry, so exports still move between the two stores.
   */
  pgOnly?: true;
}

export const PG_MIGRATIONS: readonly PgMigration[] = [
  {
    name: spine.name,
    sql: () =>
      PLUMBING +
      fromSqlite(spine.sql, { handPorted: ["events_no_update", "events_no_delete"] }) +
      JOURNAL_GUARDS,
  },
  { name: tasks.name, sql: () => fromSqlite(tasks.sql) },
  {
    name: knowledge.name,
    sql: (env) =>
      fromSqlite(knowledge.sql, {
        handPorted: [
          "facts_fts",
          "facts_fts_insert",
          "facts_fts_delete",
          "facts_fts_update",
          "facts_fts_supersede",
        ],
      }) + FACTS_SEARCH(env.unaccent),
  },
  { name: goals.name, sql: () => fromSqlite(goals.sql) },
  { name: gates.name, sql: () => fromSqlite(gates.sql) },
  { name: identity.name, sql: () => fromSqlite(identity.sql) },
  { name: agents.name, sql: () => fromSqlite(agents.sql) },
  { name: readPaths.name, sql: () => fromSqlite(readPaths.sql) },
  { name: briefReads.name, sql: () => fromSqlite(briefReads.sql) },
  { name: "pg_0100_bulk_terms", sql: () => PG_BULK_TERMS, pgOnly: true },
  { name: runHosts.name, sql: () => fromSqlite(runHosts.sql) },
  { name: runSupervisorStarts.name, sql: () => fromSqlite(runSupervisorStarts.sql) },
  { name: sampleTrees.name, sql: () => fromSqlite(sampleTrees.sql) },
  { name: "pg_0101_long_keys", sql: () => PG_LONG_KEYS, pgOnly: true },
  { name: "pg_0102_nul_words", sql: () => PG_NUL_WORDS, pgOnly: true },
  {
    // A hash index, not the translated btree: a normal form can pass a btree entry's size bound
    // (see pg-long-keys.ts).
    name: supersededNorms.name,
    sql: () =>
      "CREATE INDEX facts_superseded_norm ON facts USING hash (norm) WHERE superseded_by IS NOT NULL;",
  },
  { name: criterionSettings.name, sql: () => fromSqlite(criterionSettings.sql) },
  { name: criterionShortcuts.name, sql: () => fromSqlite(criterionShortcuts.sql) },
  { name: "pg_0103_counter_statements", sql: () => PG_COUNTER_STATEMENTS, pgOnly: true },
  { name: attemptHosts.name, sql: () => fromSqlite(attemptHosts.sql) },
  {
    // Nothing to build: PostgreSQL keeps a long command out of its row (TOAST), so a shortcut's
    // heads read without touching it. Counted all the same, as the schema version both share.
    // (The translated index would also bound a shortcut's roles by a btree entry's size.)
    name: shortcutHeads.name,
    sql: () => "SELECT 1;",
  },
  { name: criterionAuthors.name, sql: () => fromSqlite(criterionAuthors.sql) },
  { name: trustSetters.name, sql: () => fromSqlite(trustSetters.sql) },
  { name: "pg_0104_deferrable_references", sql: () => PG_DEFERRABLE_REFERENCES, pgOnly: true },
  { name: unverifiedDone.name, sql: () => fromSqlite(unverifiedDone.sql) },
  { name: runDeadlines.name, sql: () => fromSqlite(runDeadlines.sql) },
  { name: riskClosing.name, sql: () => fromSqlite(riskClosing.sql) },
  { name: noteSuperseding.name, sql: () => fromSqlite(noteSuperseding.sql) },
];

/** The migrations both stores share: their count is the schema version an export carries. */
export const SHARED_PG_MIGRATIONS = PG_MIGRATIONS.filter((migration) => !migration.pgOnly);
