import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { livePidIn } from "../../src/domains/agents/daemon-lock.js";
import { scratchDir } from "../helpers/workspace.js";

/**
 * A lock file from before daemons kept their start names a pid alone: it is trusted only while
 * that pid is a cairn daemon. Any live pid written there (`1`) kept every daemon from starting.
 */
describe("a daemon lock that names a pid without its start", () => {
  const scratch = scratchDir();
  const lock = join(scratch.dir, "daemon.pid");
  const children: ReturnType<typeof spawn>[] = [];
  afterEach(() => {
    for (const child of children.splice(0)) child.kill("SIGKILL");
  });
  afterAll(() => scratch.cleanup());

  it("is held by a live cairn daemon, and by no other live process", async () => {
    // A process whose command line is a cairn daemon's (`node …/cairn.cjs daemon`).
    const daemon = spawn(process.execPath, [
      "-e",
      "setInterval(() => {}, 1000)",
      "/opt/cairn/bin/cairn.cjs",
      "daemon",
    ]);
    children.push(daemon);
    await new Promise((resolve) => daemon.once("spawn", resolve));
    writeFileSync(lock, `${daemon.pid}\n`);
    expect(livePidIn(lock)).toBe(daemon.pid);
    for (const pid of [1, process.pid]) {
      writeFileSync(lock, `${pid}\n`);
      expect(livePidIn(lock), `pid ${pid}`).toBeUndefined();
    }
  });
});
