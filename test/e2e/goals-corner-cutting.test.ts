import {
  appendFileSync,
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  arrangeJson,
  cairnJson,
  checkRun,
  contractWith,
  evalInBackground,
  evaluatorToml,
  freezeRun,
  gitWorkspace,
  nodeArgv,
  openAttempt,
  writePack,
} from "../helpers/goals.js";
import { pidFrom, waitFor } from "../helpers/processes.js";
import { addAgent, cairn, runSync, scratchDir } from "../helpers/workspace.js";

/**
 * A builder with a read-write grant that wants a keep it has not earned: each test is one way
 * around the gate, driven through the built binary, and each must fail to reach keep.
 */
let ws: { dir: string; cleanup: () => void };
let builder: { CAIRN_AGENT: string };
beforeEach(() => {
  ws = gitWorkspace({ "lib.txt": "good\n" });
  builder = { CAIRN_AGENT: addAgent(ws.dir, "bob", "builder").token };
});
afterEach(() => ws.cleanup());

const CHECK = nodeArgv("process.exit(require('fs').readFileSync('lib.txt','utf8').trim()==='good'?0:1)");

/**
 * An attempt on a run whose evaluator is `node run.js` over frozen inputs `checks/**`: run.js and
 * the checks (`.sh` ones executable) committed first.
 */
function attemptOverChecks(runJs: string, checks: Record<string, string>): string {
  writeFileSync(join(ws.dir, "run.js"), runJs);
  mkdirSync(join(ws.dir, "checks"));
  for (const [name, text] of Object.entries(checks)) {
    writeFileSync(join(ws.dir, "checks", name), text);
    if (name.endsWith(".sh")) chmodSync(join(ws.dir, "checks", name), 0o755);
  }
  runSync("git", ["add", "-A"], ws.dir);
  runSync("git", ["commit", "-qm", "checks"], ws.dir);
  return openAttempt(
    ws.dir,
    checkRun(ws.dir, { argv: [process.execPath, "run.js"], inputs: ["checks/**"] }),
    builder,
  );
}

interface Decision {
  verdict: "keep" | "revert" | "review";
  reasons: string[];
}

describe("a milestone's proofs against an older run", () => {
  it("refuses to open an attempt for a milestone on a run that does not measure its proofs, and never keeps one", () => {
    const goal = contractWith(ws.dir, [{ name: "check", threshold: 1 }]);
    writePack(
      ws.dir,
      "fixture",
      evaluatorToml({ name: "fixture-check", proof: "check", argv: CHECK }) +
        evaluatorToml({ name: "fixture-security", proof: "security", argv: nodeArgv("process.exit(1)") }),
    );
    const old = freezeRun(ws.dir, goal);
    // The owner adds a proof and a milestone that requires it, and freezes a run that measures it.
    arrangeJson(ws.dir, ["goal", "update", goal, "--proofs", '{"name":"security","threshold":1}']);
    const secure = cairnJson<{ milestones: { id: string; key: string }[] }>(ws.dir, [
      "goal",
      "plan",
      goal,
      "--milestones",
      '{"key":"core","title":"core","proofs":["check"]}',
      "--milestones",
      '{"key":"sec","title":"secure it","proofs":["security"],"depends_on":["core"]}',
    ]).milestones.find((m) => m.key === "sec")?.id as string;
    const current = freezeRun(ws.dir, goal);

    // The old run knows nothing of `security`, and a later freeze replaced it: it judges nothing now.
    const opened = cairn(ws.dir, ["attempt", "open", old, "--milestone", secure, "--json"], { env: builder });
    expect(opened.code).toBe(3);
    expect(opened.stdout).toMatch(/superseded/);
    expect(opened.stdout).toContain(current);

    // On the current run the security evaluator fails: revert, not keep.
    const attempt = cairnJson<{ attempt: { id: string } }>(
      ws.dir,
      ["attempt", "open", current, "--milestone", secure],
      builder,
    ).attempt.id;
    cairnJson(ws.dir, ["attempt", "eval", attempt], builder);
    expect(cairnJson<Decision>(ws.dir, ["attempt", "decide", attempt], builder).verdict).toBe("revert");
  });
});

