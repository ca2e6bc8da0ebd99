import {
  closeSync,
  existsSync,
  type FSWatcher,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  unlinkSync,
  watch,
  writeSync,
} from "node:fs";
import { basename, dirname } from "node:path";
import { conflict, RefusedError } from "../../kernel/outcome.js";
import { placeWhole } from "../../kernel/place-whole.js";
import { STOPPING } from "../../kernel/until-stopped.js";
import { watchShallow } from "../../kernel/watch.js";
import type { AgentRunRecord, Store } from "../../store/store.js";
import type { Workspace } from "../workspace/discover.js";
import { type TickReport, tick } from "./daemon.js";
import {
  DAEMON_META_KEY,
  type DaemonBeat,
  daemonPid,
  livePidIn,
  lockContent,
  lockHolder,
  lockPath,
} from "./daemon-lock.js";
import { MANIFEST_FILE, manifestRoots } from "./manifest.js";
import { reapOrphans } from "./orphans.js";

export { DAEMON_META_KEY, type DaemonBeat, daemonPid, lockPath } from "./daemon-lock.js";

/** Even with nothing scheduled the daemon looks again this often (a clock that jumped, a lost event). */
const MAX_SLEEP_MS = 15 * 60_000;
const SETTLE_MS = 200;
/** After a pass that failed (the store busy past its timeout), the loop tries again this soon. */
const FAILED_PASS_RETRY_MS = 5_000;
/** Numbers this process's set-aside lock files apart. */
let asides = 0;

/**
 * Create the lock file exclusively, already holding its content. Created empty and written after,
 * a second daemon starting in between read no live holder in it, removed it as stale and took
 * the lock too: two daemons ran at once. Placed whole (placeWhole), it appears whole, or not.
 */
function placeLock(path: string): void {
  placeWhole(path, lockContent(), {
    mode: 0o600,
    // A filesystem without hard links: created exclusively, then written, as before.
    withoutLinks: () => {
      const lock = openSync(path, "wx", 0o600);
      writeSync(lock, lockContent());
      closeSync(lock);
    },
  });
}

/**
 * One daemon per workspace: a pid file created exclusively. A file left by a dead process (or
 * one whose pid another process now holds) is taken over, so the lock dies with its holder; a
 * live holder is named in the refusal.
 */
