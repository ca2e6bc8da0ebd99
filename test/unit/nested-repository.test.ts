import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { holdsCommits } from "../../src/domains/goals/nested-repository.js";

/** Whether a repository nested in a checkout holds a commit, read from its files. */
describe("holdsCommits", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "cairn-nested-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const git = (...args: string[]) => {
    const run = spawnSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: dir });
    if (run.status !== 0) throw new Error(`git ${args.join(" ")}: ${run.stderr}`);
  };

  it("is false for a repository just made, true once it has a commit", () => {
    git("init", "-q");
    expect(holdsCommits(dir)).toBe(false);
    writeFileSync(join(dir, "f"), "x\n");
    git("add", "f");
    git("commit", "-qm", "one");
    expect(holdsCommits(dir)).toBe(true);
  });

  it("takes a HEAD or packed-refs that is no regular file (a FIFO) as holding one, without waiting on it", () => {
    for (const name of ["HEAD", "packed-refs"]) {
      const gitDir = join(dir, name, ".git");
      mkdirSync(join(gitDir, "refs", "heads"), { recursive: true });
      if (name === "packed-refs") writeFileSync(join(gitDir, "HEAD"), "ref: refs/heads/main\n");
      const fifo = spawnSync("mkfifo", [join(gitDir, name)]);
      expect(fifo.status).toBe(0);
      // Unreadable, so kept, as any form not read plainly is.
      expect(holdsCommits(join(dir, name))).toBe(true);
    }
  });
});
