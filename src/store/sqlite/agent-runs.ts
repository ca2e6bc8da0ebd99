import type Database from "better-sqlite3";
import type { AgentRunRecord, AgentRunsRepo, AgentWindowsRepo, WindowMark } from "../agent-runs.js";
import { shortIds } from "./short-ids.js";

export interface RunRow {
  id: string;
  agent: string;
  schedule: string;
  trigger: AgentRunRecord["trigger"];
  window_at: string | null;
  status: AgentRunRecord["status"];
  exit_code: number | null;
  started_at: string;
  finished_at: string | null;
  duration_ms: number | null;
  pid: number | null;
  supervisor_pid: number;
  supervisor_host: string | null;
  supervisor_start: string | null;
  manifest_path: string;
  manifest_hash: string;
  log_path: string | null;
  stderr_tail: string;
  reason: string | null;
  identity: string | null;
  deadline_at: string | null;
}

export const toRun = (row: RunRow): AgentRunRecord => ({
  id: row.id,
  agent: row.agent,
  schedule: row.schedule,
  trigger: row.trigger,
  windowAt: row.window_at,
  status: row.status,
  exitCode: row.exit_code,
  startedAt: row.started_at,
  finishedAt: row.finished_at,
  durationMs: row.duration_ms,
  pid: row.pid,
  supervisorPid: row.supervisor_pid,
  supervisorHost: row.supervisor_host,
  supervisorStart: row.supervisor_start,
  manifestPath: row.manifest_path,
  manifestHash: row.manifest_hash,
  logPath: row.log_path,
  stderrTail: row.stderr_tail,
  reason: row.reason,
  identity: row.identity,
  deadlineAt: row.deadline_at,
});

