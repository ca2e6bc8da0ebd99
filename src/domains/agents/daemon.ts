import { oneLine } from "../../kernel/visible-text.js";
import type { AgentRunRecord, Store } from "../../store/store.js";
import { outsideLine } from "../identity/run-identity.js";
import type { Workspace } from "../workspace/discover.js";
import { agentCatalog } from "./catalog.js";
import type { LoadedAgent, ManifestProblem, ScheduleSpec } from "./manifest.js";
import { runAgent } from "./runner.js";
import { readScheduleState, runsOf } from "./state.js";
import { type Decision, decide, nextEvent } from "./windows.js";

export interface TickOptions {
  store: Store;
  workspace: Workspace;
  env: NodeJS.ProcessEnv;
  actorId: string;
  now: () => Date;
  zone?: string;
  /** Decide and report; write nothing, start nothing. */
  dryRun: boolean;
  /** Runs this daemon supervises, by `agent\0schedule`: never dispatched twice. */
  supervised: Map<string, Promise<unknown>>;
  signal?: AbortSignal;
  /** Called when a dispatched run ends (the loop re-evaluates then). */
  onRunEnd?: () => void;
  /** Records a scheduled run's end in the audit log (triggered runs are audited as commands). */
  auditRun?: (run: AgentRunRecord) => void;
}

export interface TickReport {
  scanned: number;
  dispatched: { agent: string; schedule: string; window_at: string; attempt: number; of: number }[];
  marked: { agent: string; schedule: string; window_at: string; mark: "given_up" | "stale" }[];
  waiting: { agent: string; schedule: string; retry_at: string }[];
  next_event_at: string | null;
  problems: ManifestProblem[];
  /** Claims released for their agent's silence (or retirement), as `cairn sweep` would. */
  swept?: { task: string; why: string }[];
}

const iso = (ms: number) => new Date(ms).toISOString();
const keyOf = (agent: LoadedAgent, spec: ScheduleSpec) => `${agent.name}\0${spec.id}`;

/**
 * One pass of the scheduler: discover manifests (a broken one is reported and skipped, never
 * stopping the others), decide every monitored schedule, dispatch what is due (concurrently:
 * one long run delays no other window), mark given-up and stale windows once, and say when the
 * next event is.
 */