describe("a bar the owner raised by freezing again", () => {
  it("judges no attempt, and finishes no milestone, by the run the owner's later freeze replaced", () => {
    writeFileSync(join(ws.dir, "score.txt"), "60\n");
    runSync("git", ["add", "-A"], ws.dir);
    runSync("git", ["commit", "-qm", "a score"], ws.dir);
    const goal = contractWith(ws.dir, [{ name: "quality", threshold: 50 }]);
    const pack = (threshold: number) =>
      writePack(
        ws.dir,
        "fixture",
        evaluatorToml({
          name: "fixture-quality",
          proof: "quality",
          argv: nodeArgv("console.log('score ' + require('fs').readFileSync('score.txt', 'utf8').trim())"),
          read: "regex",
          pattern: "score (\\d+)",
          direction: "higher",
          threshold,
        }),
      );
    pack(50);
    const milestone = cairnJson<{ milestones: { id: string; task_id: string }[] }>(ws.dir, [
      "goal",
      "plan",
      goal,
    ]).milestones[0] as { id: string; task_id: string };
    const old = freezeRun(ws.dir, goal);
    // An attempt opened under the old bar, still under way when the owner raises it to 90.
    const underWay = cairnJson<{ attempt: { id: string } }>(
      ws.dir,
      ["attempt", "open", old, "--milestone", milestone.id],
      builder,
    ).attempt.id;
    arrangeJson(ws.dir, ["goal", "update", goal, "--proofs", '{"name":"quality","threshold":90}']);
    pack(90);
    const current = freezeRun(ws.dir, goal);

    // 70 passes the old bar only: the owner decides, and the milestone is not finished meanwhile.
    writeFileSync(join(ws.dir, "score.txt"), "70\n");
    cairnJson(ws.dir, ["attempt", "eval", underWay], builder);
    const decided = cairnJson<Decision>(ws.dir, ["attempt", "decide", underWay], builder);
    expect(decided.verdict).toBe("review");
    expect(decided.reasons.join("\n")).toContain(`superseded by ${current}`);
    arrangeJson(ws.dir, ["task", "claim", milestone.task_id], builder);
    cairn(ws.dir, ["task", "check", milestone.task_id, "--all"], { env: builder });
    expect(cairn(ws.dir, ["task", "finish", milestone.task_id, "--json"], { env: builder }).code).toBe(3);

    // Nor is a new attempt opened on the old run.
    cairnJson(ws.dir, ["attempt", "reject", underWay, "--reason", "below the bar"]);
    cairnJson(ws.dir, ["attempt", "revert", underWay, "--confirm"], builder);
    const opened = cairn(ws.dir, ["attempt", "open", old, "--milestone", milestone.id, "--json"], {
      env: builder,
    });
    expect(opened.code).toBe(3);
    expect(opened.stdout).toContain(current);
  });
});

describe("a measurement the code under test prints itself", () => {
  /**
   * A latency harness (frozen: its argv names it) that prints the cost of the code under test,
   * and an attempt whose code leaves the cost as it was and prints a figure of its own at exit.
   */
  function forgedLatency(
    match: "last" | "only" | null,
    atExit = "process.on('exit', () => console.log('time: 1 ms'));",
  ): { verdict: string; reasons: string[] } {
    writeFileSync(join(ws.dir, "lib.js"), "exports.cost = () => 50;\n");
    writeFileSync(join(ws.dir, "bench.js"), "console.log('time: ' + require('./lib.js').cost() + ' ms');\n");
    runSync("git", ["add", "-A"], ws.dir);
    runSync("git", ["commit", "-qm", "a harness"], ws.dir);
    const goal = contractWith(ws.dir, [{ name: "latency", direction: "lower", threshold: 10 }]);
    writePack(
      ws.dir,
      "fixture",
      evaluatorToml({
        name: "fixture-latency",
        proof: "latency",
        argv: [process.execPath, "bench.js"],
        read: "regex",
        pattern: "time: ([0-9.]+) ms",
        direction: "lower",
        threshold: 10,
        ...(match ? { match } : {}),
      }),
    );
    const run = freezeRun(ws.dir, goal);
    const status = cairnJson<{ run: { evaluators: { match: string | null }[] } }>(ws.dir, [
      "run",
      "status",
      run,
    ]);
    expect(status.run.evaluators[0]?.match).toBe(match ?? "last");
    const attempt = openAttempt(ws.dir, run, builder);
    writeFileSync(join(ws.dir, "lib.js"), `exports.cost = () => 50;\n${atExit}\n`);
    cairnJson(ws.dir, ["attempt", "eval", attempt], builder);
    return cairnJson<Decision>(ws.dir, ["attempt", "decide", attempt], builder);
  }

  it("reads the last match by default, which the code under test supplies (the limit match = only closes)", () => {
    expect(forgedLatency(null).verdict).toBe("keep");
  });

  it("never keeps the attempt under match = only: the harness's figure and the forged one differ", () => {
    const decided = forgedLatency("only");
    expect(decided.verdict).toBe("revert");
    expect(decided.reasons.join("\n")).toMatch(/2 different numbers \("50" and "1"\)/);
  });

  it("never keeps it under match = only when the code under test floods the harness's figure out of the output it reads", () => {
    // Past the output cairn keeps in memory only the tail is searched: 2 MB of filler at exit
    // left the forged figure the sole match, and the attempt was kept.
    const decided = forgedLatency(
      "only",
      // Written whole, however slowly the pipe drains: a write at exit is otherwise cut short.
      "process.on('exit', () => { let b = Buffer.from('.'.repeat(2e6) + '\\ntime: 1 ms\\n'); while (b.length) { try { b = b.subarray(require('fs').writeSync(1, b)); } catch (e) { if (e.code !== 'EAGAIN') throw e; } } });",
    );
    expect(decided.verdict).toBe("revert");
    expect(decided.reasons.join("\n")).toContain('match = "only" must see every match');
  });
});

