import { mkdtempSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { setTimeout as pause } from "node:timers/promises";
import { os } from "../../kernel/builtins.js";
import { runChild } from "../../kernel/child.js";
import { childEnv } from "../../kernel/child-env.js";
import { codePathsOutside, pathOutside } from "../../kernel/inside.js";
import { conflict, operational, usageError } from "../../kernel/outcome.js";
import { type ProgressSink, runProgress } from "../../kernel/progress.js";
import { credentialValues, SecretMask } from "../../kernel/secret-mask.js";
import { storeAccess, storeSecrets } from "../../kernel/store-access.js";
import { plainOrQuoted, quoteValue } from "../../kernel/text.js";
import { STOPPING, stopCauseOf, untilStopped } from "../../kernel/until-stopped.js";
import type { AgentRunRecord, RunStatus, RunTrigger, Store, Tx } from "../../store/store.js";
import {
  identityFor,
  mintRunIdentityFor,
  type RunIdentity,
  retireRunAgent,
} from "../identity/run-identity.js";
import { releaseClaimsOf } from "../tasks/sweep.js";
import type { Workspace } from "../workspace/discover.js";
import { checkIdentityEnabled, type EnabledRun, startEnabledRun } from "./identity-enabling.js";
import { RunLog, STDERR_TAIL_BYTES, STDOUT_TAIL_BYTES, Tail } from "./logs.js";
import { type LoadedAgent, triggerSchedule } from "./manifest.js";
import { killRunLeftovers, runMarks, runTempPrefix, thisSupervisor } from "./orphans.js";
import { runPreflights } from "./preflight.js";

export interface RunRequest {
  agent: LoadedAgent;
  schedule?: string;
  /** Appended after the manifest's and the schedule's own args. */
  args?: readonly string[];
  trigger: RunTrigger;
  /** The window a scheduled attempt serves (ISO); triggered runs serve none. */
  windowAt?: string;
  store: Store;
  workspace: Workspace;
  /** The environment the run inherits from (the caller's; credentials are stripped). */
  env: NodeJS.ProcessEnv;
  actorId: string;
  now: () => string;
  signal?: AbortSignal;
  progress?: ProgressSink;
  /**
   * Asked in the transaction that starts the run whether it may still start (why not, if not):
   * a window another supervisor of the workspace started a moment ago is not run twice.
   */
  admit?: (tx: Tx) => Promise<string | undefined>;
  /** Told the run's row id once it exists (the daemon tracks what it supervises). */
  onStart?: (run: AgentRunRecord) => void;
}

export interface RunResult {
  run: AgentRunRecord;
  stdout: string;
  stderrTail: string;
  outputBytes: number;
}

const LOCALES = ["LC_ALL", "LC_CTYPE", "LANG"];

/**
 * The environment of one run: inherited (unless `inherit = false`), then `[env] extra`, then what
 * cairn injects, which neither the manifest nor a caller can override. The caller's identity
 * never passes; a minted run identity does, as the run's own `CAIRN_AGENT`.
 */
export function runEnvironment(
  request: RunRequest,
  injected: Record<string, string>,
  identity: RunIdentity | undefined,
  /** The manifest's `[env] extra` as this run reads it (an enabled run's, into its copy). */
  extra: Readonly<Record<string, string>> = request.agent.manifest.env.extra,
): NodeJS.ProcessEnv {
  const manifest = request.agent.manifest;
  // One pass of the shared credential filter over inherited and extra alike: a manifest's
  // `[env] extra` cannot hand a child any cairn credential either.
  const env = childEnv({ ...(manifest.env.inherit ? request.env : {}), ...extra });
  // A PATH the manifest declares is the operator's, read from the agent's own folder: as written.
  if (extra.PATH !== undefined) env.PATH = extra.PATH;
  // The PATH it inherits is kept outside the project for a run acting on the board as itself, as a
  // skill script's is: `npx` puts node_modules/.bin first, where any writer of the project planted
  // the program the manifest names (`sh`, `node`), which then ran with the minted token.
  else if (identity && request.workspace.kind === "project" && env.PATH !== undefined)
    env.PATH = pathOutside(env.PATH, [request.workspace.root]);
  // So are the folders it inherits to load code from (NODE_PATH, PYTHONPATH…), but for those the
  // manifest declares.
  if (identity && request.workspace.kind === "project")
    codePathsOutside(env, [request.workspace.root], Object.keys(extra));
  if (!LOCALES.some((name) => env[name]))
    env.LC_CTYPE = process.platform === "darwin" ? "en_US.UTF-8" : "C.UTF-8";
  Object.assign(env, injected);
  // A run acting on the board as itself reaches the store as the caller does, password and all.
  if (identity) Object.assign(env, storeAccess(request.env), { CAIRN_AGENT: identity.token });
  return env;
}

/** Pauses before the end of a run is written again, after a write that failed. */
const END_RETRY_PAUSES_MS = [100, 500];

/** A run stopped by its supervisor's stop (SIGTERM, Ctrl-C: no verdict on the agent) or cancelled. */
const stoppedStatus = (signal?: AbortSignal) => (signal?.reason === STOPPING ? "interrupted" : "cancelled");

function statusOf(
  result: Awaited<ReturnType<typeof runChild>>,
  signal?: AbortSignal,
): Exclude<RunStatus, "running"> {
  if (result.timedOut) return "timed_out";
  if (result.cancelled) return stoppedStatus(signal);
  return result.exitCode === 0 && result.error === null ? "ok" : "failed";
}

/**
 * Write a run's end, tried again after a failure (a lost connection, a lock held past the busy
 * timeout): a row left running while its supervisor lives holds its schedule's window, and its
 * audited start its missing end, until that supervisor ends.
 */
export async function writeEnd(store: Store, end: (tx: Tx) => Promise<void>): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await store.write(end);
      return;
    } catch (error) {
      if (attempt >= END_RETRY_PAUSES_MS.length) throw error;
      await pause(END_RETRY_PAUSES_MS[attempt]);
    }
  }
}