export async function tick(options: TickOptions): Promise<TickReport> {
  const { store } = options;
  const now = options.now().getTime();
  const catalog = agentCatalog(options.workspace, options.env);
  const report: TickReport = {
    scanned: 0,
    dispatched: [],
    marked: [],
    waiting: [],
    next_event_at: null,
    problems: catalog.problems,
  };
  let next: number | undefined;
  for (const agent of catalog.agents) {
    if (!agent.manifest.agent.monitor) continue;
    // A daemon an agent runs serves only the runs it may make: one acting as an identity outside
    // its line would be refused at every attempt, each recorded as a failure, until the window was
    // given up, and the owner's daemon would find it so and never run it. Left alone, untouched.
    // (A dry run, `agents next` included, says what the workspace's daemon would do: all of it.)
    const identity = agent.manifest.cairn.identity;
    if (
      !options.dryRun &&
      identity &&
      (await store.read((tx) => outsideLine(tx, identity, options.actorId)))
    ) {
      report.problems.push({
        file: agent.path,
        reason: `its [cairn] identity ${JSON.stringify(identity)} is outside the line of ${options.actorId}, who runs this daemon: its windows are left to a daemon the owner runs`,
      });
      continue;
    }
    report.scanned++;
    const mine = runsOf(agent, options.workspace, options.env);
    for (const spec of agent.schedules) {
      const state = await store.read((tx) => readScheduleState(tx, agent.name, spec, now, mine));
      if (state.firstSeenAt === undefined && !options.dryRun) {
        await store.write(async (tx) => {
          if (await tx.agentWindows.seen(agent.name, spec.id, iso(now))) {
            await tx.journal.append({
              at: iso(now),
              actor: options.actorId,
              action: "agent.schedule.seen",
              subject: agent.name,
              data: { schedule: spec.id },
            });
          }
        });
        state.firstSeenAt = now;
      }
      const decision = decide(spec, state, now, options.zone);
      const key = keyOf(agent, spec);
      if (decision.kind === "dispatch" && !options.supervised.has(key)) {
        const entry = {
          agent: agent.name,
          schedule: spec.id,
          window_at: iso(decision.windowAt),
          attempt: decision.attempt,
          of: decision.of,
        };
        report.dispatched.push(entry);
        // A run that never started (another supervisor took the window first) was not this
        // daemon's dispatch: `--once`, which reports once its runs end, does not list it.
        const notStarted = () => report.dispatched.splice(report.dispatched.indexOf(entry), 1);
        if (!options.dryRun) dispatch(options, agent, spec, decision, now, key, notStarted);
      } else if (decision.kind === "give_up" || decision.kind === "stale") {
        const mark = decision.kind === "give_up" ? "given_up" : "stale";
        const marked = options.dryRun
          ? false
          : await store.write(async (tx) => {
              const fresh = await tx.agentWindows.mark(
                agent.name,
                spec.id,
                iso(decision.windowAt),
                mark,
                iso(now),
              );
              if (fresh) {
                await tx.journal.append({
                  at: iso(now),
                  actor: options.actorId,
                  action: `agent.window.${mark}`,
                  subject: agent.name,
                  data: { schedule: spec.id, window_at: iso(decision.windowAt) },
                });
              }
              return fresh;
            });
        if (marked)
          report.marked.push({
            agent: agent.name,
            schedule: spec.id,
            window_at: iso(decision.windowAt),
            mark,
          });
      } else if (decision.kind === "retry_at") {
        report.waiting.push({ agent: agent.name, schedule: spec.id, retry_at: iso(decision.at) });
      }
      const event = decision.kind === "dispatch" ? undefined : nextEvent(spec, state, now, options.zone);
      if (event !== undefined && (next === undefined || event < next)) next = event;
    }
  }
  report.next_event_at = next === undefined ? null : iso(next);
  return report;
}

function dispatch(
  options: TickOptions,
  agent: LoadedAgent,
  spec: ScheduleSpec,
  due: Extract<Decision, { kind: "dispatch" }>,
  now: number,
  key: string,
  notStarted: () => void,
): void {
  let started = false;
  const running = runAgent({
    agent,
    schedule: spec.id,
    trigger: "schedule",
    windowAt: iso(due.windowAt),
    // Decided again where the run starts, in its write transaction: another supervisor of this
    // workspace (a second machine on a shared store) that started this attempt first wins it.
    admit: async (tx) => {
      const state = await readScheduleState(
        tx,
        agent.name,
        spec,
        now,
        runsOf(agent, options.workspace, options.env),
      );
      const again = decide(spec, state, now, options.zone);
      return again.kind === "dispatch" && again.windowAt === due.windowAt && again.attempt === due.attempt
        ? undefined
        : `its window ${iso(due.windowAt)} is ${again.kind === "running" ? "already running" : `now ${again.kind.replace("_", " ")}`} (another supervisor took it)`;
    },
    store: options.store,
    workspace: options.workspace,
    env: options.env,
    actorId: options.actorId,
    now: () => options.now().toISOString(),
    signal: options.signal,
    onStart: () => {
      started = true;
    },
  })
    .then((result) => options.auditRun?.(result.run))
    .catch((error: unknown) =>
      process.stderr.write(
        `cairn daemon: ${oneLine(`${agent.name}/${spec.id}: ${(error as Error).message}`)}\n`,
      ),
    )
    .finally(() => {
      if (!started) notStarted();
      options.supervised.delete(key);
      options.onRunEnd?.();
    });
  options.supervised.set(key, running);
}
