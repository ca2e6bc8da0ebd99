// First, as in src/main.ts: every schema built after this import is jitless.
import "../../src/kernel/zod-jitless.js";
import { type MessagePort, parentPort, workerData } from "node:worker_threads";
import { Session } from "../../src/commands/context.js";
import { runCli } from "../../src/faces/cli/program.js";
import type { ArrangeReply, ArrangeRequest } from "./arrange.js";

/**
 * The thread behind test/helpers/arrange.ts: each request is one `cairn` invocation, run through
 * the CLI face's own parse and dispatch over a session of its own, as `cairn` runs it.
 */
const { signal, replies } = workerData as { signal: Int32Array; replies: MessagePort };

parentPort?.on("message", async (request: ArrangeRequest) => {
  let stdout = "";
  let stderr = "";
  let code: number;
  const session = new Session({ cwd: request.cwd, env: request.env });
  try {
    code = await runCli(request.args, session, {
      stdout: (text) => {
        stdout += text;
      },
      stderr: (text) => {
        stderr += text;
      },
    });
  } catch (error) {
    code = -1;
    stderr += `internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`;
  } finally {
    await session.close().catch(() => undefined);
  }
  replies.postMessage({ code, stdout, stderr } satisfies ArrangeReply);
  // The ANSWERED slot of arrange.ts.
  Atomics.store(signal, 0, 1);
  Atomics.notify(signal, 0);
});
