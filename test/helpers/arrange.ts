import { pathToFileURL } from "node:url";
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from "node:worker_threads";
import { inject } from "vitest";

/**
 * Setting a test up through `cairn` without a process per command. A command here runs in a
 * thread of the test's own process, through the same parse and dispatch as the `cairn` binary
 * (the CLI face's runCli over a Session built from the same environment), and the test waits for
 * it as it waits for spawnSync. Spawning `cairn` costs ~0.25 s of CPU on a busy two-core machine,
 * most of it starting Node, against ~25 ms for an init here and ~14 ms for an agent added; the
 * workspaces, agents and tasks suites only set up were about a third of a run's spawns.
 *
 * Only for what a test arranges before it acts: what a test checks still goes through the binary
 * (helpers/workspace.ts `cairn`) or a spawned `cairn mcp`. Arrange nothing that starts a process:
 * it would start from the thread's environment (the one a spawned `cairn` gets, less what a call
 * adds), not from the call's.
 */
export interface ArrangeRequest {
  cwd: string;
  env: NodeJS.ProcessEnv;
  args: string[];
}

export interface ArrangeReply {
  code: number;
  stdout: string;
  stderr: string;
}

interface Arranger {
  worker: Worker;
  signal: Int32Array;
  replies: MessagePort;
}

let arranger: Arranger | undefined;
/** Why the thread stopped, should it stop: said by every later call rather than a bare timeout. */
let failure: Error | undefined;

/** The signal's slots: set when a reply is posted, and set for good when the thread cannot load. */
const ANSWERED = 0;
const UNLOADED = 1;

/**
 * The thread's first code: it loads the bundle, and should that fail, says why on the reply port
 * at once. The test process waits in Atomics.wait, where no "error" event of the worker can reach
 * it; without this, a broken bundle was only noticed when the first call's wait ran out.
 */
const LOADER = `
const { workerData } = require("node:worker_threads");
import(workerData.entry).catch((error) => {
  workerData.replies.postMessage({ code: -1, stdout: "", stderr: String(error?.stack ?? error) });
  Atomics.store(workerData.signal, ${UNLOADED}, 1);
  Atomics.store(workerData.signal, ${ANSWERED}, 1);
  Atomics.notify(workerData.signal, ${ANSWERED});
});`;

function started(processEnv: NodeJS.ProcessEnv): Arranger {
  if (arranger) return arranger;
  const signal = new Int32Array(new SharedArrayBuffer(8));
  const { port1, port2 } = new MessageChannel();
  const worker = new Worker(LOADER, {
    eval: true,
    workerData: { entry: pathToFileURL(inject("arrangeWorker")).href, signal, replies: port2 },
    transferList: [port2],
    // What the thread's own code reads from process.env, as a spawned cairn's would.
    env: processEnv,
  });
  worker.on("error", (error) => {
    failure = error;
  });
  // The thread lives as long as the test process, and never keeps it from exiting.
  worker.unref();
  port1.unref();
  const made = { worker, signal, replies: port1 };
  arranger = made;
  return made;
}

/** How long one command may take before the test fails rather than waits on. */
const ANSWER_MS = 60_000;

/**
 * Run `cairn args` in `cwd` with `env`, the environment a spawned `cairn` would get; `processEnv`
 * is the one the thread starts with (the same, less what one call adds, such as its identity).
 */
export function cairnInThread(
  cwd: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  processEnv: NodeJS.ProcessEnv,
): ArrangeReply {
  if (failure) throw failure;
  const { worker, signal, replies } = started(processEnv);
  Atomics.store(signal, ANSWERED, 0);
  worker.postMessage({ cwd, env, args } satisfies ArrangeRequest);
  const waited =
    Atomics.load(signal, UNLOADED) === 1 ? "unloaded" : Atomics.wait(signal, ANSWERED, 0, ANSWER_MS);
  if (Atomics.load(signal, UNLOADED) === 1) {
    const why = receiveMessageOnPort(replies)?.message as ArrangeReply | undefined;
    failure = new Error(`the arrange thread could not load its code: ${why?.stderr ?? "no reason given"}`);
    throw failure;
  }
  if (waited === "timed-out") {
    throw failure ?? new Error(`cairn ${args.join(" ")} did not finish within ${ANSWER_MS / 1000} s`);
  }
  const reply = receiveMessageOnPort(replies)?.message as ArrangeReply | undefined;
  if (!reply) throw new Error(`cairn ${args.join(" ")}: its thread answered nothing`);
  return reply;
}
