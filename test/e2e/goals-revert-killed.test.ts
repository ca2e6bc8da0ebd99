import { spawn } from "node:child_process";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { checkRun, gitWorkspace, nodeArgv, openAttempt } from "../helpers/goals.js";
import { waitFor } from "../helpers/processes.js";
import { CAIRN_BIN, cairn, cleanEnv, runSync } from "../helpers/workspace.js";

let repo: { dir: string; cleanup: () => void };
beforeEach(() => {
  repo = gitWorkspace({ "a.txt": "base a\n", "z.txt": "base z\n", ".gitattributes": "z.txt filter=slow\n" });
});
afterEach(() => repo.cleanup());

describe("a revert killed outright after git began restoring", () => {
  it("is named by the next revert, with the files it was discarding", async () => {
    const attempt = openAttempt(repo.dir, checkRun(repo.dir, { argv: nodeArgv("process.exit(0)") }));
    writeFileSync(join(repo.dir, "a.txt"), "the attempt's a\n");
    writeFileSync(join(repo.dir, "z.txt"), "the attempt's z\n");
    // git restores a.txt, then stalls in z.txt's smudge filter, where the revert is killed: a.txt
    // is back to its base with nothing recorded.
    const marker = join(repo.dir, ".git", "smudging");
    runSync("git", ["config", "filter.slow.clean", "cat"], repo.dir);
    runSync("git", ["config", "filter.slow.smudge", `sh -c 'touch ${marker}; sleep 60; cat'`], repo.dir);
    const revert = spawn(process.execPath, [CAIRN_BIN, "attempt", "revert", attempt, "--confirm"], {
      cwd: repo.dir,
      env: cleanEnv(),
      stdio: "ignore",
      detached: true,
    });
    try {
      await waitFor(() => existsSync(marker), 20_000, "git to reach z.txt's smudge filter");
    } finally {
      process.kill(-(revert.pid as number), "SIGKILL");
    }
    await new Promise((resolve) => revert.on("close", resolve));
    expect(readFileSync(join(repo.dir, "a.txt"), "utf8")).toBe("base a\n");

    // What git says to do after a git killed mid-write, and the filter gone: the revert again.
    rmSync(join(repo.dir, ".git", "index.lock"), { force: true });
    runSync("git", ["config", "--unset", "filter.slow.smudge"], repo.dir);
    const again = cairn(repo.dir, ["attempt", "revert", attempt, "--confirm", "--json"]);
    expect(again.code, again.stderr).toBe(0);
    const out = again.json as { discarded: string[]; interrupted?: { at: string; discarding: string[] }[] };
    expect(out.discarded).not.toContain("a.txt");
    expect(out.interrupted).toEqual([{ at: expect.any(String), discarding: ["a.txt", "z.txt"] }]);
    expect(readFileSync(join(repo.dir, "z.txt"), "utf8")).toBe("base z\n");
    // The journal keeps it with the revert.
    const shown = cairn(repo.dir, ["activity", "--action", "attempt.revert", "--json"]);
    expect(shown.stdout).toContain('"interrupted"');
  }, 40_000);
});
