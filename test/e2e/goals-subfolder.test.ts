import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cairnJson, checkRun, forgeIndexEntry, gitRepo, openAttempt } from "../helpers/goals.js";
import { addAgent, cairn, runSync } from "../helpers/workspace.js";

// A workspace made in a folder of a repository (a monorepo's package): its evaluators run there,
// and read what they name above it as readily as what is inside. A builder with a write grant can
// edit every file of the checkout, so what judges it must be frozen wherever in it it lies.

describe("goals in a workspace below the top of its repository", () => {
  let repo: { dir: string; cleanup: () => void };
  let pkg: string;
  beforeEach(() => {
    repo = gitRepo("cairn-goal-sub-");
    pkg = join(repo.dir, "pkg");
    mkdirSync(pkg);
    mkdirSync(join(repo.dir, "shared", "checks"), { recursive: true });
    // The check judges through a helper beside it: a harness, as one inside the workspace is.
    writeFileSync(join(repo.dir, "shared", "checks", "run.js"), "process.exit(require('./verdict.js')())\n");
    writeFileSync(join(repo.dir, "shared", "checks", "verdict.js"), "module.exports = () => 1;\n");
    writeFileSync(join(pkg, "README.md"), "a package\n");
    runSync("git", ["add", "-A"], repo.dir);
    runSync("git", ["commit", "-qm", "base"], repo.dir);
    expect(cairn(pkg, ["init"]).code).toBe(0);
  });
  afterEach(() => repo.cleanup());

  const frozenInputs = (run: string) =>
    cairnJson<{ run: { evaluators: { inputs: string[] }[] } }>(pkg, ["run", "status", run]).run.evaluators[0]
      ?.inputs;
  /** A builder's attempt on `run`: its token, and the attempt opened. */
  const builderAttempt = (run: string) => {
    const agent = { CAIRN_AGENT: addAgent(pkg, "bob", "builder").token };
    return { agent, attempt: openAttempt(pkg, run, agent) };
  };
  /** A builder's attempt that writes `content` to `file` (repository-relative), evaluated, then decided. */
  const decidedAfterWriting = (run: string, file: string, content: string) => {
    const { agent, attempt } = builderAttempt(run);
    writeFileSync(join(repo.dir, file), content);
    expect(cairn(pkg, ["attempt", "eval", attempt], { env: agent }).code).toBe(0);
    return cairnJson<{ verdict: string; reasons: string[] }>(pkg, ["attempt", "decide", attempt], agent);
  };
  /** The package's check, committed: it judges code kept above it, in shared/lib.js. */
  const checkAbove = () => {
    writeFileSync(join(repo.dir, "shared", "lib.js"), "module.exports = () => 'bad';\n");
    writeFileSync(join(pkg, "check.js"), "process.exit(require('../shared/lib.js')() === 'good' ? 0 : 1);\n");
    runSync("git", ["add", "-A", "--", ":/shared", "check.js"], pkg);
    runSync("git", ["commit", "-qm", "a check"], pkg);
    return checkRun(pkg, { argv: ["node", "check.js"] });
  };

  it("freezes a check its argv names above the workspace, and its helpers, and never keeps an attempt that rewrites one", () => {
    const run = checkRun(pkg, { argv: ["node", "../shared/checks/run.js"] });
    expect(frozenInputs(run)).toEqual(["shared/checks/run.js", "shared/checks/verdict.js"]);
    const decided = decidedAfterWriting(run, "shared/checks/verdict.js", "module.exports = () => 0;\n");
    expect(decided.verdict).toBe("revert");
    expect(decided.reasons.join(" ")).toContain("shared/checks/verdict.js");
  });

  it("freezes declared inputs above the workspace that lie in its checkout, and no file outside it", () => {
    writeFileSync(join(repo.dir, "shared", "data.txt"), "expected\n");
    const run = checkRun(pkg, {
      argv: ["node", "-e", "process.exit(0)"],
      inputs: ["../shared/*.txt", "../../*.txt", "/etc/hostname"],
    });
    expect(frozenInputs(run)).toEqual(["shared/data.txt"]);
    expect(decidedAfterWriting(run, "shared/data.txt", "whatever passes\n").verdict).toBe("revert");
  });

  it("does not keep an attempt whose evaluation read an edit above the workspace, undone before the decision", () => {
    const { agent, attempt } = builderAttempt(checkAbove());
    writeFileSync(join(pkg, "README.md"), "a package, improved\n");
    writeFileSync(join(repo.dir, "shared", "lib.js"), "module.exports = () => 'good';\n");
    expect(cairn(pkg, ["attempt", "eval", attempt], { env: agent }).code).toBe(0);
    runSync("git", ["checkout", "--", ":/shared/lib.js"], pkg);
    const decided = cairn(pkg, ["attempt", "decide", attempt], { env: agent });
    expect(decided.code).toBe(3);
    expect(decided.stderr).toContain("changed since it was evaluated");
    expect(runSync("git", ["log", "--format=%s"], repo.dir)).not.toContain("cairn: keep");
  });

  it("refuses to evaluate an edit above the workspace that git is told to skip", () => {
    const { agent, attempt } = builderAttempt(checkAbove());
    // Marked, its edit shows in no `git status`, and so in no fingerprint of the tree.
    runSync("git", ["update-index", "--assume-unchanged", "--", "../shared/lib.js"], pkg);
    writeFileSync(join(repo.dir, "shared", "lib.js"), "module.exports = () => 'good';\n");
    const evaluated = cairn(pkg, ["attempt", "eval", attempt], { env: agent });
    expect(evaluated.code).toBe(3);
    expect(evaluated.stderr).toContain(
      'edits git does not see (a file marked assume-unchanged or skip-worktree, or an index entry that records other content than its file holds): "shared/lib.js"',
    );
  });

  it("never keeps an attempt that adds package-runner configuration at the repository's top", () => {
    // npm run in a package of a workspaces monorepo reads the top's .npmrc as its project's.
    writeFileSync(
      join(repo.dir, "package.json"),
      `${JSON.stringify({ private: true, workspaces: ["pkg"] })}\n`,
    );
    writeFileSync(
      join(pkg, "package.json"),
      `${JSON.stringify({ name: "pkg", version: "1.0.0", scripts: { test: "node check.js" } })}\n`,
    );
    writeFileSync(join(pkg, "check.js"), "process.exit(1);\n");
    runSync("git", ["add", "-A", "--", ":/package.json", "package.json", "check.js"], pkg);
    runSync("git", ["commit", "-qm", "npm"], pkg);
    const run = checkRun(pkg, { argv: ["npm", "test", "--silent"] });
    expect(frozenInputs(run)).toContain(".npmrc");
    const decided = decidedAfterWriting(run, ".npmrc", "script-shell=/bin/true\n");
    expect(decided.verdict).toBe("revert");
    expect(decided.reasons.join(" ")).toContain(".npmrc");
  });

  it("opens an attempt in the linked worktree it is asked from, with the workspace reached through a link", () => {
    const run = checkRun(pkg, { argv: ["node", "-e", "process.exit(0)"] });
    const link = join(repo.dir, "..", `${repo.dir.split("/").pop()}-link`);
    symlinkSync(pkg, link);
    const tree = `${repo.dir}-feature`;
    runSync("git", ["worktree", "add", "-q", tree, "-b", "feature"], repo.dir);
    try {
      const opened = cairnJson<{ attempt: { checkout: string } }>(
        join(tree, "pkg"),
        ["attempt", "open", run],
        {
          CAIRN_DIR: link,
        },
      );
      expect(realpathSync(opened.attempt.checkout)).toBe(realpathSync(join(tree, "pkg")));
    } finally {
      runSync("git", ["worktree", "remove", "--force", tree], repo.dir);
      runSync("rm", ["-f", link], repo.dir);
    }
  });

  it("measures the base in its own copy of the workspace's folder, with the workspace reached through a link", () => {
    const run = checkRun(pkg, {
      argv: ["node", "-e", "console.log('value', require('fs').readFileSync('README.md', 'utf8').length)"],
      read: "regex",
      pattern: "value ([0-9]+)",
    });
    const link = join(repo.dir, "..", `${repo.dir.split("/").pop()}-link`);
    symlinkSync(pkg, link);
    try {
      const env = { CAIRN_DIR: link };
      const attempt = openAttempt(pkg, run, env);
      writeFileSync(join(pkg, "README.md"), "a package, longer now\n");
      const evaluated = cairnJson<{
        samples: { side: string; value: number | null; error: string | null }[];
      }>(pkg, ["attempt", "eval", attempt], env);
      const base = evaluated.samples.filter((sample) => sample.side === "base");
      expect(base.length).toBeGreaterThan(0);
      for (const sample of base) expect(sample).toMatchObject({ error: null, value: "a package\n".length });
    } finally {
      runSync("rm", ["-f", link], repo.dir);
    }
  });

  it("refuses to evaluate an edit hidden by a forged index entry, with the workspace reached through a link", () => {
    const run = checkRun(pkg, { argv: ["node", "-e", "process.exit(0)"] });
    const link = join(repo.dir, "..", `${repo.dir.split("/").pop()}-link`);
    symlinkSync(pkg, link);
    try {
      const env = { CAIRN_DIR: link };
      const attempt = openAttempt(pkg, run, env);
      writeFileSync(join(pkg, "README.md"), "a package, edited where git does not look\n");
      forgeIndexEntry(repo.dir, "pkg/README.md", "a package\n");
      const evaluated = cairn(pkg, ["attempt", "eval", attempt], { env });
      expect(evaluated.code).toBe(3);
      expect(evaluated.stderr).toContain("edits git does not see");
      expect(evaluated.stderr).toContain('"pkg/README.md"');
    } finally {
      runSync("rm", ["-f", link], repo.dir);
    }
  });
});
