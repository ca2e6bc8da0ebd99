import type * as WorkerThreads from "node:worker_threads";
import { workerThreads } from "./builtins.js";

type Worker = WorkerThreads.Worker;

/**
 * The last match of a pattern over text, searched in a worker thread. The pattern and the text
 * come from outside (an evaluator's rule, the output of the code under test, a proposer's sample):
 * a pattern that backtracks on the text runs for as long as its budget allows, and in cairn's own
 * thread that held every other request, a cancel and SIGTERM for the whole of it. In a worker,
 * cairn keeps answering, and a cancel or the budget stops the search at once (terminating the
 * worker interrupts the regular expression engine).
 */
export type PatternSearch =
  /** `readings`: each distinct reading (trimmed) in the order met, at most DISTINCT_READINGS + 1. */
  | { kind: "match"; text: string; readings: string[] }
  | { kind: "no_match" }
  | { kind: "timeout" }
  | { kind: "cancelled" }
  | { kind: "failed"; message: string };

/**
 * How many distinct readings a search reports: enough to tell one from several (an output that
 * prints the same figure many times over, in a few spellings, is still one reading).
 */
export const DISTINCT_READINGS = 16;

/**
 * The first group (or whole match) of the last match, and the distinct readings met on the way;
 * an empty match moves the search on by one.
 */
const SEARCH_SCRIPT = `
const { parentPort } = require("node:worker_threads");
parentPort.on("message", ({ source, text }) => {
  try {
    const pattern = new RegExp(source, "g");
    let last = null;
    const readings = new Set();
    for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
      last = match[1] ?? match[0];
      if (readings.size <= ${DISTINCT_READINGS}) readings.add(last.trim());
      if (match[0] === "") pattern.lastIndex++;
    }
    parentPort.postMessage({ last, readings: [...readings] });
  } catch (error) {
    parentPort.postMessage({ error: String(error && error.message) });
  }
});`;

/** What SEARCH_SCRIPT posts back: its readings always come beside a match. */
type SearchReply = { error: string } | { last: string | null; readings: string[] };

/** A started worker costs ~30 ms; one is kept between searches (an evaluation reads many samples). */
const IDLE_MS = 10_000;
let idle: { worker: Worker; timer: NodeJS.Timeout } | undefined;

function takeWorker(): Worker {
  if (idle) {
    const { worker, timer } = idle;
    idle = undefined;
    clearTimeout(timer);
    worker.ref();
    return worker;
  }
  // Not a process: nothing is spawned. It still gets no environment, since it needs none, and
  // its stdout is never piped into cairn's (the protocol, in `cairn mcp`).
  const worker = new (workerThreads().Worker)(SEARCH_SCRIPT, { eval: true, env: {}, stdout: true });
  // An idle worker that fails is dropped, never an unhandled error in cairn's own thread.
  worker.on("error", () => {});
  worker.on("exit", () => {
    if (idle?.worker === worker) {
      clearTimeout(idle.timer);
      idle = undefined;
    }
  });
  return worker;
}

function keepIdle(worker: Worker): void {
  if (idle) {
    void worker.terminate();
    return;
  }
  // Unreferenced: an idle worker never keeps a finished command's process alive.
  worker.unref();
  const timer = setTimeout(() => {
    if (idle?.worker !== worker) return;
    idle = undefined;
    void worker.terminate();
  }, IDLE_MS).unref();
  idle = { worker, timer };
}

export function searchLastMatch(
  source: string,
  text: string,
  options: { budgetMs: number; signal?: AbortSignal },
): Promise<PatternSearch> {
  if (options.signal?.aborted) return Promise.resolve({ kind: "cancelled" });
  const worker = takeWorker();
  return new Promise((resolve) => {
    let settled = false;
    const settle = (outcome: PatternSearch, reusable: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(budget);
      options.signal?.removeEventListener("abort", onAbort);
      worker.off("message", onMessage);
      worker.off("error", onError);
      worker.off("exit", onExit);
      if (reusable) keepIdle(worker);
      else void worker.terminate();
      resolve(outcome);
    };
    const onMessage = (reply: SearchReply) =>
      settle(
        "error" in reply
          ? { kind: "failed", message: reply.error }
          : typeof reply.last === "string"
            ? { kind: "match", text: reply.last, readings: reply.readings }
            : { kind: "no_match" },
        true,
      );
    const onError = (error: Error) => settle({ kind: "failed", message: error.message }, false);
    const onExit = () => settle({ kind: "failed", message: "the search stopped" }, false);
    const onAbort = () => settle({ kind: "cancelled" }, false);
    const budget = setTimeout(() => settle({ kind: "timeout" }, false), options.budgetMs);
    worker.on("message", onMessage);
    worker.on("error", onError);
    worker.on("exit", onExit);
    options.signal?.addEventListener("abort", onAbort, { once: true });
    worker.postMessage({ source, text });
  });
}