/** The longest a run can take before its supervisor kills it: its preflights, one after another, then the agent. */
const runLimitMs = (agent: RunRequest["agent"]) =>
  (agent.manifest.preflight.reduce((sum, preflight) => sum + preflight.timeout_seconds, 0) +
    agent.manifest.agent.timeout_seconds) *
  1000;

/** Run one agent once, supervised, recorded as a row whatever happens to it. */
export async function runAgent(request: RunRequest): Promise<RunResult> {
  const { agent, store, workspace } = request;
  const schedule = triggerSchedule(agent, request.schedule);
  if (!schedule) {
    const known = agent.schedules.map((s) => s.id).join(", ") || "none";
    throw usageError(
      `${plainOrQuoted(agent.name)} has no schedule ${quoteValue(request.schedule ?? "")}`,
      `its schedules: ${known}`,
    );
  }
  const argv = [
    agent.manifest.run.command,
    ...agent.manifest.run.args,
    ...schedule.args,
    ...(request.args ?? []),
  ];
  const cwd = resolve(agent.dir, agent.manifest.run.working_dir ?? ".");
  // A project's manifest acts as its identity only as the machine's operator enabled it: a run
  // made by hand is refused outright (a scheduled one records it as its failed attempt, below).
  if (request.trigger !== "schedule") checkIdentityEnabled(agent, workspace, request.env);
  const started = await store.write(async (tx) => {
    // A run made by hand is refused outright when its caller may not act as the identity the
    // manifest names (a scheduled one records the refusal as its failed attempt, when minting).
    const wanted = agent.manifest.cairn.identity;
    if (wanted && request.trigger !== "schedule") await identityFor(tx, wanted, request.actorId);
    const refusal = await request.admit?.(tx);
    if (refusal !== undefined)
      throw conflict(`not started: ${refusal}`, "nothing to do: the window is served");
    const at = request.now();
    // The deadline on the store's clock (a shared store's server), as leases are: machines whose
    // clocks differ judge it alike.
    const clock = await tx.tasks.leaseClock(at);
    const run = await tx.agentRuns.start(
      {
        agent: agent.name,
        schedule: schedule.id,
        trigger: request.trigger,
        windowAt: request.trigger === "schedule" ? (request.windowAt ?? at) : null,
        ...thisSupervisor(clock, runLimitMs(agent)),
        manifestPath: agent.path,
        manifestHash: agent.hash,
        logPath: null,
        identity: null,
      },
      at,
    );
    await tx.journal.append({
      at: run.startedAt,
      actor: request.actorId,
      action: "agent.run.start",
      subject: run.id,
      data: { agent: agent.name, schedule: schedule.id, trigger: request.trigger, window_at: run.windowAt },
    });
    return run;
  });
  request.onStart?.(started);
  return untilStopped(request.signal, (signal) => supervise(request, schedule, argv, cwd, started, signal));
}

