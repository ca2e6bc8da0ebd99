import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runChild } from "../../src/kernel/child.js";
import { pidFrom, processGone, waitFor } from "../helpers/processes.js";
import { cairn, initWorkspace } from "../helpers/workspace.js";

/**
 * A command cairn runs to judge work (a verify command, a shortcut, an evaluator) or to serve an
 * agent (a skill script, an OS tool) may start something that leaves its process group with
 * setsid. The group is killed at the command's end; what escaped it is found by its mark.
 */
const leftovers: number[] = [];
afterAll(() => {
  for (const pid of leftovers) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Already gone, as it should be.
    }
  }
});

/** A shell line that starts `sleep 120` outside its own group, writes its pid, and returns. */
const daemonising = (pidFile: string) =>
  `setsid sh -c 'echo $$ > "${pidFile}"; exec sleep 120' </dev/null >/dev/null 2>&1 & until [ -s "${pidFile}" ]; do sleep 0.05; done; echo started`;

describe.skipIf(process.platform !== "linux")("what leaves a command's process group", () => {
  it("is killed at the end when the caller asks (and left alone when it does not: a launcher's job)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cairn-escape-"));
    try {
      for (const killEscaped of [true, false]) {
        const pidFile = join(dir, `${killEscaped}.pid`);
        const result = await runChild({
          argv: ["sh", "-c", daemonising(pidFile)],
          cwd: dir,
          timeoutMs: 10_000,
          killEscaped,
        });
        expect(result.exitCode).toBe(0);
        const pid = await pidFrom(pidFile);
        leftovers.push(pid);
        if (killEscaped) await waitFor(() => processGone(pid), 5_000, `pid ${pid} to be killed`);
        else expect(processGone(pid)).toBe(false);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("leaves nothing behind a verify command that daemonises something", async () => {
    const ws = initWorkspace();
    try {
      const pidFile = join(ws.dir, "verify.pid");
      const criterion = JSON.stringify({ text: "server starts", verify: ["sh", "-c", daemonising(pidFile)] });
      expect(cairn(ws.dir, ["task", "add", "serve", "--criteria", criterion]).code).toBe(0);
      expect(cairn(ws.dir, ["task", "claim", "T-1"]).code).toBe(0);
      const checked = cairn(ws.dir, ["task", "check", "T-1", "--all", "--json"]);
      expect(checked.code, checked.stderr).toBe(0);
      const pid = await pidFrom(pidFile);
      leftovers.push(pid);
      await waitFor(() => processGone(pid), 5_000, `pid ${pid} to be killed`);
    } finally {
      ws.cleanup();
    }
  });
});
