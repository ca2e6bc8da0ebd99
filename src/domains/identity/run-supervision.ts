import { machineName } from "../../kernel/machine.js";
import { refuse } from "../../kernel/outcome.js";
import type { AgentRecord, Tx } from "../../store/store.js";
import { judgingClockFor, supervisionOver, supervisorLost } from "../agents/supervisor.js";

/**
 * A token minted for a local agent's run (run-identity.ts) is retired by the cairn process that
 * supervises the run, when the run ends. A supervisor killed outright (SIGKILL, a crash, the OOM
 * killer) retires nothing, and the agent it started, now in a process group no one watches, kept
 * acting on the board with that token until someone ran `cairn sweep` or started the daemon. The
 * run is over when its supervisor is: from then on the token acts no more.
 */

/** Minted run agents are named `<parent>-run-<label>-<8 hex>`; only they need the look below. */
const MINTED_NAME = /-run-.*-[0-9a-f]{8}$/;

/**
 * Refused when the caller, or an agent in its line, is the identity of a run still recorded as
 * running whose supervising cairn process on this machine is gone, or whose supervisor on
 * another machine (a shared store) is past its run's deadline.
 */
export async function requireLiveSupervisor(tx: Tx, line: readonly AgentRecord[]): Promise<void> {
  const minted = new Set(line.filter((agent) => MINTED_NAME.test(agent.name)).map((agent) => agent.id));
  if (minted.size === 0) return;
  const runs = (await tx.agentRuns.running()).filter(
    (run) => run.identity !== null && minted.has(run.identity),
  );
  if (runs.length === 0) return;
  // A deadline is judged on the store's clock, as it was stamped.
  const now = await judgingClockFor(tx, runs);
  for (const run of runs) {
    if (!supervisionOver(run, now)) continue;
    throw refuse(
      "identity",
      `this token was minted for run ${run.id} of ${run.agent}, ${
        supervisorLost(run, now)
          ? `whose supervisor on ${machineName(run.supervisorHost ?? "")} recorded no end by its deadline, ${run.deadlineAt}`
          : `whose supervising cairn process (pid ${run.supervisorPid}) is gone`
      }: the run is over, and its token acts no more`,
      "`cairn sweep` (or the daemon's next start) ends the run and retires the token; start a new run for a fresh one",
    );
  }
}