export function sqliteAgentRuns(db: Database.Database): AgentRunsRepo {
  const nextId = shortIds(db, "agent_runs", "AR");
  const insert = db.prepare(
    `INSERT INTO agent_runs (seq, id, agent, schedule, trigger, window_at, status, started_at, supervisor_pid,
       supervisor_host, supervisor_start, manifest_path, manifest_hash, log_path, identity, reason, finished_at, deadline_at)
     VALUES (@seq, @id, @agent, @schedule, @trigger, @window_at, @status, @started_at, @supervisor_pid,
       @supervisor_host, @supervisor_start, @manifest_path, @manifest_hash, @log_path, @identity, @reason, @finished_at, @deadline_at)`,
  );
  const byId = db.prepare<[string], RunRow>("SELECT * FROM agent_runs WHERE id = ?");
  const setPid = db.prepare("UPDATE agent_runs SET pid = ? WHERE id = ?");
  const setIdentity = db.prepare("UPDATE agent_runs SET identity = ? WHERE id = ?");
  const keepLog = db.prepare("UPDATE agent_runs SET log_path = ? WHERE id = ? AND log_path IS NULL");
  const finish = db.prepare(
    `UPDATE agent_runs SET status = @status, exit_code = @exit_code, finished_at = @finished_at,
       duration_ms = @duration_ms, stderr_tail = @stderr_tail, reason = @reason,
       log_path = COALESCE(@log_path, log_path)
     WHERE id = @id AND status = 'running'`,
  );
  const recentAll = db.prepare<[number], RunRow>("SELECT * FROM agent_runs ORDER BY seq DESC LIMIT +?");
  const recentOne = db.prepare<[string, number], RunRow>(
    "SELECT * FROM agent_runs WHERE agent = ? ORDER BY seq DESC LIMIT +?",
  );
  const scheduled = db.prepare<[string, string, string], RunRow>(
    "SELECT * FROM agent_runs WHERE agent = ? AND schedule = ? AND window_at IS NOT NULL AND window_at >= ? ORDER BY seq",
  );
  const lastOk = db.prepare<[string, string], RunRow>(
    "SELECT * FROM agent_runs WHERE agent = ? AND schedule = ? AND trigger = 'schedule' AND status = 'ok' ORDER BY seq DESC LIMIT 1",
  );
  const lastTriggered = db.prepare<[string], RunRow>(
    "SELECT * FROM agent_runs WHERE agent = ? AND trigger IN ('mcp', 'cli') ORDER BY seq DESC LIMIT 1",
  );
  const running = db.prepare<[], RunRow>("SELECT * FROM agent_runs WHERE status = 'running' ORDER BY seq");
  return {
    async start(run, at) {
      const { seq, id } = nextId();
      const status = run.status ?? "running";
      insert.run({
        seq,
        id,
        agent: run.agent,
        schedule: run.schedule,
        trigger: run.trigger,
        window_at: run.windowAt,
        status,
        started_at: at,
        supervisor_pid: run.supervisorPid,
        supervisor_host: run.supervisorHost,
        supervisor_start: run.supervisorStart,
        manifest_path: run.manifestPath,
        manifest_hash: run.manifestHash,
        log_path: run.logPath,
        identity: run.identity,
        reason: run.reason ?? null,
        finished_at: status === "running" ? null : at,
        deadline_at: run.deadlineAt,
      });
      return toRun(byId.get(id) as RunRow);
    },
    async setPid(id, pid) {
      setPid.run(pid, id);
    },
    async setIdentity(id, agentId) {
      setIdentity.run(agentId, id);
    },
    async finish(id, end) {
      const { changes } = finish.run({
        id,
        status: end.status,
        exit_code: end.exitCode,
        finished_at: end.finishedAt,
        duration_ms: end.durationMs,
        stderr_tail: end.stderrTail,
        reason: end.reason,
        log_path: end.logPath ?? null,
      });
      return changes > 0;
    },
    async keepLog(id, logPath) {
      keepLog.run(logPath, id);
    },
    async byId(id) {
      const row = byId.get(id);
      return row ? toRun(row) : undefined;
    },
    async recent({ agent, limit }) {
      return (agent === undefined ? recentAll.all(limit) : recentOne.all(agent, limit)).map(toRun);
    },
    async scheduled(agent, schedule, since) {
      return scheduled.all(agent, schedule, since).map(toRun);
    },
    async lastScheduledOk(agent, schedule) {
      const row = lastOk.get(agent, schedule);
      return row ? toRun(row) : undefined;
    },
    async lastTriggered(agent) {
      const row = lastTriggered.get(agent);
      return row ? toRun(row) : undefined;
    },
    async running() {
      return running.all().map(toRun);
    },
  };
}

export function sqliteAgentWindows(db: Database.Database): AgentWindowsRepo {
  const mark = db.prepare(
    "INSERT INTO agent_windows (agent, schedule, window_at, mark, marked_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
  );
  const marks = db.prepare<[string, string, string], { window_at: string; mark: WindowMark }>(
    "SELECT window_at, mark FROM agent_windows WHERE agent = ? AND schedule = ? AND window_at >= ? ORDER BY window_at",
  );
  const firstSeen = db.prepare<[string, string], { first_seen_at: string }>(
    "SELECT first_seen_at FROM agent_schedules_seen WHERE agent = ? AND schedule = ?",
  );
  const seen = db.prepare(
    "INSERT INTO agent_schedules_seen (agent, schedule, first_seen_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
  );
  return {
    async mark(agent, schedule, windowAt, kind, at) {
      return mark.run(agent, schedule, windowAt, kind, at).changes > 0;
    },
    async marks(agent, schedule, since) {
      return marks.all(agent, schedule, since).map((row) => ({ windowAt: row.window_at, mark: row.mark }));
    },
    async firstSeen(agent, schedule) {
      return firstSeen.get(agent, schedule)?.first_seen_at;
    },
    async seen(agent, schedule, at) {
      return seen.run(agent, schedule, at).changes > 0;
    },
  };
}
