import { execFileSync, spawn } from "node:child_process";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { until } from "../helpers/agents.js";
import { cairnJson, checkRun, gitWorkspace, nodeArgv, openAttempt } from "../helpers/goals.js";
import { holdWorkspaceLock } from "../helpers/pg-lock.js";
import { schemaOf } from "../helpers/raw-store.js";
import { CAIRN_BIN, cairn, cairnAsync, cleanEnv, STORE_UNDER_TEST } from "../helpers/workspace.js";

let ws: { dir: string; cleanup: () => void };
beforeEach(() => {
  ws = gitWorkspace({ "lib.txt": "good\n" });
});
afterEach(() => ws.cleanup());

const CHECK = nodeArgv("process.exit(require('fs').readFileSync('lib.txt','utf8').trim()==='good'?0:1)");
const git = (...args: string[]) => execFileSync("git", args, { cwd: ws.dir, encoding: "utf8" }).trim();
const sleep = (ms: number) => new Promise((wake) => setTimeout(wake, ms));

/**
 * Another writer holding the workspace's write lock, as a long write would: a decide or revert
 * started now reads and works on the checkout, then waits at its first write until `release`.
 * `blocked` resolves once a cairn waits (on PostgreSQL, seen in its locks; on SQLite, after a
 * time well past what the reading takes).
 */
async function holdWrites(dir: string) {
  if (STORE_UNDER_TEST === "postgres") {
    const held = await holdWorkspaceLock(schemaOf(dir));
    return {
      blocked: () => held.someoneWaits(),
      release: async () => {
        await held.release();
        await held.end();
      },
    };
  }
  const db = new Database(join(dir, ".cairn", "cairn.db"));
  db.exec("BEGIN IMMEDIATE");
  return {
    blocked: () => sleep(3_000),
    release: async () => {
      db.exec("ROLLBACK");
      db.close();
    },
  };
}

/** An attempt whose own change (feature.txt) passes, evaluated: a decide keeps it. */
function evaluatedAttempt(): string {
  const run = checkRun(ws.dir, { argv: CHECK });
  const attempt = openAttempt(ws.dir, run);
  writeFileSync(join(ws.dir, "feature.txt"), "measured\n");
  cairnJson(ws.dir, ["attempt", "eval", attempt]);
  return attempt;
}

describe("a keep commits the tree it measured", () => {
  it("a file written while decide keeps is never committed under the keep", async () => {
    const attempt = evaluatedAttempt();
    const base = git("rev-parse", "HEAD");
    const held = await holdWrites(ws.dir);
    const decided = cairnAsync(ws.dir, ["attempt", "decide", attempt, "--json"]);
    try {
      await held.blocked();
      // Measured already; the keep has not committed yet. The builder breaks the checked file and
      // adds one nobody measured.
      writeFileSync(join(ws.dir, "lib.txt"), "broken\n");
      writeFileSync(join(ws.dir, "feature.txt"), "not measured\n");
      writeFileSync(join(ws.dir, "evil.txt"), "never measured\n");
    } finally {
      await held.release();
    }
    const result = await decided;
    // Kept as measured, or refused: never a commit holding what came after the measuring.
    if (result.code === 0) {
      expect(result.json).toMatchObject({ verdict: "keep" });
      expect(git("rev-parse", "HEAD^")).toBe(base);
      expect(git("show", "HEAD:lib.txt")).toBe("good");
      expect(git("show", "HEAD:feature.txt")).toBe("measured");
      expect(git("ls-tree", "--name-only", "HEAD")).not.toContain("evil.txt");
      // The later edits stay in the work tree, uncommitted, as git sees them.
      expect(git("status", "--porcelain", "--", ".", ":(exclude).cairn").split("\n").sort()).toEqual([
        " M feature.txt",
        " M lib.txt",
        "?? evil.txt",
      ]);
    } else {
      expect(result.code).toBe(3);
      expect(git("rev-parse", "HEAD")).toBe(base);
    }
  });

  it("a keep killed after its commit, before its verdict: the next decide names that commit, and eval then decide records it", async () => {
    const attempt = evaluatedAttempt();
    const base = git("rev-parse", "HEAD");
    // A post-commit hook that waits: the commit is made, the verdict not yet recorded.
    const hook = join(ws.dir, ".git", "hooks", "post-commit");
    writeFileSync(hook, "#!/bin/sh\ntouch .git/committed\nwhile [ ! -f .git/go ]; do sleep 0.05; done\n", {
      mode: 0o755,
    });
    const child = spawn(process.execPath, [CAIRN_BIN, "attempt", "decide", attempt, "--run-hooks"], {
      cwd: ws.dir,
      env: cleanEnv(),
      stdio: "ignore",
    });
    const closed = new Promise((resolve) => child.on("close", resolve));
    try {
      await until(() => existsSync(join(ws.dir, ".git", "committed")), 20_000);
      child.kill("SIGKILL");
      await closed;
    } finally {
      // The hook outlives the killed cairn (its own process group): let it end.
      writeFileSync(join(ws.dir, ".git", "go"), "");
      rmSync(hook);
    }
    const kept = git("rev-parse", "HEAD");
    expect(git("rev-parse", "HEAD^")).toBe(base);
    const again = cairn(ws.dir, ["attempt", "decide", attempt]);
    expect(again.code).toBe(3);
    expect(again.stderr).toContain(`committed its changes as ${kept.slice(0, 12)} and was stopped`);
    cairnJson(ws.dir, ["attempt", "eval", attempt]);
    expect(cairnJson(ws.dir, ["attempt", "decide", attempt])).toMatchObject({
      verdict: "keep",
      kept_commit: kept,
    });
    expect(git("rev-parse", "HEAD")).toBe(kept);
  });

  it("a keep with nothing racing it leaves the checkout clean, its index in step with the commit", () => {
    const attempt = evaluatedAttempt();
    writeFileSync(join(ws.dir, "lib.txt"), "good\n");
    const decided = cairnJson<{ verdict: string; kept_commit: string }>(ws.dir, [
      "attempt",
      "decide",
      attempt,
    ]);
    expect(decided.verdict).toBe("keep");
    expect(git("rev-parse", "HEAD")).toBe(decided.kept_commit);
    expect(git("status", "--porcelain", "--", ".", ":(exclude).cairn")).toBe("");
    expect(git("show", "HEAD:feature.txt")).toBe("measured");
  });
});

