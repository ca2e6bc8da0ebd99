/**
 * Repos of the local-agents domain: every run of a local agent (scheduled, retried or triggered
 * from MCP or the CLI), the windows the daemon marked given up or stale, and when the daemon
 * first saw each schedule. Asynchronous and SQL-free like every repo.
 */

export type RunTrigger = "schedule" | "mcp" | "cli" | "remediation";
export type RunStatus = "running" | "ok" | "failed" | "timed_out" | "cancelled" | "interrupted" | "skipped";

export interface AgentRunRecord {
  id: string;
  agent: string;
  schedule: string;
  trigger: RunTrigger;
  /** The scheduled window this attempt serves; null for a triggered run (it serves no window). */
  windowAt: string | null;
  status: RunStatus;
  exitCode: number | null;
  startedAt: string;
  finishedAt: string | null;
  durationMs: number | null;
  /** The agent's process (its group id); the supervisor is the cairn process running it. */
  pid: number | null;
  supervisorPid: number;
  /** The machine the supervisor runs on (kernel/machine.ts: its host name, and its install's digest); null for runs recorded before it was. */
  supervisorHost: string | null;
  /**
   * When the supervisor started, on its machine (processStart in kernel/processes.ts): with
   * the pid, it names the process, since a pid is reused. Null where it cannot be read, and for
   * runs recorded before it was.
   */
  supervisorStart: string | null;
  manifestPath: string;
  manifestHash: string;
  logPath: string | null;
  stderrTail: string;
  /** Why it did not run or did not finish on its own (a preflight, a timeout, a stop). */
  reason: string | null;
  /** The cairn agent minted for this run (`[cairn] identity`), retired when it ends. */
  identity: string | null;
  /**
   * When its supervisor, if it lives, will have ended the run and written so (its timeouts and a
   * margin): past it, another machine's run is lost. Null for runs recorded before deadlines.
   */
  deadlineAt: string | null;
}

export type NewAgentRun = Pick<
  AgentRunRecord,
  | "agent"
  | "schedule"
  | "trigger"
  | "windowAt"
  | "supervisorPid"
  | "supervisorHost"
  | "supervisorStart"
  | "deadlineAt"
  | "manifestPath"
  | "manifestHash"
  | "logPath"
  | "identity"
> & { status?: RunStatus; reason?: string | null };

export interface RunEnd {
  status: Exclude<RunStatus, "running">;
  exitCode: number | null;
  finishedAt: string;
  durationMs: number | null;
  stderrTail: string;
  reason: string | null;
  logPath?: string | null;
}

export interface AgentRunsRepo {
  start(run: NewAgentRun, at: string): Promise<AgentRunRecord>;
  setPid(id: string, pid: number): Promise<void>;
  /** The cairn agent minted for the run, so whoever finds the run orphaned can retire it. */
  setIdentity(id: string, agentId: string): Promise<void>;
  /** Whether it ended the run: false when its end was written already (by its supervisor, or a reaper). */
  finish(id: string, end: RunEnd): Promise<boolean>;
  /**
   * Name a run's log where its row names none: the supervisor of a run a reaper ended first (its
   * machine taken for lost) keeps the row's end, but its log is on this machine all the same.
   */
  keepLog(id: string, logPath: string): Promise<void>;
  byId(id: string): Promise<AgentRunRecord | undefined>;
  /** Newest first; one agent's when named. */
  recent(options: { agent?: string; limit: number }): Promise<AgentRunRecord[]>;
  /** Scheduled runs of one schedule whose window is at or after `since`, oldest first. */
  scheduled(agent: string, schedule: string, since: string): Promise<AgentRunRecord[]>;
  /** The newest scheduled run of a schedule that ended ok. */
  lastScheduledOk(agent: string, schedule: string): Promise<AgentRunRecord | undefined>;
  /** The newest triggered run of an agent. */
  lastTriggered(agent: string): Promise<AgentRunRecord | undefined>;
  running(): Promise<AgentRunRecord[]>;
}

export type WindowMark = "given_up" | "stale";

export interface AgentWindowsRepo {
  /** Record a window's terminal mark once; false when it was already marked. */
  mark(agent: string, schedule: string, windowAt: string, mark: WindowMark, at: string): Promise<boolean>;
  marks(agent: string, schedule: string, since: string): Promise<{ windowAt: string; mark: WindowMark }[]>;
  /** When the daemon first saw a schedule (windows before it never count as missed). */
  firstSeen(agent: string, schedule: string): Promise<string | undefined>;
  seen(agent: string, schedule: string, at: string): Promise<boolean>;
}