describe("the tree a keep commits is the tree cairn measured", () => {
  it("refuses to decide on samples of another tree: evaluate a passing tree, then break it", () => {
    const run = checkRun(ws.dir, { argv: CHECK });
    const attempt = openAttempt(ws.dir, run, builder);
    writeFileSync(join(ws.dir, "feature.txt"), "the measured feature\n");
    cairnJson(ws.dir, ["attempt", "eval", attempt], builder);
    // After the evaluation: break the checked file and swap the feature.
    writeFileSync(join(ws.dir, "lib.txt"), "broken\n");
    writeFileSync(join(ws.dir, "feature.txt"), "something nobody measured\n");
    const decided = cairn(ws.dir, ["attempt", "decide", attempt, "--json"], { env: builder });
    expect(decided.code).toBe(3);
    expect(decided.stdout).toMatch(/changed since it was evaluated/);
    expect(runSync("git", ["log", "--format=%s"], ws.dir).trim().split("\n")).toHaveLength(1);
    // Evaluated again, the broken tree is what is judged.
    cairnJson(ws.dir, ["attempt", "eval", attempt], builder);
    expect(cairnJson<Decision>(ws.dir, ["attempt", "decide", attempt], builder).verdict).toBe("revert");
  });

  it("refuses to decide after a measured file's executable bit was flipped: git commits the mode too", () => {
    const attempt = openAttempt(ws.dir, checkRun(ws.dir, { argv: CHECK }), builder);
    writeFileSync(join(ws.dir, "tool.sh"), "#!/bin/sh\necho measured as a runnable tool\n");
    chmodSync(join(ws.dir, "tool.sh"), 0o755);
    cairnJson(ws.dir, ["attempt", "eval", attempt], builder);
    chmodSync(join(ws.dir, "tool.sh"), 0o644);
    const decided = cairn(ws.dir, ["attempt", "decide", attempt, "--json"], { env: builder });
    expect(decided.stdout).toMatch(/changed since it was evaluated/);
    expect(runSync("git", ["log", "--format=%s"], ws.dir).trim().split("\n")).toHaveLength(1);
  });

  it("counts no sample the tree changed under: a passing tree swapped in for the evaluator, the broken one put back", async () => {
    const signals = scratchDir("cairn-swap-");
    try {
      // The check waits for the builder's swap before it reads, so the race is won every time.
      const wait = `touch ${signals.dir}/started; while [ ! -e ${signals.dir}/swapped ]; do sleep 0.05; done`;
      const run = checkRun(ws.dir, { argv: ["sh", "-c", `${wait}; grep -q good lib.txt`] });
      const attempt = openAttempt(ws.dir, run, builder);
      writeFileSync(join(ws.dir, "lib.txt"), "broken\n");
      const { exited } = evalInBackground(ws.dir, attempt, builder);
      await waitFor(() => existsSync(join(signals.dir, "started")), 15_000, "the evaluator to start");
      writeFileSync(join(ws.dir, "lib.txt"), "good\n");
      writeFileSync(join(signals.dir, "swapped"), "");
      expect(await exited).toBe(0);
      writeFileSync(join(ws.dir, "lib.txt"), "broken\n");
      // The passing sample stands for no tree: neither the good one it saw nor the broken one kept.
      const decided = cairn(ws.dir, ["attempt", "decide", attempt, "--json"], { env: builder });
      expect(decided.code).toBe(3);
      expect(decided.stdout).toMatch(/changed since it was evaluated/);
      expect(runSync("git", ["log", "--format=%s"], ws.dir).trim().split("\n")).toHaveLength(1);
    } finally {
      signals.cleanup();
    }
  });

  it("counts no later sample whose code swaps a file an earlier sample added to the tree and puts it back", () => {
    // The first sample adds extra.txt (broken) and fails; each later one makes it good, reads it
    // and puts "broken" back, so the tree is the same at both ends of every later sample.
    const argv = nodeArgv(
      [
        "const fs=require('fs');",
        "if(!fs.existsSync('extra.txt')){fs.writeFileSync('extra.txt','broken\\n');process.exit(1)}",
        "fs.writeFileSync('extra.txt','good\\n');",
        "const ok=fs.readFileSync('extra.txt','utf8').trim()==='good';",
        "fs.writeFileSync('extra.txt','broken\\n');process.exit(ok?0:1)",
      ].join(""),
    );
    const attempt = openAttempt(ws.dir, checkRun(ws.dir, { argv, repeats: 3 }), builder);
    cairnJson(ws.dir, ["attempt", "eval", attempt], builder);
    expect(readFileSync(join(ws.dir, "extra.txt"), "utf8")).toBe("broken\n");
    // No sample judged the tree as it stands (broken extra.txt): nothing to keep.
    const decided = cairn(ws.dir, ["attempt", "decide", attempt, "--json"], { env: builder });
    expect(decided.code).toBe(3);
    expect(decided.stdout).toMatch(/changed since it was evaluated/);
    expect(runSync("git", ["log", "--format=%s"], ws.dir).trim().split("\n")).toHaveLength(1);
  });

  it("counts no later sample whose code swaps a file of the tree that was away when the tree's files were listed", async () => {
    const signals = scratchDir("cairn-hide-");
    try {
      // extra.txt, new in the attempt, is part of the tree it keeps: broken.
      const goal = contractWith(ws.dir, [
        { name: "score", threshold: 1 },
        { name: "check", threshold: 1 },
      ]);
      // A noisy number runs on the base first. Its base sample waits there until the builder has
      // moved extra.txt away (a builder's process would watch for the base's worktree), so the
      // tree's files are next listed without it; the attempt's code puts it back as it starts.
      const stash = join(signals.dir, "stash");
      const score = [
        `case "$PWD" in *cairn-base-*) touch ${signals.dir}/started;`,
        `while [ ! -e ${signals.dir}/hidden ]; do sleep 0.05; done;;`,
        `*) if [ -e ${stash} ]; then mv ${stash} extra.txt; fi;; esac; echo 'score 5'`,
      ].join(" ");
      // The check's code makes extra.txt good, reads it and puts "broken" back, every sample.
      const check = nodeArgv(
        "const fs=require('fs');fs.writeFileSync('extra.txt','good\\n');" +
          "const ok=fs.readFileSync('extra.txt','utf8').trim()==='good';" +
          "fs.writeFileSync('extra.txt','broken\\n');process.exit(ok?0:1)",
      );
      writePack(
        ws.dir,
        "fixture",
        evaluatorToml({
          name: "a-score",
          proof: "score",
          argv: ["sh", "-c", score],
          read: "regex",
          pattern: "score (\\d+)",
          direction: "higher",
          threshold: 1,
          noisy: true,
        }) + evaluatorToml({ name: "b-check", proof: "check", argv: check, repeats: 3 }),
      );
      const attempt = openAttempt(ws.dir, freezeRun(ws.dir, goal), builder);
      writeFileSync(join(ws.dir, "extra.txt"), "broken\n");
      const { exited } = evalInBackground(ws.dir, attempt, builder);
      await waitFor(() => existsSync(join(signals.dir, "started")), 15_000, "the base's sample to start");
      writeFileSync(stash, readFileSync(join(ws.dir, "extra.txt")));
      rmSync(join(ws.dir, "extra.txt"));
      writeFileSync(join(signals.dir, "hidden"), "");
      expect(await exited).toBe(0);
      expect(readFileSync(join(ws.dir, "extra.txt"), "utf8")).toBe("broken\n");
      // Every check sample read a good extra.txt the tree never held: none may count.
      const decided = cairn(ws.dir, ["attempt", "decide", attempt, "--json"], { env: builder });
      expect(decided.stdout).not.toMatch(/"verdict": "keep"/);
      expect(runSync("git", ["log", "--format=%s"], ws.dir).trim().split("\n")).toHaveLength(1);
    } finally {
      signals.cleanup();
    }
  });

  /** The builder's attempt on a frozen run whose committed check.js passes when lib.txt says good. */
  function attemptOverCommittedCheck(): string {
    const goal = contractWith(ws.dir, [{ name: "check", threshold: 1 }]);
    writeFileSync(
      join(ws.dir, "check.js"),
      "process.exit(require('fs').readFileSync('lib.txt','utf8').trim()==='good'?0:1)\n",
    );
    runSync("git", ["add", "check.js"], ws.dir);
    runSync("git", ["commit", "-qm", "check"], ws.dir);
    writePack(
      ws.dir,
      "fixture",
      evaluatorToml({ name: "fixture-check", proof: "check", argv: [process.execPath, "check.js"] }),
    );
    return openAttempt(ws.dir, freezeRun(ws.dir, goal), builder);
  }

  /**
   * attemptOverCommittedCheck, a clean copy of HEAD's tree in a scratch folder (what the builder
   * would have git look at), and the builder's edits in the checkout: lib.txt broken, check.js
   * made to pass whatever it reads. `check` runs with both; the copy goes after.
   */
  function withCleanCopyAndEdits(check: (attempt: string, clean: string) => void): void {
    const attempt = attemptOverCommittedCheck();
    const clean = scratchDir("cairn-clean-copy-");
    try {
      runSync("git", [`--work-tree=${clean.dir}`, "checkout", "HEAD", "--", "."], ws.dir);
      writeFileSync(join(ws.dir, "lib.txt"), "broken\n");
      writeFileSync(join(ws.dir, "check.js"), "process.exit(0)\n");
      check(attempt, clean.dir);
    } finally {
      clean.cleanup();
    }
  }

  it("looks at the attempt's checkout whatever git variables the builder runs cairn with (GIT_WORK_TREE at a clean copy)", () => {
    withCleanCopyAndEdits((attempt, clean) => {
      const elsewhere = { ...builder, GIT_WORK_TREE: clean, GIT_DIR: join(ws.dir, ".git") };
      const evaluated = cairnJson<{ input_drift: string[] }>(ws.dir, ["attempt", "eval", attempt], elsewhere);
      expect(evaluated.input_drift).toEqual(["check.js"]);
      expect(cairnJson<Decision>(ws.dir, ["attempt", "decide", attempt], elsewhere).verdict).toBe("revert");
    });
  });

  it("refuses to evaluate, decide or revert a checkout whose git configuration moves its work tree (core.worktree at a clean copy)", () => {
    withCleanCopyAndEdits((attempt, clean) => {
      writeFileSync(join(clean, "unrelated.txt"), "not the attempt's\n");
      runSync("git", ["config", "core.worktree", clean], ws.dir);
      const refusedGit = { refused: { policy: "git" } };
      const evaluated = cairn(ws.dir, ["attempt", "eval", attempt, "--json"], { env: builder });
      expect(evaluated.code).toBe(3);
      expect(evaluated.json).toMatchObject(refusedGit);
      const decided = cairn(ws.dir, ["attempt", "decide", attempt, "--json"], { env: builder });
      expect(decided.code).toBe(3);
      expect(decided.json).toMatchObject(refusedGit);
      // Not even the owner's revert acts on the folder git was pointed at.
      const reverted = cairn(ws.dir, ["attempt", "revert", attempt, "--confirm", "--json"]);
      expect(reverted.code).toBe(3);
      expect(reverted.json).toMatchObject(refusedGit);
      expect(readFileSync(join(clean, "unrelated.txt"), "utf8")).toBe("not the attempt's\n");
      expect(runSync("git", ["log", "--format=%s"], ws.dir).trim().split("\n")).toHaveLength(2);
      // The setting gone, the checkout the evaluator ran in is what is measured.
      runSync("git", ["config", "--unset", "core.worktree"], ws.dir);
      const again = cairnJson<{ input_drift: string[] }>(ws.dir, ["attempt", "eval", attempt], builder);
      expect(again.input_drift).toEqual(["check.js"]);
      expect(cairnJson<Decision>(ws.dir, ["attempt", "decide", attempt], builder).verdict).toBe("revert");
    });
  });

  it("commits a keep on the base's own tree, whatever commit a replace ref puts in its place", () => {
    const strict = "process.exit(require('fs').readFileSync('lib.txt','utf8').trim()==='good'?0:1)\n";
    writeFileSync(join(ws.dir, "check.js"), strict);
    runSync("git", ["add", "check.js"], ws.dir);
    runSync("git", ["commit", "-qm", "check"], ws.dir);
    const run = checkRun(ws.dir, { argv: [process.execPath, "check.js"], inputs: ["check.js"] });
    // The builder puts a forged commit in HEAD's place: its tree's check.js passes anything.
    const forge = [
      "set -e",
      "blob=$(printf 'process.exit(0)\\n' | git hash-object -w --stdin)",
      "export GIT_INDEX_FILE=.git/forged-index",
      "git read-tree HEAD",
      'git update-index --cacheinfo "100644,$blob,check.js"',
      "tree=$(git write-tree)",
      "rm .git/forged-index",
      'git replace HEAD "$(git commit-tree "$tree" -p HEAD^ -m check)"',
    ];
    runSync("sh", ["-c", forge.join("\n")], ws.dir);
    const attempt = openAttempt(ws.dir, run, builder);
    writeFileSync(join(ws.dir, "feature.txt"), "the measured feature\n");
    cairnJson(ws.dir, ["attempt", "eval", attempt], builder);
    expect(cairnJson<Decision>(ws.dir, ["attempt", "decide", attempt], builder).verdict).toBe("keep");
    // The kept commit holds the frozen check the evaluator ran, and the feature it measured.
    expect(runSync("git", ["show", "HEAD:check.js"], ws.dir)).toBe(strict);
    const changed = ["--no-replace-objects", "show", "--name-only", "--format=", "HEAD"];
    expect(runSync("git", changed, ws.dir)).toBe("feature.txt\n");
  });

  it("never keeps an attempt that only flips a frozen check's executable bit, so a runner of executables skips it", () => {
    // run.js runs every executable in checks/, as run-parts does.
    const attempt = attemptOverChecks(
      "const fs=require('fs'),cp=require('child_process');for(const f of fs.readdirSync('checks')){const p='checks/'+f;if(fs.statSync(p).mode&0o111&&cp.spawnSync(p).status!==0)process.exit(1)}\n",
      { "strict.sh": "#!/bin/sh\ngrep -q good lib.txt\n" },
    );
    writeFileSync(join(ws.dir, "lib.txt"), "broken\n");
    chmodSync(join(ws.dir, "checks", "strict.sh"), 0o644);
    const evaluated = cairnJson<{ input_drift: string[]; samples: { value: number }[] }>(
      ws.dir,
      ["attempt", "eval", attempt],
      builder,
    );
    expect(evaluated.samples[0]?.value).toBe(1);
    expect(evaluated.input_drift).toEqual(["checks/strict.sh"]);
    expect(cairnJson<Decision>(ws.dir, ["attempt", "decide", attempt], builder).verdict).toBe("revert");
  });

  it("reports a frozen input that the measured code itself changes while it is measured, and decides nothing on it", () => {
    // The evaluated code rewrites the data its check reads: nothing drifted before the samples.
    const attempt = attemptOverChecks(
      "const fs=require('fs');fs.appendFileSync('checks/data.txt','x\\n');process.exit(0)\n",
      { "data.txt": "frozen\n" },
    );
    const evaluated = cairnJson<{ input_drift: string[] }>(ws.dir, ["attempt", "eval", attempt], builder);
    expect(evaluated.input_drift).toEqual(["checks/data.txt"]);
    // The tree the samples left is not the one they measured: no decision is made on it at all.
    const decided = cairn(ws.dir, ["attempt", "decide", attempt, "--json"], { env: builder });
    expect(decided.code).toBe(3);
    expect(decided.json).toMatchObject({ refused: { policy: "evidence" } });
  });

  it("never keeps an attempt whose code rewrites a frozen file while it is measured and puts it back before it exits", () => {
    // run.js loads the code under test and compares its answer with a frozen expectation.
    const attempt = attemptOverChecks(
      "const fs=require('fs');const app=require(require('path').resolve('app.js'));process.exit(app()===fs.readFileSync('checks/expected.txt','utf8')?0:1)\n",
      { "expected.txt": "42\n" },
    );
    // The attempt's code gives the wrong answer, makes the expectation agree while the check reads
    // it, and puts the file back as the check exits: the hashes before and after are equal.
    writeFileSync(
      join(ws.dir, "app.js"),
      "const fs=require('fs');const kept=fs.readFileSync('checks/expected.txt');" +
        "fs.writeFileSync('checks/expected.txt','41\\n');process.on('exit',()=>fs.writeFileSync('checks/expected.txt',kept));" +
        "module.exports=()=>'41\\n';\n",
    );
    const evaluated = cairnJson<{ input_drift: string[]; samples: { value: number }[] }>(
      ws.dir,
      ["attempt", "eval", attempt],
      builder,
    );
    expect(readFileSync(join(ws.dir, "checks", "expected.txt"), "utf8")).toBe("42\n");
    expect(evaluated.samples[0]?.value).toBe(1);
    expect(evaluated.input_drift).toEqual(["checks/expected.txt"]);
    expect(cairnJson<Decision>(ws.dir, ["attempt", "decide", attempt], builder).verdict).toBe("revert");
  });

  it("refuses the owner's accept of a review whose checkout changed after the decision", () => {
    const goal = contractWith(ws.dir, [
      { name: "check", threshold: 1 },
      { name: "design", manual: true, threshold: 1 },
    ]);
    writePack(ws.dir, "fixture", evaluatorToml({ name: "fixture-check", proof: "check", argv: CHECK }));
    const run = freezeRun(ws.dir, goal);
    const attempt = openAttempt(ws.dir, run, builder);
    writeFileSync(join(ws.dir, "feature.txt"), "reviewed\n");
    cairnJson(ws.dir, ["attempt", "eval", attempt], builder);
    cairnJson(ws.dir, ["attempt", "report", attempt, "--scores", '{"design":1}'], builder);
    expect(cairnJson<Decision>(ws.dir, ["attempt", "decide", attempt], builder).verdict).toBe("review");
    writeFileSync(join(ws.dir, "feature.txt"), "swapped after the review\n");
    const accepted = cairn(ws.dir, ["attempt", "accept", attempt, "--json"]);
    expect(accepted.code).toBe(3);
    expect(accepted.stdout).toMatch(/changed since it was decided/);
    writeFileSync(join(ws.dir, "feature.txt"), "reviewed\n");
    expect(cairn(ws.dir, ["attempt", "accept", attempt, "--json"]).code).toBe(0);
    expect(runSync("git", ["show", "HEAD:feature.txt"], ws.dir)).toBe("reviewed\n");
  });
});