describe("keep and revert of one attempt at once", () => {
  it("one of them happens; the attempt is never both kept and reverted, nor its commit's files deleted", async () => {
    const attempt = evaluatedAttempt();
    const base = git("rev-parse", "HEAD");
    const held = await holdWrites(ws.dir);
    const decided = cairnAsync(ws.dir, ["attempt", "decide", attempt, "--json"]);
    let reverted: ReturnType<typeof cairnAsync> | undefined;
    try {
      await held.blocked();
      reverted = cairnAsync(ws.dir, ["attempt", "revert", attempt, "--confirm", "--json"]);
      await sleep(STORE_UNDER_TEST === "postgres" ? 1_500 : 2_000);
    } finally {
      await held.release();
    }
    const [decide, revert] = await Promise.all([decided, reverted as ReturnType<typeof cairnAsync>]);
    const shown = cairnJson<{ attempt: { verdict: string | null; reverted_at: string | null } }>(ws.dir, [
      "attempt",
      "show",
      attempt,
    ]).attempt;
    const status = git("status", "--porcelain", "--", ".", ":(exclude).cairn");
    if (decide.code === 0) {
      // Kept first: the revert is refused, and the commit's files are all there.
      expect(revert.code, revert.stderr).toBe(3);
      expect(shown).toMatchObject({ verdict: "keep", reverted_at: null });
      expect(git("rev-parse", "HEAD^")).toBe(base);
      expect(status).toBe("");
      expect(readFileSync(join(ws.dir, "feature.txt"), "utf8")).toBe("measured\n");
    } else {
      // Reverted first: the decide is refused, and nothing was committed.
      expect(revert.code, revert.stderr).toBe(0);
      expect(decide.code, decide.stderr).toBe(3);
      expect(shown).toMatchObject({ verdict: null, reverted_at: expect.any(String) });
      expect(git("rev-parse", "HEAD")).toBe(base);
      expect(status).toBe("");
    }
  });
});

describe("a file swapped while an evaluator runs", () => {
  it("is no sample of the tree put back after it: a broken tree is never kept on a passing tree's run", async () => {
    // The evaluator says where it is through files in .git (no part of the tree), so the swap
    // lands exactly while it runs, as a builder watching the process list would time it.
    const steps = nodeArgv(
      [
        "const fs=require('fs');",
        "const wait=(f)=>{while(!fs.existsSync(f))Atomics.wait(new Int32Array(new SharedArrayBuffer(4)),0,0,10)};",
        "fs.writeFileSync('.git/started','');wait('.git/go');",
        "const ok=fs.readFileSync('lib.txt','utf8').trim()==='good';",
        "fs.writeFileSync('.git/read','');wait('.git/finish');process.exit(ok?0:1)",
      ].join(""),
    );
    const run = checkRun(ws.dir, { argv: steps });
    const attempt = openAttempt(ws.dir, run);
    const base = git("rev-parse", "HEAD");
    const at = (name: string) => join(ws.dir, ".git", name);
    const reached = async (name: string) => {
      while (!existsSync(at(name))) await sleep(10);
    };
    writeFileSync(join(ws.dir, "lib.txt"), "broken\n");
    const evaluated = cairnAsync(ws.dir, ["attempt", "eval", attempt, "--json"]);
    await reached("started");
    writeFileSync(join(ws.dir, "lib.txt"), "good\n");
    writeFileSync(at("go"), "");
    await reached("read");
    writeFileSync(join(ws.dir, "lib.txt"), "broken\n");
    writeFileSync(at("finish"), "");
    expect((await evaluated).code).toBe(0);
    const decided = cairnAsync(ws.dir, ["attempt", "decide", attempt, "--json"]);
    const result = await decided;
    expect(result.json).toMatchObject({ refused: { policy: "evidence" } });
    expect(git("rev-parse", "HEAD")).toBe(base);
  });
});