function acquireLock(workspace: Workspace): () => void {
  const path = lockPath(workspace);
  for (let tries = 0; tries < 2; tries++) {
    try {
      placeLock(path);
      return () => {
        try {
          if (lockHolder(readFileSync(path, "utf8")).pid === process.pid) unlinkSync(path);
        } catch {
          // Already gone.
        }
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const holder = daemonPid(workspace);
      if (holder !== undefined) {
        throw conflict(
          `a daemon already runs for this workspace (pid ${holder})`,
          `stop it first: kill ${holder}`,
        );
      }
      // Whatever is there goes, a dangling link too (which existsSync would call absent, leaving
      // every start refused for a lock nobody holds). Moved aside and looked at, not removed
      // unseen: another daemon that found the same stale lock may have replaced it a moment ago,
      // and removing that would leave two daemons running. A live lock moved aside goes back.
      const aside = `${path}.${process.pid}-${++asides}.stale`;
      try {
        renameSync(path, aside);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
        continue;
      }
      const taken = livePidIn(aside);
      if (taken !== undefined) {
        renameSync(aside, path);
        throw conflict(
          `a daemon already runs for this workspace (pid ${taken})`,
          `stop it first: kill ${taken}`,
        );
      }
      rmSync(aside, { force: true });
    }
  }
  throw conflict("could not take the daemon lock", "retry");
}

/** The daemon's starter was refused at a pass (see Daemon.authorised); other refusals are not this. */
class NoAuthority extends Error {
  constructor(readonly refused: RefusedError) {
    super(refused.message);
  }
}

export interface DaemonOptions {
  store: Store;
  workspace: Workspace;
  env: NodeJS.ProcessEnv;
  actorId: string;
  now?: () => Date;
  zone?: string;
  log: (line: string) => void;
  auditRun?: (run: AgentRunRecord) => void;
  /** Release stale claims (`cairn sweep`'s rule); called on every pass of the loop. */
  sweepClaims?: () => Promise<{ task: string; why: string }[]>;
  /**
   * Throws a refusal once whoever started the daemon may no longer have it dispatch (its agent
   * retired, its role made read-only); called at the start of every pass of the loop.
   */
  requireAuthority?: () => Promise<void>;
}

/** The scheduler's loop: tick, sleep until the next event or a wake-up, until stopped. */
export class Daemon {
  private readonly supervised = new Map<string, Promise<unknown>>();
  private readonly stopping = new AbortController();
  private wakeUp: (() => void) | undefined;
  /**
   * A wake-up asked for since the current pass began. A pass on a shared store waits on the
   * network, so a signal, a manifest change or a run's end can come in the middle of one, after
   * the pass has read what it changes: the sleep that follows is then skipped, never slept out.
   */
  private woken = false;
  private watchers: FSWatcher[] = [];
  /** Between the loop's start and its end: only then are watchers (re)armed. */
  private watching = false;
  private settle: NodeJS.Timeout | undefined;
  private readonly now: () => Date;
  readonly startedAt: string;

  constructor(private readonly options: DaemonOptions) {
    this.now = options.now ?? (() => new Date());
    this.startedAt = this.now().toISOString();
  }

  /** SIGHUP, a manifest change, a run's end: look again now. */
  wake = (): void => {
    this.woken = true;
    this.wakeUp?.();
  };

  /** SIGHUP: look again now, watching the agent folders that appeared since (not only their files). */
  reload = (): void => {
    if (this.watching) this.watchManifests();
    this.wake();
  };

  /** SIGTERM / SIGINT: stop dispatching, stop the runs (marked interrupted), then return. */
  stop = (): void => {
    this.stopping.abort(STOPPING);
    this.wakeUp?.();
  };

  private tick(dryRun: boolean): Promise<TickReport> {
    return tick({
      store: this.options.store,
      workspace: this.options.workspace,
      env: this.options.env,
      actorId: this.options.actorId,
      now: this.now,
      zone: this.options.zone,
      dryRun,
      supervised: this.supervised,
      signal: this.stopping.signal,
      onRunEnd: this.wake,
      auditRun: this.options.auditRun,
    });
  }

  /** Stale claims go back to the board; a failure is logged, never stopping the scheduler. */
  private async sweep(): Promise<{ task: string; why: string }[]> {
    if (!this.options.sweepClaims) return [];
    try {
      return await this.options.sweepClaims();
    } catch (error) {
      this.options.log(`sweeping claims failed: ${(error as Error).message}`);
      return [];
    }
  }

  private async beat(report: TickReport): Promise<void> {
    const at = this.now().toISOString();
    const beat: DaemonBeat = {
      pid: process.pid,
      started_at: this.startedAt,
      beat_at: at,
      next_event_at: report.next_event_at,
      supervising: this.supervised.size,
    };
    await this.options.store.write(async (tx) => {
      await tx.meta.set(DAEMON_META_KEY, JSON.stringify(beat));
      await tx.journal.append({
        at,
        actor: this.options.actorId,
        action: "agent.daemon.beat",
        subject: "daemon",
        data: { ...beat },
      });
    });
  }

  /** `--once`: one tick (waiting for what it dispatched), under the same lock as the loop. */
  async once(dryRun: boolean): Promise<TickReport> {
    if (dryRun) return this.tick(true);
    const release = acquireLock(this.options.workspace);
    try {
      await reapOrphans(
        this.options.store,
        this.options.workspace,
        this.options.actorId,
        () => this.now().toISOString(),
        this.options.auditRun,
      );
      const report = await this.tick(false);
      await Promise.all(this.supervised.values());
      report.swept = await this.sweep();
      // What it dispatched has ended: the next event is the one after those runs.
      report.next_event_at = (await this.tick(true)).next_event_at;
      await this.beat(report);
      return report;
    } finally {
      release();
    }
  }

  async run(): Promise<void> {
    const release = acquireLock(this.options.workspace);
    // Said once the lock is held: a second daemon refused by it never said it started.
    this.options.log(`started (pid ${process.pid}) for ${this.options.workspace.root}`);
    let refused: RefusedError | undefined;
    try {
      this.watching = true;
      this.watchManifests();
      while (!this.stopping.signal.aborted) {
        let report: TickReport;
        this.woken = false;
        try {
          await this.authorised();
          // On every pass, not only at the start: a cairn mcp or agents run killed outright while
          // this daemon runs would otherwise leave its run running, its processes and its minted
          // token working, until the next daemon start or cairn sweep.
          const reaped = await reapOrphans(
            this.options.store,
            this.options.workspace,
            this.options.actorId,
            () => this.now().toISOString(),
            this.options.auditRun,
          );
          if (reaped.length > 0)
            this.options.log(`marked ${reaped.length} orphaned run(s) interrupted: ${reaped.join(", ")}`);
          report = await this.tick(false);
          for (const problem of report.problems)
            this.options.log(`skipping ${problem.file}: ${problem.reason}`);
          for (const run of report.dispatched)
            this.options.log(`dispatch ${run.agent}/${run.schedule} attempt ${run.attempt}/${run.of}`);
          for (const mark of report.marked)
            this.options.log(`${mark.agent}/${mark.schedule}: window ${mark.window_at} ${mark.mark}`);
          for (const swept of await this.sweep()) this.options.log(`released ${swept.task}: ${swept.why}`);
          await this.beat(report);
        } catch (error) {
          if (error instanceof NoAuthority) {
            // Refused, not failed: the runs it supervises stop (marked interrupted) as at SIGTERM.
            refused = error.refused;
            this.stop();
            break;
          }
          // A store busy past its timeout, or a write that failed: this pass is lost, never the
          // scheduler (nor the runs it supervises). The next pass decides everything again.
          this.options.log(
            `a pass failed (${(error as Error).message}); trying again in ${FAILED_PASS_RETRY_MS / 1000}s`,
          );
          await this.sleep(new Date(this.now().getTime() + FAILED_PASS_RETRY_MS).toISOString());
          continue;
        }
        await this.sleep(report.next_event_at);
      }
      await Promise.all(this.supervised.values());
    } finally {
      this.watching = false;
      for (const watcher of this.watchers) watcher.close();
      if (this.settle) clearTimeout(this.settle);
      release();
    }
    if (refused) throw refused;
  }

  /**
   * A daemon is a running server of whoever started it: retiring that agent (or making its role
   * read-only) takes effect at its next pass, as at a server's next call, not when someone
   * happens to stop it. It went on dispatching runs for a retired agent for good.
   */
  private async authorised(): Promise<void> {
    try {
      await this.options.requireAuthority?.();
    } catch (error) {
      throw error instanceof RefusedError ? new NoAuthority(error) : error;
    }
  }

  private sleep(nextEventAt: string | null): Promise<void> {
    // Stopped, or woken, while the pass ran: look again (or stop) now.
    if (this.woken || this.stopping.signal.aborted) return Promise.resolve();
    const until = nextEventAt ? Date.parse(nextEventAt) - this.now().getTime() : MAX_SLEEP_MS;
    const ms = Math.max(0, Math.min(MAX_SLEEP_MS, until));
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wakeUp = done;
    });
  }

  /** A manifest added, edited or removed wakes the loop (after the editor settles). */
  private watchManifests(): void {
    for (const watcher of this.watchers) watcher.close();
    this.watchers = [];
    const changed = () => {
      if (this.settle) clearTimeout(this.settle);
      this.settle = setTimeout(() => {
        // A new agent folder needs its own watch.
        this.watchManifests();
        this.wake();
      }, SETTLE_MS);
    };
    for (const root of manifestRoots(this.options.workspace, this.options.env)) {
      if (!existsSync(root)) {
        // Not there yet (`cairn init` makes no .cairn/agents): its parent says when it comes. A
        // daemon started first otherwise saw the first agent written only at its 15-minute look.
        const parent = dirname(root);
        if (!existsSync(parent)) continue;
        try {
          const watcher = watch(parent, { persistent: false }, (_event, file) => {
            if (file === null || String(file) === basename(root)) changed();
          });
          watcher.on("error", () => watcher.close());
          this.watchers.push(watcher);
        } catch {
          // A parent we may not watch: the pass at most 15 minutes away finds the folder.
        }
        continue;
      }
      this.watchers.push(
        ...watchShallow(root, ({ folder, file }) => {
          // In an agent's folder only its manifest matters: an agent writing its own files there
          // (its state, a progress file) woke the loop for a pass and a heartbeat, a journal
          // event, at every write, all run long. The root's changes are folders coming and going.
          if (folder !== root && file !== null && file !== MANIFEST_FILE) return;
          changed();
        }),
      );
    }
  }
}