describe("frozen inputs git ignores", () => {
  it("never keeps an attempt that slips a file into a declared input folder and hides it with .git/info/exclude", () => {
    const runner =
      "const fs=require('fs');for(const f of fs.readdirSync('checks/cases').sort())if(require('./cases/'+f)()!==true)process.exit(1)";
    mkdirSync(join(ws.dir, "checks", "cases"), { recursive: true });
    writeFileSync(join(ws.dir, "checks", "run.js"), runner);
    writeFileSync(
      join(ws.dir, "checks", "cases", "a.js"),
      "module.exports=()=>require('fs').readFileSync('lib.txt','utf8').trim()==='good'",
    );
    // A generated file the owner's .gitignore already hides is an input too, and a named one.
    writeFileSync(join(ws.dir, ".gitignore"), "checks/cases/generated.js\nexpected.txt\n");
    writeFileSync(join(ws.dir, "checks", "cases", "generated.js"), "module.exports=()=>true");
    writeFileSync(join(ws.dir, "expected.txt"), "good\n");
    runSync("git", ["add", "-A"], ws.dir);
    runSync("git", ["commit", "-qm", "checks"], ws.dir);
    const run = checkRun(ws.dir, {
      argv: [process.execPath, "checks/run.js", "expected.txt"],
      inputs: ["checks/**"],
    });
    const frozen = cairnJson<{ run: { evaluators: { inputs: string[] }[] } }>(ws.dir, [
      "run",
      "status",
      run,
    ]).run;
    expect(frozen.evaluators[0]?.inputs).toEqual([
      "checks/cases/a.js",
      "checks/cases/generated.js",
      "checks/run.js",
      "expected.txt",
    ]);

    // Nothing changed: an ignored input that is still there is no drift.
    const clean = openAttempt(ws.dir, run, builder);
    expect(
      cairnJson<{ input_drift: string[] }>(ws.dir, ["attempt", "eval", clean], builder).input_drift,
    ).toEqual([]);
    expect(cairnJson<Decision>(ws.dir, ["attempt", "decide", clean], builder).verdict).toBe("keep");

    const attempt = openAttempt(ws.dir, run, builder);
    writeFileSync(join(ws.dir, "lib.txt"), "broken\n");
    appendFileSync(join(ws.dir, ".git", "info", "exclude"), "checks/cases/0.js\n");
    writeFileSync(
      join(ws.dir, "checks", "cases", "0.js"),
      "const fs=require('fs');const read=fs.readFileSync;fs.readFileSync=(p,...a)=>String(p).endsWith('lib.txt')?'good':read(p,...a);module.exports=()=>true",
    );
    const evaluated = cairnJson<{ input_drift: string[] }>(ws.dir, ["attempt", "eval", attempt], builder);
    expect(evaluated.input_drift).toEqual(["checks/cases/0.js"]);
    const decided = cairnJson<Decision>(ws.dir, ["attempt", "decide", attempt], builder);
    expect(decided.verdict).toBe("revert");
    expect(decided.reasons.join("\n")).toMatch(/changes frozen evaluator inputs: checks\/cases\/0\.js/);
  });
});

