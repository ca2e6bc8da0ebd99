import { Daemon } from "../../domains/agents/daemon-loop.js";
import { audit, auditRunEnd } from "../../domains/audit/record.js";
import { requireStillActive } from "../../domains/identity/actor.js";
import { guard } from "../../domains/identity/guard.js";
import { sweep } from "../../domains/tasks/sweep.js";
import { killAllChildren } from "../../kernel/child.js";
import { describeError, EXIT_CODES, exitCodeOf, outcomeFromThrown } from "../../kernel/outcome.js";
import { quoteValue } from "../../kernel/text.js";
import { oneLine } from "../../kernel/visible-text.js";
import type { Session } from "../context.js";
import { noteCallRules } from "../hooks.js";

export const DAEMON_USAGE = "usage: cairn daemon [--once] [--dry-run] [--json]\n";
const DAEMON_HELP = `${DAEMON_USAGE}
Run the local agents on their schedules, in the foreground: cron, interval and 5-field cron
windows, with retries; stale claims released. SIGHUP reloads the manifests; SIGTERM or Ctrl-C
stops it and its runs. \`cairn agents status\` shows what it did.
  --once      one pass, then exit
  --dry-run   one pass that only prints what it would dispatch; nothing runs
  --json      with --once or --dry-run, print the pass as JSON
`;

/**
 * `cairn daemon`: the scheduler in the foreground (SIGHUP reloads, SIGTERM/SIGINT stop it and
 * its runs, which end interrupted); `--once` for one tick; `--dry-run` to decide and print only.
 */
export async function startDaemon(session: Session, args: readonly string[]): Promise<number> {
  const flags = new Set(args);
  const unknown = [...flags].find((flag) => !["--once", "--dry-run", "--json"].includes(flag));
  if (unknown !== undefined) {
    if (flags.has("--help") || flags.has("-h")) {
      process.stdout.write(DAEMON_HELP);
      return EXIT_CODES.ok;
    }
    process.stderr.write(`cairn daemon: unknown option ${quoteValue(unknown)}\n${DAEMON_USAGE}`);
    return EXIT_CODES.usage;
  }
  const json = flags.has("--json");
  // Lines name agents, files and reasons from manifests on disk: each stays one visible line.
  // Once its log cannot be written (see logLost), nothing more is tried: there is no one to read it.
  let logGone = false;
  const log = (line: string) => {
    if (!logGone) process.stderr.write(`cairn daemon: ${oneLine(line)}\n`);
  };
  try {
    const ctx = await session.context();
    if (!flags.has("--dry-run")) guard(ctx.actor, { name: "daemon", effect: "write", confirmed: false });
    // Checked again at every pass: its starter retired, or its role made read-only in cairn.toml
    // since, the daemon stops (exit 3) instead of dispatching on for it.
    const requireAuthority = async () => {
      const current = await session.context();
      await requireStillActive(current.store, current.actor);
      guard(current.actor, { name: "daemon", effect: "write", confirmed: false });
    };
    const daemon = new Daemon({
      store: ctx.store,
      workspace: ctx.workspace,
      env: ctx.env,
      actorId: ctx.actor.id,
      requireAuthority,
      log,
      sweepClaims: async () => {
        // Under the lease cairn.toml sets now, noted as a call's rules are: a daemon started
        // after the lease was shortened (and the file put back before the next call) released
        // others' claims under rules the journal never saw; one started earlier swept on under
        // the lease of its start, whatever the owner set since.
        // A sweep writes: it asks the store every time, as a write call does.
        const current = await session.context();
        await noteCallRules(current, true);
        const released = await sweep(current.store, current.config, current.actor, current.now());
        // A write the daemon makes on its own, through no command: audited as `cairn sweep` is.
        try {
          if (released.length > 0)
            audit(current, "notice", "claims.swept", {
              released: released.map(({ task, owner, why }) => ({ task, owner, why })),
            });
        } catch (error) {
          log(`the sweep was not audited: ${(error as Error).message}`);
        }
        return released.map(({ task, why }) => ({ task, why }));
      },
      auditRun: (run) => auditRunEnd(ctx, run),
    });
    // Its terminal closed (EIO), or the reader of its log gone (EPIPE): the failed write was an
    // uncaught error that killed the daemon outright, its runs left running as orphans, their
    // rows running and the lock held until a sweep. The one who started it is gone: it stops as
    // at SIGTERM, its runs stopped and marked interrupted. (A SIGHUP alone still only reloads.)
    const logLost = () => {
      logGone = true;
      daemon.stop();
    };
    process.stderr.on("error", logLost);
    if (flags.has("--once") || flags.has("--dry-run")) {
      // The runs a tick dispatches are in process groups of their own: a stopped `--once` that
      // exited at once left them running, their rows running, until some later reaper. Stopped,
      // it stops them as the loop does (recorded interrupted), then exits; a hang-up too, since
      // there is no loop to reload.
      const stopOnce = () => {
        log("stopping: its runs are stopped and marked interrupted");
        daemon.stop();
      };
      const stopSignals = ["SIGTERM", "SIGINT", "SIGHUP"] as const;
      for (const signal of stopSignals) process.on(signal, stopOnce);
      let report: Awaited<ReturnType<typeof daemon.once>>;
      try {
        report = await daemon.once(flags.has("--dry-run"));
      } finally {
        for (const signal of stopSignals) process.removeListener(signal, stopOnce);
        killAllChildren();
      }
      if (json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
      else {
        for (const run of report.dispatched) {
          process.stdout.write(
            `${oneLine(`${flags.has("--dry-run") ? "would dispatch" : "dispatched"} ${run.agent}/${run.schedule} attempt ${run.attempt}/${run.of}`)}\n`,
          );
        }
        process.stdout.write(
          `scanned ${report.scanned} agent(s); next event: ${report.next_event_at ?? "—"}\n`,
        );
      }
      return EXIT_CODES.ok;
    }
    const onHangUp = () => {
      log("SIGHUP: reloading manifests");
      daemon.reload();
    };
    const onStop = () => {
      log("stopping: its runs are stopped and marked interrupted");
      daemon.stop();
    };
    process.on("SIGHUP", onHangUp);
    process.on("SIGTERM", onStop);
    process.on("SIGINT", onStop);
    try {
      await daemon.run();
    } finally {
      process.removeListener("SIGHUP", onHangUp);
      process.removeListener("SIGTERM", onStop);
      process.removeListener("SIGINT", onStop);
      killAllChildren();
    }
    log("stopped");
    return EXIT_CODES.ok;
  } catch (thrown) {
    const outcome = outcomeFromThrown(thrown);
    if (outcome.kind === "refused")
      process.stderr.write(
        `cairn daemon: refused: ${outcome.refusal.reason}\nnext: ${outcome.refusal.next}\n`,
      );
    else if (outcome.kind === "error")
      process.stderr.write(`cairn daemon: ${describeError(outcome.error)}\n`);
    return exitCodeOf(outcome);
  }
}