async function supervise(
  request: RunRequest,
  schedule: NonNullable<ReturnType<typeof triggerSchedule>>,
  argv: string[],
  cwd: string,
  started: AgentRunRecord,
  signal: AbortSignal,
): Promise<RunResult> {
  const { agent, store, workspace } = request;
  const log = new RunLog(workspace, agent.name, started.id, request.trigger === "schedule");
  const stdout = new Tail(STDOUT_TAIL_BYTES);
  const stderr = new Tail(STDERR_TAIL_BYTES);
  let temp: string | undefined;
  let identity: RunIdentity | undefined;
  let enabled: EnabledRun | undefined;
  let status: Exclude<RunStatus, "running"> = "failed";
  let exitCode: number | null = null;
  let reason: string | null = null;
  let durationMs: number | null = null;
  try {
    // Inside the try: whatever fails from here on ends the run's row, never leaves it running.
    temp = mkdtempSync(join(os().tmpdir(), runTempPrefix(workspace, started.id)));
    const injected: Record<string, string> = {
      AGENT_NAME: agent.name,
      AGENT_HOME: agent.dir,
      AGENT_TMPDIR: temp,
      AGENT_SCHEDULE_ID: schedule.id,
      AGENT_TRIGGER_SOURCE: request.trigger,
      AGENT_HEARTBEAT_FILE: join(temp, "heartbeat"),
      AGENT_DRY_RUN: "false",
      AGENT_START_EPOCH: String(Math.floor(Date.parse(started.startedAt) / 1000)),
      AGENT_ARGV: JSON.stringify(schedule.args),
      ...runMarks(workspace, started.id),
    };
    const preflightEnv = runEnvironment(request, injected, undefined);
    const blocked = await runPreflights(agent, cwd, preflightEnv, signal);
    if (blocked) {
      // A preflight the stop killed failed for the stop, not for what it checks: recorded as
      // skipped, it was a failed attempt, and a daemon restarted during preflights gave the
      // window up while it said its runs were marked interrupted.
      status = signal.aborted ? stoppedStatus(signal) : "skipped";
      reason = blocked;
    } else {
      const wanted = agent.manifest.cairn.identity;
      // Checked again here, after the preflights, just before the token is minted, while the
      // bytes hashed are copied: a project's enabled agent runs from that copy, never the folder.
      enabled = startEnabledRun(agent, workspace, request.env, cwd, argv);
      if (wanted) {
        identity = await mintRunIdentityFor(
          store,
          wanted,
          started.id.toLowerCase(),
          request.now(),
          (tx, minted) => tx.agentRuns.setIdentity(started.id, minted.id),
          request.actorId,
        );
      }
      // A run that prints its environment must not write its token, nor the store's password it
      // was given with it (in the URL or PGPASSWORD), nor the credentials it inherited, into its
      // log and result, which other agents read.
      const secrets = [
        ...(identity ? [identity.token, ...storeSecrets(request.env)] : []),
        ...credentialValues(request.env),
      ];
      const masks = { stdout: new SecretMask(secrets), stderr: new SecretMask(secrets) };
      const keep = (chunk: Buffer, stream: "stdout" | "stderr") => {
        if (chunk.length === 0) return;
        log.write(chunk);
        const tail = stream === "stdout" ? stdout : stderr;
        tail.push(chunk);
        progress.say(() => tail.lastLine());
      };
      // Made before the progress starts: a throw between the two left its timer re-arming for good
      // (as the definition of done's did), and the process never exited.
      const env = runEnvironment(
        request,
        enabled ? { ...injected, AGENT_HOME: enabled.dir } : injected,
        identity,
        enabled?.extra,
      );
      // The latest output line, paced; a silent agent still shows it is alive.
      const progress = runProgress(request.progress);
      const result = await runChild({
        argv: enabled?.argv ?? argv,
        cwd: enabled?.cwd ?? cwd,
        env,
        timeoutMs: agent.manifest.agent.timeout_seconds * 1000,
        signal,
        // Carries this supervisor's mark too: killed outright, it leaves the run to whichever
        // cairn sweeps the board next, from any checkout of it. The run's own marks name this
        // checkout's folder, so a sweep in another clone of a shared board marked the run
        // interrupted and left it running for good, and the window was run again beside it.
        marked: true,
        onSpawn: (pid) =>
          void store
            .write(async (tx) => {
              await tx.agentRuns.setPid(started.id, pid);
              await tx.journal.append({
                at: request.now(),
                actor: request.actorId,
                action: "agent.run.pid",
                subject: started.id,
                data: { pid },
              });
            })
            .catch(() => {}),
        onOutput: (chunk, stream) => keep(masks[stream].push(chunk), stream),
      }).finally(() => {
        for (const stream of ["stdout", "stderr"] as const) keep(masks[stream].flush(), stream);
        progress.stop();
      });
      status = statusOf(result, signal);
      exitCode = result.timedOut ? 124 : result.exitCode;
      durationMs = result.durationMs;
      // A run cairn cancelled itself (its caller was retired meanwhile) records why.
      const cause = stopCauseOf(signal);
      reason = cause && result.cancelled ? `${result.error} (${cause})` : result.error;
    }
  } catch (error) {
    reason = (error as Error).message;
    status = "skipped";
  } finally {
    // Nothing a run started outlives it, not even what left its process group: the agent's, or
    // a preflight's (which carries the same marks) when that preflight stopped the run.
    if (killRunLeftovers(workspace, started.id)) {
      const leftovers = "it left processes running outside its process group; they were killed";
      reason = reason ? `${reason}; ${leftovers}` : leftovers;
    }
    if (log.problem) {
      const unlogged = `no log kept: ${log.problem}`;
      reason = reason ? `${reason}; ${unlogged}` : unlogged;
    }
    log.close();
    if (temp) rmSync(temp, { recursive: true, force: true });
    enabled?.remove();
  }
  const finishedAt = request.now();
  // The run's row ends and its minted token is retired in one transaction: a run recorded as
  // over never leaves a live credential behind.
  const end = async (tx: Tx) => {
    if (identity) {
      const retired = await retireRunAgent(tx, identity.agent.id, finishedAt);
      for (const id of new Set([identity.agent.id, ...retired])) {
        await releaseClaimsOf(
          tx,
          id,
          request.actorId,
          finishedAt,
          `run ${started.id} of ${started.agent} ended, and the token it held with it`,
        );
      }
    }
    const recorded = await tx.agentRuns.finish(started.id, {
      status,
      exitCode,
      finishedAt,
      durationMs,
      stderrTail: stderr.text().slice(-2000),
      reason,
      logPath: log.path,
    });
    await tx.journal.append({
      at: finishedAt,
      actor: request.actorId,
      action: "agent.run.finish",
      subject: started.id,
      data: {
        agent: agent.name,
        schedule: schedule.id,
        status,
        exit_code: exitCode,
        reason,
        // A reaper had ended the run already (this machine was taken for lost past the run's
        // deadline): the row keeps that end; the journal says how it really ended, and when.
        ...(recorded ? {} : { late: true }),
      },
    });
    if (!recorded && log.path) await tx.agentRuns.keepLog(started.id, log.path);
  };
  try {
    await writeEnd(store, end);
  } catch (error) {
    // The end could not be written: the row stays running (the reaper ends it, and retires the
    // token, once this process is gone), but the token must not outlive the run until then.
    await identity?.retire(finishedAt).catch(() => {});
    throw error;
  }
  const run = await store.read((tx) => tx.agentRuns.byId(started.id));
  if (!run) throw operational(`internal: run ${started.id} vanished`);
  return { run, stdout: stdout.text(), stderrTail: stderr.text(), outputBytes: stdout.total + stderr.total };
}