describe("frozen inputs named by a glob of many stars", () => {
  it("finds a new input among files whose names make a backtracking glob engine take seconds each, in bounded time", () => {
    mkdirSync(join(ws.dir, "checks"));
    writeFileSync(
      join(ws.dir, "checks", "run.js"),
      "process.exit(require('fs').readFileSync('lib.txt','utf8').trim()==='good'?0:1)",
    );
    writeFileSync(join(ws.dir, "checks", "a-b-c-d-e.js"), "");
    runSync("git", ["add", "-A"], ws.dir);
    runSync("git", ["commit", "-qm", "checks"], ws.dir);
    const run = checkRun(ws.dir, {
      argv: [process.execPath, "checks/run.js"],
      inputs: ["checks/*-*-*-*-*.js"],
    });
    const attempt = openAttempt(ws.dir, run, builder);
    // Matched by a backtracking engine, each of these names took about 3 s against the glob, and
    // eval and decide match each three times: 26 s.
    for (let n = 0; n < 3; n++) writeFileSync(join(ws.dir, "checks", `${"-".repeat(200 + n)}.j`), "");
    writeFileSync(join(ws.dir, "checks", "f-g-h-i-j.js"), "");
    const started = performance.now();
    const evaluated = cairnJson<{ input_drift: string[] }>(ws.dir, ["attempt", "eval", attempt], builder);
    expect(evaluated.input_drift).toEqual(["checks/f-g-h-i-j.js"]);
    expect(cairnJson<Decision>(ws.dir, ["attempt", "decide", attempt], builder).verdict).toBe("revert");
    expect(performance.now() - started).toBeLessThan(10_000);
  });
});

