/**
 * The JSON the views read: the output of the read commands (`cairn now --json` and friends),
 * written down for the front end. Only the fields the pages use.
 */

export interface TaskSummary {
  id: string;
  title: string;
  status: string;
  priority: string;
  owner: string | null;
}

export interface JournalEvent {
  id: number;
  at: string;
  actor: string;
  action: string;
  subject: string;
  data?: Record<string, unknown>;
}

export interface NowView {
  as_of: string;
  lease_minutes: number;
  counts: Record<string, number>;
  inbox: {
    review: { attempt: string; run: string; goal: string; reason: string }[];
    blocked: { id: string; title: string; why: string }[];
    stale_claims: { id: string; owner: string; lease_at: string }[];
    open_asks: { id: string; task: string; asked_by: string; to: string; question: string }[];
    open_asks_total: number;
    unverified: string[];
    unverified_total: number;
  };
  ready: TaskSummary[];
  claims: (TaskSummary & { claimed_at: string | null; lease_at: string | null; stale: boolean })[];
  goals: {
    id: string;
    goal: string;
    runs: number;
    attempts: number;
    kept: number;
    in_review: number;
    latest: { attempt: string; verdict: string | null } | null;
  }[];
  goals_total: number;
  activity: JournalEvent[];
}

export interface Card extends TaskSummary {
  lease_at: string | null;
  blocked_reason: string | null;
  unverified: boolean;
  criteria: { total: number; verified: number; claimed: number };
  depends_on: { id: string; status: string }[];
}

export interface BoardView {
  columns: { status: string; total: number; cards: Card[] }[];
}

export interface TaskList {
  tasks: TaskSummary[];
  total: number;
  next_offset: number | null;
}

export interface Evidence {
  argv: string[];
  exit_code: number | null;
  signal: string | null;
  timed_out: boolean;
  duration_ms: number;
  output_bytes: number;
  output_tail: string;
  output_sha256: string;
  git_head: string | null;
  error: string | null;
  at: string;
}

export interface TaskDetail {
  task: TaskSummary & {
    parent: string | null;
    labels: string[];
    so_that: string;
    context: string;
    milestone: string | null;
    blocked_reason: string | null;
    unverified: boolean;
    claimed_at: string | null;
    created_by: string;
    created_at: string;
    traces: string[];
  };
  criteria: {
    n: number;
    text: string;
    verify: string[] | null;
    shortcut: string | null;
    checked: boolean;
    checked_by: string | null;
    checked_at: string | null;
    evidence: Evidence | null;
    /** Who added it; null when added before cairn kept it. */
    added_by: string | null;
    /** Whether a pass of its command makes the finish verified (cairn decides: not a check its holder set). */
    verifies_done: boolean;
    /** Why a tick no longer holds for the checkout now (an unfinished task's). */
    stale?: string;
  }[];
  /** Changes of cairn.toml's rules first seen since it was added (to its finish), newest first. */
  rules_changed_since_added?: {
    at: string;
    sections: string[];
    /** How many sections it changed in all, when more than are named. */
    sections_total?: number;
    first_seen_in_call_of: string;
    machine?: string;
  }[];
  /** More changes were first seen in that span than are listed. */
  rules_changed_more?: boolean;
  depends_on: TaskSummary[];
  dependents: TaskSummary[];
  children: TaskSummary[];
  open_asks: { id: string; question: string; asked_by: string; to: string }[];
  notes: { at: string; author: string; kind: string; text: string }[];
}

export interface GoalList {
  goals: { id: string; goal: string; proofs: string[]; open: number; updated_at: string }[];
  total: number;
  next_offset: number | null;
}

export interface GoalShow {
  goal: {
    id: string;
    goal: string;
    outcome: string | null;
    constraints: string[];
    non_goals: string[];
    proofs: {
      name: string;
      direction: string;
      threshold: number | null;
      manual: boolean;
      description: string;
    }[];
    created_at: string;
  };
  milestones: {
    id: string;
    key: string;
    title: string;
    proofs: string[];
    depends_on: string[];
    task_id: string | null;
  }[];
  runs: { id: string; manifest_hash: string; created_at: string }[];
  to_fill_in: string[];
}

