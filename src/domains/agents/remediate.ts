import { runChild } from "../../kernel/child.js";
import { childEnv } from "../../kernel/child-env.js";
import { STOPPING, untilStopped } from "../../kernel/until-stopped.js";
import type { Store } from "../../store/store.js";
import type { Workspace } from "../workspace/discover.js";
import type { RemediationTool } from "./catalog.js";
import { Tail } from "./logs.js";
import { runMarks, thisSupervisor } from "./orphans.js";
import { writeEnd } from "./runner.js";

export const REMEDIATION_DEADLINE_MS = 120_000;
const OUTPUT_CAP = 16 * 1024;

export interface RemediationResult {
  run_id: string;
  argv: string[];
  exit_code: number | null;
  timed_out: boolean;
  output: string;
}

/**
 * Run an operator-declared remediation, exactly as declared (no arguments from the caller), under
 * a 120 s deadline, recorded at critical severity. It never re-runs the agent: clearing a
 * preflight and dispatching a run stay two decisions.
 */
export async function remediate(
  store: Store,
  workspace: Workspace,
  tool: RemediationTool,
  env: NodeJS.ProcessEnv,
  actorId: string,
  now: () => string,
  signal?: AbortSignal,
): Promise<RemediationResult> {
  const started = await store.write(async (tx) => {
    const at = now();
    // On the store's clock, as the runner's deadline is (see runner.ts).
    const clock = await tx.tasks.leaseClock(at);
    const run = await tx.agentRuns.start(
      {
        agent: tool.agent.name,
        schedule: `remediate-${tool.index}`,
        trigger: "remediation",
        windowAt: null,
        ...thisSupervisor(clock, REMEDIATION_DEADLINE_MS),
        manifestPath: tool.agent.path,
        manifestHash: tool.agent.hash,
        logPath: null,
        identity: null,
      },
      at,
    );
    await tx.journal.append({
      at: run.startedAt,
      actor: actorId,
      action: "agent.remediation.start",
      subject: run.id,
      data: { severity: "critical", agent: tool.agent.name, tool: tool.name, argv: tool.argv },
    });
    return run;
  });
  const output = new Tail(OUTPUT_CAP);
  // Stopped by a signal (SIGTERM to cairn, or to the server running it), it ends as an agent run
  // does: recorded interrupted before the process exits, not left running.
  return untilStopped(signal, async (stopping) => {
    const result = await runChild({
      argv: tool.argv,
      cwd: tool.agent.dir,
      // Marked as its run, as an agent's run is: a supervisor killed outright leaves the command
      // running past its deadline, and the reaper, which said it ended it, finds it by these.
      env: childEnv(env, runMarks(workspace, started.id)),
      timeoutMs: REMEDIATION_DEADLINE_MS,
      signal: stopping,
      // As an agent's run is: a sweep from any checkout of the board ends it (runner.ts).
      marked: true,
      onOutput: (chunk) => output.push(chunk),
    });
    const at = now();
    const status = result.timedOut
      ? "timed_out"
      : result.cancelled
        ? stopping.reason === STOPPING
          ? "interrupted"
          : "cancelled"
        : result.exitCode === 0
          ? "ok"
          : "failed";
    await writeEnd(store, async (tx) => {
      await tx.agentRuns.finish(started.id, {
        status,
        exitCode: result.exitCode,
        finishedAt: at,
        durationMs: result.durationMs,
        stderrTail: output.text().slice(-2000),
        reason: result.error,
      });
      await tx.journal.append({
        at,
        actor: actorId,
        action: "agent.remediation",
        subject: started.id,
        data: {
          severity: "critical",
          agent: tool.agent.name,
          tool: tool.name,
          argv: tool.argv,
          exit_code: result.exitCode,
          timed_out: result.timedOut,
        },
      });
    });
    return {
      run_id: started.id,
      argv: tool.argv,
      exit_code: result.exitCode,
      timed_out: result.timedOut,
      // A command that could not start printed nothing: why it did not is its output.
      output: output.text() || (result.exitCode === null && result.error ? result.error : ""),
    };
  });
}