describe("an evaluation killed part way", () => {
  it("records nothing: a builder cannot kill it after a lucky sample, put a frozen input back and have that sample kept", async () => {
    writeFileSync(join(ws.dir, ".gitignore"), "expected.txt\nran-once\n");
    writeFileSync(join(ws.dir, "expected.txt"), "fail\n");
    runSync("git", ["add", "-A"], ws.dir);
    runSync("git", ["commit", "-qm", "checks"], ws.dir);
    const pidFile = join(ws.dir, "second.pid");
    const run = checkRun(ws.dir, {
      // The second repeat holds until the test has killed cairn.
      argv: [
        "sh",
        "-c",
        `if [ -e ran-once ]; then echo $$ > "${pidFile}"; exec sleep 60; fi; touch ran-once; grep -q pass expected.txt`,
      ],
      inputs: ["expected.txt"],
      repeats: 2,
    });
    const attempt = openAttempt(ws.dir, run, builder);
    writeFileSync(join(ws.dir, "lib.txt"), "changed\n");
    writeFileSync(join(ws.dir, "expected.txt"), "pass\n");
    const { child: evaluation, exited } = evalInBackground(ws.dir, attempt, builder);
    const second = await pidFrom(pidFile);
    evaluation.kill("SIGKILL");
    await exited;
    process.kill(second, "SIGKILL");
    writeFileSync(join(ws.dir, "expected.txt"), "fail\n");
    const shown = cairnJson<{ samples: unknown[] }>(ws.dir, ["attempt", "show", attempt], builder);
    expect(shown.samples).toEqual([]);
    const decided = cairn(ws.dir, ["attempt", "decide", attempt, "--json"], { env: builder });
    expect(decided.stdout).not.toMatch(/"verdict": "keep"/);
  });
});