export interface ProgressPoint {
  attempt: string;
  opened_at: string;
  verdict: "keep" | "revert" | "review" | null;
  reverted: boolean;
  value: number | null;
  noise: number;
  repeats: number;
  failed_repeats: number;
  best: number | null;
  gain: number | null;
  gain_in_noise: number | null;
  reason: string | null;
}

export interface Series {
  evaluator: string;
  proof: string;
  hidden: boolean;
  direction: "higher" | "lower";
  threshold: number | null;
  baseline: { mean: number; noise: number; attempt: string } | null;
  points: ProgressPoint[];
}

export interface Progress {
  goal_id: string;
  run: { id: string; manifest_hash: string; created_at: string } | null;
  runs: string[];
  attempts: number;
  kept: number;
  /** The newest attempts charted, when fewer than all. */
  charted: number;
  series: Series[];
}

export interface RunStatus {
  run: {
    id: string;
    goal_id: string;
    manifest_hash: string;
    evaluators: {
      name: string;
      proof: string;
      hash: string;
      hidden: boolean;
      argv: string[] | null;
      repeats: number;
    }[];
    created_at: string;
  };
  drift: string[];
  attempts: {
    id: string;
    milestone_id: string | null;
    opened_by: string;
    opened_at: string;
    verdict: string | null;
    reverted: boolean;
  }[];
  /** The ledger's length: `attempts` holds its newest page. */
  attempts_total: number;
  offset: number;
}

export interface AttemptShow {
  attempt: {
    id: string;
    run_id: string;
    milestone_id: string | null;
    base_head: string | null;
    base_dirty: boolean;
    base_changes: string[];
    opened_by: string;
    opened_at: string;
    verdict: string | null;
    decided_at: string | null;
    reverted_at: string | null;
  };
  samples: {
    evaluator: string;
    proof: string;
    hidden: boolean;
    repeat: number;
    exit_code: number | null;
    value: number | null;
    error: string | null;
    duration_ms: number;
    output_tail: string | null;
    git_head: string | null;
  }[];
  decision: {
    verdict: string;
    reasons: string[];
    proofs: { name: string; required: boolean; source: string; passed: boolean; score: number }[];
    kept_commit: string | null;
  } | null;
}

export interface ReviewView {
  attempts: { attempt: string; run: string; goal: string; reason: string; decided_at: string | null }[];
  unverified: { id: string; title: string; owner: string | null }[];
}

export interface ActivityView {
  events: JournalEvent[];
  next_before: number | null;
}

export interface SystemView {
  cairn: string;
  protocol: string;
  node: string;
  schema: number;
  workspace: string;
  database: string;
  database_bytes: number;
  data_version: number;
  last_event: { id: number; at: string; action: string } | null;
}

export interface AgentList {
  agents: {
    id: string;
    name: string;
    role: string;
    grant: string;
    parent: string | null;
    retired_at: string | null;
  }[];
}

/** `cairn agents status --json`: every local agent × schedule, with its health and why. */
export interface AgentsStatusView {
  daemon: { running: boolean; pid: number | null; beat_at: string | null; next_event_at: string | null };
  counts: Record<"ok" | "degraded" | "failing" | "stale" | "never_ran", number>;
  schedules: {
    agent: string;
    schedule: string;
    kind: string;
    state: "ok" | "degraded" | "failing" | "stale" | "never_ran";
    reason: string;
    last_run: { id: string; status: string; exit_code: number | null; started_at: string } | null;
    next_window_at: string | null;
  }[];
  triggered: {
    id: string;
    agent: string;
    trigger: string;
    status: string;
    exit_code: number | null;
    started_at: string;
  }[];
  problems: { file: string; reason: string }[];
}
