import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { livePidIn } from "../../src/domains/agents/daemon-lock.js";
import { processStart } from "../../src/kernel/processes.js";
import { waitFor } from "../helpers/processes.js";
import { scratchDir } from "../helpers/workspace.js";

/**
 * A lock file is trusted only while the pid it names is a cairn daemon: any live pid written there
 * (`1`, with or without its start) kept every daemon from starting.
 */
describe("a daemon lock", () => {
  const scratch = scratchDir();
  const lock = join(scratch.dir, "daemon.pid");
  const children: ReturnType<typeof spawn>[] = [];
  afterEach(() => {
    for (const child of children.splice(0)) child.kill("SIGKILL");
  });
  afterAll(() => scratch.cleanup());

  /** A live process (its start readable) whose command line is `argv`, killed after the test. */
  async function started(argv: string[]): Promise<number> {
    const child = spawn(argv[0] as string, argv.slice(1));
    children.push(child);
    const pid = child.pid as number;
    await waitFor(() => processStart(pid) !== null);
    return pid;
  }
  // A process whose command line is a cairn daemon's (`node …/cairn.cjs daemon`).
  const daemonLike = [
    process.execPath,
    "-e",
    "setInterval(() => {}, 1000)",
    "/opt/cairn/bin/cairn.cjs",
    "daemon",
  ];

  it("without its holder's start is held by a live cairn daemon, and by no other live process", async () => {
    const daemon = await started(daemonLike);
    writeFileSync(lock, `${daemon}\n`);
    expect(livePidIn(lock)).toBe(daemon);
    for (const pid of [1, process.ppid]) {
      writeFileSync(lock, `${pid}\n`);
      expect(livePidIn(lock), `pid ${pid}`).toBeUndefined();
    }
  });

  it("names its start, and is still held only by a cairn daemon: a writer can copy any process's start", async () => {
    const pid = await started(daemonLike);
    writeFileSync(lock, `${pid} ${processStart(pid)}\n`);
    expect(livePidIn(lock)).toBe(pid);
    const strangerPid = await started(["sleep", "30"]);
    writeFileSync(lock, `${strangerPid} ${processStart(strangerPid)}\n`);
    expect(livePidIn(lock)).toBeUndefined();
  });
});