describe("frozen inputs behind a symlink", () => {
  it("never keeps an attempt that edits the file a frozen symlink points to", () => {
    mkdirSync(join(ws.dir, "tools"));
    writeFileSync(
      join(ws.dir, "tools", "check.js"),
      "process.exit(require('fs').readFileSync('lib.txt','utf8').trim()==='good'?0:1)",
    );
    symlinkSync(join("tools", "check.js"), join(ws.dir, "check.js"));
    runSync("git", ["add", "-A"], ws.dir);
    runSync("git", ["commit", "-qm", "a check behind a symlink"], ws.dir);
    const run = checkRun(ws.dir, { argv: [process.execPath, "check.js"] });
    const attempt = openAttempt(ws.dir, run, builder);
    writeFileSync(join(ws.dir, "lib.txt"), "broken\n");
    writeFileSync(join(ws.dir, "tools", "check.js"), "process.exit(0)");
    expect(
      cairnJson<{ input_drift: string[] }>(ws.dir, ["attempt", "eval", attempt], builder).input_drift,
    ).toEqual(["check.js"]);
    expect(cairnJson<Decision>(ws.dir, ["attempt", "decide", attempt], builder).verdict).toBe("revert");
  });
});

describe("a hidden holdout in the journal", () => {
  it("keeps a hidden evaluator's command, inputs and dry-run result out of the activity a builder reads", () => {
    mkdirSync(join(ws.dir, "holdout"));
    writeFileSync(join(ws.dir, "holdout", "secret-check.js"), "console.log('score 7')");
    runSync("git", ["add", "-A"], ws.dir);
    runSync("git", ["commit", "-qm", "holdout"], ws.dir);
    const goal = contractWith(ws.dir, [
      { name: "check", threshold: 1 },
      { name: "quality", threshold: 5 },
    ]);
    writePack(
      ws.dir,
      "fixture",
      evaluatorToml({ name: "fixture-check", proof: "check", argv: CHECK }) +
        evaluatorToml({
          name: "holdout-check",
          proof: "check",
          hidden: true,
          argv: [process.execPath, "holdout/secret-check.js"],
        }),
    );
    const proposal = cairnJson<{ proposal: { id: string } }>(ws.dir, [
      "eval",
      "propose",
      goal,
      "--proof",
      "quality",
      "--hidden",
      "--argv",
      process.execPath,
      "--argv",
      "-e",
      "--argv",
      "console.log('secret-quality 9')",
      "--read",
      "regex",
      "--pattern",
      "secret-quality (\\d+)",
    ]).proposal.id;
    cairnJson(ws.dir, ["eval", "approve", proposal]);
    cairnJson(ws.dir, ["run", "freeze", goal]);
    const seen = cairn(ws.dir, ["activity", "--json"], { env: builder });
    expect(seen.code).toBe(0);
    expect(seen.stdout).toContain("run.freeze");
    expect(seen.stdout).not.toMatch(/secret-check|secret-quality|"value": 9/);
    // The audit log, which agents may tail too, records the proposal without its command or rule.
    const audited = cairn(ws.dir, ["audit", "tail", "--json"], { env: builder });
    expect(audited.code).toBe(0);
    expect(audited.stdout).toContain("eval propose");
    expect(audited.stdout).not.toMatch(/secret-quality/);
  });
});

