import { lstatSync, realpathSync } from "node:fs";
import { dirname } from "node:path";
import { z } from "zod";
import { logWarn } from "../../kernel/log.js";
import type { AgentRunRecord } from "../../store/agent-runs.js";
import { type Actor, OWNER } from "../identity/actor.js";
import { loadConfig, type WorkspaceConfig } from "../workspace/config.js";
import { homeWorkspace, type Workspace } from "../workspace/discover.js";
import type { AuditEntry, Severity } from "./chain.js";
import { AuditLog, DEFAULT_MAX_BYTES } from "./log.js";
import { witnessAppend } from "./witness.js";

/**
 * `[audit]` in cairn.toml, built when a log is first opened rather than when the module loads
 * (zod.lazy, as the workspace configuration's roles and shortcuts are): every call loads this
 * module, few write.
 */
const AuditConfig = z.lazy(() =>
  z
    .object({ max_bytes: z.number().int().positive().default(DEFAULT_MAX_BYTES) })
    .default({ max_bytes: DEFAULT_MAX_BYTES }),
);

export function auditConfigOf(config: WorkspaceConfig): z.infer<typeof AuditConfig> {
  const parsed = AuditConfig.safeParse(config.audit);
  return parsed.success ? parsed.data : AuditConfig.parse(undefined);
}

/** Each workspace's audit folder, found once per process. */
const AUDIT_DIRS = new Map<string, string>();

/**
 * Where a workspace's audit log is kept: beside the database whose writes it records. That is the
 * workspace's own state folder, unless its `cairn.db` is a link to another folder's database: a
 * folder made to reach a board through CAIRN_DIR (with a cairn.toml of its own) writes that board,
 * and its lines go to that board's log, where the board's `audit verify` and its witness see them.
 * Kept in the folder's own log, they were missing from the board's, which verified intact.
 */
export function auditDirOf(workspace: Workspace): string {
  let dir = AUDIT_DIRS.get(workspace.stateDir);
  if (dir === undefined) {
    dir = workspace.stateDir;
    try {
      if (lstatSync(workspace.databasePath).isSymbolicLink())
        dir = dirname(realpathSync(workspace.databasePath));
    } catch {
      // No database file (a shared store) or a link to nothing: the workspace's own folder.
    }
    AUDIT_DIRS.set(workspace.stateDir, dir);
  }
  return dir;
}

/**
 * The folders whose witnesses a workspace's log answers to: the log's own, and the workspace's
 * state folder when the log is elsewhere. Named by the log's folder alone, a board whose cairn.db
 * was moved to a folder an agent writes and linked back read a log that folder held, under a
 * witness never written: a log cut or made anew there verified intact.
 */
export function witnessDirsOf(workspace: Workspace): string[] {
  const dir = auditDirOf(workspace);
  return dir === workspace.stateDir ? [dir] : [dir, workspace.stateDir];
}

/** One log per workspace per process: its lock database stays open for the process's life. */
const OPEN = new Map<string, AuditLog>();

export function auditLogOf(workspace: Workspace, config: WorkspaceConfig): AuditLog {
  const dir = auditDirOf(workspace);
  let log = OPEN.get(dir);
  if (!log) {
    log = new AuditLog(dir, { maxBytes: auditConfigOf(config).max_bytes });
    OPEN.set(dir, log);
  }
  return log;
}

export interface AuditScope {
  workspace: Workspace;
  config: WorkspaceConfig;
  actor: Actor;
  /** Where the machine's witness is kept (CAIRN_HOME): each append moves it to the new head. */
  env?: NodeJS.ProcessEnv;
}

export const actorLabel = (actor: Actor) => (actor.isOwner ? "owner" : `${actor.id}:${actor.name}`);

/**
 * Append one event as the caller. `settles`: the pending record of the call this line ends (see
 * pending.ts), removed as soon as the line is written, under the log's lock.
 */
export function audit(
  scope: AuditScope,
  severity: Severity,
  event: string,
  data: Record<string, unknown>,
  settles?: string,
): AuditEntry {
  const { env, workspace } = scope;
  return auditLogOf(workspace, scope.config).append(
    { severity, event, actor: actorLabel(scope.actor), data },
    env
      ? (entry, descends) => {
          for (const dir of witnessDirsOf(workspace))
            witnessAppend(homeWorkspace(env).stateDir, dir, entry, descends);
        }
      : undefined,
    settles,
  );
}

/**
 * A local agent's run as it ended, by whoever recorded its end: its daemon, or the sweep that
 * found its supervisor dead. A run that failed or was cut short is a notice.
 */
export function auditRunEnd(scope: AuditScope, run: AgentRunRecord): AuditEntry {
  return audit(scope, run.status === "ok" ? "info" : "notice", "agent.run", {
    run: run.id,
    agent: run.agent,
    schedule: run.schedule,
    trigger: run.trigger,
    status: run.status,
    exit_code: run.exitCode,
  });
}

/** Before a write: refuse unless its audit line can be appended (see AuditLog.assertWritable). */
export function assertAuditable(scope: Pick<AuditScope, "workspace" | "config">): void {
  auditLogOf(scope.workspace, scope.config).assertWritable();
}

/**
 * The first line of a workspace's log: the workspace was made by `init` or `import` (the owner's
 * commands that run before any workspace exists, so no call's audit covers them). An import's
 * line says how many rows it restored: the log of a restored workspace starts there, not at its
 * first later write as though it had begun empty.
 */
export function auditWorkspaceMade(
  workspace: Workspace,
  command: "init" | "import",
  data: Record<string, unknown>,
  env?: NodeJS.ProcessEnv,
): void {
  try {
    const scope = { workspace, config: loadConfig(workspace.configPath), actor: OWNER, env };
    audit(scope, "notice", "command", { command, effect: "write", ...data, outcome: "ok" });
  } catch (error) {
    // The workspace is made: a log that cannot take the line is said, not made a failed command.
    logWarn(`${command}: the audit log did not take its line: ${(error as Error).message}`);
  }
}