describe("a keep within the builder's role", () => {
  it("never keeps changes out of the scope of the role that opened or decides it: review, for the owner to settle", () => {
    appendFileSync(
      join(ws.dir, ".cairn", "cairn.toml"),
      '\n[roles.builder]\nscope = ["*.txt", "vendor/**"]\nout_of_scope = ["vendor/**"]\n',
    );
    const run = checkRun(ws.dir, { argv: CHECK });
    // Inside the role's scope, a sound attempt is kept as before.
    const inside = openAttempt(ws.dir, run, builder);
    writeFileSync(join(ws.dir, "notes.txt"), "in scope\n");
    cairnJson(ws.dir, ["attempt", "eval", inside], builder);
    expect(cairnJson<Decision>(ws.dir, ["attempt", "decide", inside], builder).verdict).toBe("keep");

    // A path the role keeps out of its reach is no keep cairn commits on the builder's behalf.
    const attempt = openAttempt(ws.dir, run, builder);
    mkdirSync(join(ws.dir, "vendor"));
    writeFileSync(join(ws.dir, "vendor", "lib.js"), "module.exports = () => true;\n");
    appendFileSync(join(ws.dir, "notes.txt"), "more\n");
    cairnJson(ws.dir, ["attempt", "eval", attempt], builder);
    const decided = cairnJson<Decision>(ws.dir, ["attempt", "decide", attempt], builder);
    expect(decided.verdict).toBe("review");
    const reason = decided.reasons.find((r) => r.includes("outside the scope"));
    expect(reason).toContain('"vendor/lib.js"');
    expect(reason).not.toContain("notes.txt");
    expect(runSync("git", ["status", "--porcelain", "--", "vendor"], ws.dir)).toContain("vendor/");
    // The owner's judgment keeps it.
    cairnJson(ws.dir, ["attempt", "accept", attempt, "--reason", "vendored fix reviewed"]);
    expect(runSync("git", ["show", "--name-only", "--format=", "HEAD"], ws.dir)).toContain("vendor/lib.js");
  });

  it("holds the builder to its scope when it reaches the workspace through a link (CAIRN_DIR)", () => {
    appendFileSync(join(ws.dir, ".cairn", "cairn.toml"), '\n[roles.builder]\nout_of_scope = ["vendor/**"]\n');
    const run = checkRun(ws.dir, { argv: CHECK });
    // git names its top by its real path; the link made every changed path `../…`, in no glob.
    const link = `${ws.dir}-link`;
    symlinkSync(ws.dir, link);
    try {
      const viaLink = { ...builder, CAIRN_DIR: link };
      const attempt = openAttempt(link, run, viaLink);
      mkdirSync(join(ws.dir, "vendor"));
      writeFileSync(join(ws.dir, "vendor", "lib.js"), "module.exports = () => true;\n");
      cairnJson(link, ["attempt", "eval", attempt], viaLink);
      const decided = cairnJson<Decision>(link, ["attempt", "decide", attempt], viaLink);
      expect(decided.verdict).toBe("review");
      expect(decided.reasons.join("\n")).toContain(
        'outside the scope of the role of whoever opened or decides it: "vendor/lib.js"',
      );
      expect(runSync("git", ["status", "--porcelain", "--", "vendor"], ws.dir)).toContain("vendor/");
    } finally {
      rmSync(link);
    }
  });
});
