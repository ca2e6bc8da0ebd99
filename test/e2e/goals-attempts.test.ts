import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Session } from "../../src/commands/context.js";
import { until } from "../helpers/agents.js";
import {
  cairnJson,
  contractWith,
  evaluatorToml,
  gitWorkspace,
  nodeArgv,
  writePack,
} from "../helpers/goals.js";
import { newAttempt } from "../helpers/new-attempt.js";
import { addAgent, cairn, cairnAsync, cleanEnv, STORE_UNDER_TEST, scratchDir } from "../helpers/workspace.js";

let ws: { dir: string; cleanup: () => void };
beforeEach(() => {
  ws = gitWorkspace({ "lib.txt": "good\n", "speed.txt": "20\n" });
});
afterEach(() => ws.cleanup());

const CHECK = nodeArgv("process.exit(require('fs').readFileSync('lib.txt','utf8').trim()==='good'?0:1)");
const SPEED = nodeArgv("console.log('time: '+require('fs').readFileSync('speed.txt','utf8').trim()+' ms')");

interface Decision {
  verdict: "keep" | "revert" | "review";
  reasons: string[];
  proofs: { name: string; score: number; passed: boolean; source: string }[];
}
interface Samples {
  samples: {
    side: "attempt" | "base";
    evaluator: string;
    value: number | null;
    error: string | null;
    duration_ms: number;
    output_hash: string;
  }[];
}

/** A goal over `check` and `speed`, its evaluators in a workspace pack, frozen into a run. */
function frozenRun(
  extraPack = "",
  proofs: Record<string, unknown>[] = [],
): { goal: string; run: string; pack: string } {
  const goal = contractWith(ws.dir, [
    { name: "check", threshold: 1 },
    { name: "speed", direction: "lower", threshold: 50 },
    ...proofs,
  ]);
  const pack = writePack(
    ws.dir,
    "fixture",
    evaluatorToml({ name: "fixture-check", proof: "check", argv: CHECK }) +
      evaluatorToml({
        name: "fixture-speed",
        proof: "speed",
        argv: SPEED,
        read: "regex",
        pattern: "time: ([0-9.]+) ms",
        repeats: 2,
      }) +
      extraPack,
  );
  const run = cairnJson<{ run: { id: string } }>(ws.dir, ["run", "freeze", goal]).run.id;
  return { goal, run, pack };
}

const openAttempt = (run: string, extra: string[] = []) =>
  cairnJson<{ attempt: { id: string; base_head: string; base_dirty: boolean } }>(ws.dir, [
    "attempt",
    "open",
    run,
    ...extra,
  ]).attempt;

describe("attempts measured by cairn", () => {
  it("reverts an attempt that breaks a check, restores its base, then keeps one that passes", () => {
    const { run } = frozenRun();
    const first = openAttempt(run);
    expect(first.base_dirty).toBe(false);
    writeFileSync(join(ws.dir, "lib.txt"), "broken\n");
    writeFileSync(join(ws.dir, "new-file.txt"), "made by the attempt\n");
    const evaluated = cairnJson<Samples>(ws.dir, ["attempt", "eval", first.id]);
    // A number is measured on the base too, in a worktree of the base commit, in the same session.
    expect(evaluated.samples.map((s) => `${s.evaluator}/${s.side}`)).toEqual([
      "fixture-check/attempt",
      "fixture-speed/attempt",
      "fixture-speed/attempt",
      "fixture-speed/base",
    ]);
    expect(evaluated.samples[0]?.value).toBe(0);
    expect(evaluated.samples[1]?.value).toBe(20);
    expect(evaluated.samples[0]?.output_hash).toMatch(/^sha256:/);
    const decided = cairnJson<Decision>(ws.dir, ["attempt", "decide", first.id]);
    expect(decided.verdict).toBe("revert");
    expect(decided.reasons.join("\n")).toMatch(/fixture-check measured 0, needs ≥ 1/);
    expect(decided.proofs.find((p) => p.name === "check")).toMatchObject({ passed: false, score: 0 });

    const unconfirmed = cairn(ws.dir, ["attempt", "revert", first.id]);
    expect(unconfirmed.code).toBe(3);
    // Another agent discards none of it: the work is the opener's, in its checkout.
    const bob = addAgent(ws.dir, "bob", "builder");
    const foreign = cairn(ws.dir, ["attempt", "revert", first.id, "--confirm"], {
      env: { CAIRN_AGENT: bob.token },
    });
    expect(foreign.code).toBe(3);
    expect(foreign.stderr).toMatch(
      /opened by owner; only it \(or its parent or child\) or the owner may revert it/,
    );
    expect(readFileSync(join(ws.dir, "lib.txt"), "utf8")).toBe("broken\n");
    const reverted = cairnJson<{ discarded: string[] }>(ws.dir, ["attempt", "revert", first.id, "--confirm"]);
    expect(reverted.discarded).toEqual(["lib.txt", "new-file.txt"]);
    expect(readFileSync(join(ws.dir, "lib.txt"), "utf8")).toBe("good\n");
    expect(existsSync(join(ws.dir, "new-file.txt"))).toBe(false);
    // The workspace's own files stay (on SQLite the board itself is one of them).
    expect(existsSync(join(ws.dir, ".cairn", "cairn.toml"))).toBe(true);
    if (STORE_UNDER_TEST === "sqlite") expect(existsSync(join(ws.dir, ".cairn", "cairn.db"))).toBe(true);

    const second = openAttempt(run);
    cairnJson(ws.dir, ["attempt", "eval", second.id]);
    const kept = cairnJson<Decision>(ws.dir, ["attempt", "decide", second.id]);
    expect(kept.verdict).toBe("keep");
    expect(kept.proofs.every((p) => p.score === 1)).toBe(true);

    // Slower than the kept attempt (still under the threshold) is a regression beyond the noise.
    const third = openAttempt(run);
    writeFileSync(join(ws.dir, "speed.txt"), "30\n");
    cairnJson(ws.dir, ["attempt", "eval", third.id]);
    const regressed = cairnJson<Decision>(ws.dir, ["attempt", "decide", third.id]);
    expect(regressed.verdict).toBe("revert");
    expect(regressed.reasons.join("\n")).toMatch(
      /regression in fixture-speed \(speed\) against its base: exact: 10 worse vs minimum effect 2/,
    );

    const status = cairnJson<{ attempts: { id: string; verdict: string; reverted: boolean }[] }>(ws.dir, [
      "run",
      "status",
      run,
    ]);
    expect(status.attempts.map((a) => [a.id, a.verdict, a.reverted])).toEqual([
      [first.id, "revert", true],
      [second.id, "keep", false],
      [third.id, "revert", false],
    ]);
    const runs = cairnJson<{ runs: { id: string; attempts: number; kept: number }[] }>(ws.dir, [
      "run",
      "list",
    ]);
    expect(runs.runs).toEqual([expect.objectContaining({ id: run, attempts: 3, kept: 1 })]);
  });

  it("decides an attempt once when two processes decide it at the same time", async () => {
    const { run } = frozenRun();
    const attempt = openAttempt(run);
    cairnJson(ws.dir, ["attempt", "eval", attempt.id]);
    const results = await Promise.all(
      [1, 2, 3].map(() => cairnAsync(ws.dir, ["attempt", "decide", attempt.id, "--json"])),
    );
    expect(results.map((r) => r.code).sort()).toEqual([0, 3, 3]);
    for (const refused of results.filter((r) => r.code === 3)) {
      expect(refused.stderr).toMatch(/already decided: keep/);
    }
  });

  it("refuses to decide an attempt with no evaluations", () => {
    const { run } = frozenRun();
    const attempt = openAttempt(run);
    const decided = cairn(ws.dir, ["attempt", "decide", attempt.id, "--json"]);
    expect(decided.code).toBe(3);
    expect((decided.json as { refused: { policy: string; next: string } }).refused).toMatchObject({
      policy: "evidence",
      next: expect.stringContaining(`attempt eval ${attempt.id}`),
    });
  });

  it("reverts only the attempt's own changes, leaves earlier edits alone, and refuses one it cannot separate", () => {
    const { run } = frozenRun();
    writeFileSync(join(ws.dir, "README.md"), "someone else's edit\n");
    const attempt = openAttempt(run);
    expect(attempt.base_dirty).toBe(true);
    writeFileSync(join(ws.dir, "lib.txt"), "attempt's edit\n");
    const reverted = cairnJson<{ discarded: string[]; left_alone: string[]; commits: string[] }>(ws.dir, [
      "attempt",
      "revert",
      attempt.id,
      "--confirm",
    ]);
    expect(reverted).toMatchObject({ discarded: ["lib.txt"], left_alone: ["README.md"], commits: [] });
    expect(readFileSync(join(ws.dir, "README.md"), "utf8")).toBe("someone else's edit\n");
    expect(readFileSync(join(ws.dir, "lib.txt"), "utf8")).toBe("good\n");

    const second = openAttempt(run);
    writeFileSync(join(ws.dir, "README.md"), "the attempt edits an already-dirty file\n");
    const mixed = cairn(ws.dir, ["attempt", "revert", second.id, "--confirm"]);
    expect(mixed.code).toBe(3);
    expect(mixed.stderr).toMatch(/already had changes before it opened.*: "README\.md"/);
    expect(readFileSync(join(ws.dir, "README.md"), "utf8")).toBe("the attempt edits an already-dirty file\n");
  });

  it("keeps running the frozen definition after the evaluator file changes on disk, and reports the drift", () => {
    const { run, pack } = frozenRun();
    writeFileSync(
      pack,
      evaluatorToml({ name: "fixture-check", proof: "check", argv: nodeArgv("process.exit(1)") }) +
        evaluatorToml({
          name: "fixture-speed",
          proof: "speed",
          argv: SPEED,
          read: "regex",
          pattern: "time: ([0-9.]+) ms",
          repeats: 2,
        }),
    );
    const status = cairnJson<{ drift: string[]; run: { evaluators: { name: string; argv: string[] }[] } }>(
      ws.dir,
      ["run", "status", run],
    );
    expect(status.drift).toEqual(["fixture-check"]);
    expect(status.run.evaluators[0]?.argv).toEqual(CHECK);
    const attempt = openAttempt(run);
    cairnJson(ws.dir, ["attempt", "eval", attempt.id]);
    expect(cairnJson<Decision>(ws.dir, ["attempt", "decide", attempt.id]).verdict).toBe("keep");
  });
  it("shows a long ledger's newest page with its counts, and pages back from the first attempt", async () => {
    const { run } = frozenRun();
    const kept = openAttempt(run);
    // An agent's loop: a kept attempt, then 129 more reverted, written straight to the store
    // (each opened, measured and decided through the CLI would take minutes).
    const session = new Session({ cwd: ws.dir, env: cleanEnv() });
    const { store } = await session.context();
    await store.write(async (tx) => {
      await tx.goals.recordDecision(kept.id, "keep", {}, new Date().toISOString());
      for (let n = 0; n < 129; n++) {
        const attempt = await tx.goals.insertAttempt(newAttempt(run, new Date().toISOString()));
        await tx.goals.recordDecision(attempt.id, "revert", {}, new Date().toISOString());
      }
      await tx.journal.append({
        at: new Date().toISOString(),
        actor: "owner",
        action: "test.loop",
        subject: run,
        data: {},
      });
    });
    await session.close();

    type Ledger = { attempts: { id: string }[]; attempts_total: number; kept: number; offset: number };
    const newest = cairnJson<Ledger>(ws.dir, ["run", "status", run]);
    expect(newest).toMatchObject({ attempts_total: 130, kept: 1, offset: 30 });
    expect(newest.attempts).toHaveLength(100);
    expect(newest.attempts.map((a) => a.id)).not.toContain(kept.id);
    const first = cairnJson<Ledger>(ws.dir, ["run", "status", run, "--offset", "0"]);
    expect(first.offset).toBe(0);
    expect(first.attempts[0]?.id).toBe(kept.id);
    expect(first.attempts.at(-1)?.id).toBe(newest.attempts[69]?.id);
    const shown = cairn(ws.dir, ["run", "status", run]).stdout;
    expect(shown).toContain("130 attempts, 1 kept, 0 in review (31–130 shown; earlier: --offset 0):");
    // The PATH folders and HOME its evaluators run with, as the README says `run status` shows them.
    expect(shown).toMatch(/^ {2}as frozen: HOME \S+; PATH first: \//m);
  });
});

describe("evaluator faults", () => {
  /** A run whose only proof is measured by one evaluator with these fields. */
  function singleEvaluatorRun(fields: Record<string, string | number | boolean | string[]>) {
    const goal = contractWith(ws.dir, [{ name: "check", threshold: 1 }]);
    writePack(ws.dir, "fault", evaluatorToml({ name: "faulty", proof: "check", ...fields }));
    const run = cairnJson<{ run: { id: string } }>(ws.dir, ["run", "freeze", goal]).run.id;
    const attempt = openAttempt(run);
    const samples = cairnJson<Samples>(ws.dir, ["attempt", "eval", attempt.id]).samples;
    const decision = cairnJson<Decision>(ws.dir, ["attempt", "decide", attempt.id]);
    return { samples, decision };
  }

  it("records none of the samples of an agent retired while its evaluators ran: the eval is refused", async () => {
    // Flags outside the checkout, so the evaluator changes nothing it is measuring.
    const flags = scratchDir();
    try {
      const started = join(flags.dir, "started");
      const go = join(flags.dir, "go");
      const waits = `const fs=require('fs');fs.writeFileSync(${JSON.stringify(started)},'');setInterval(()=>fs.existsSync(${JSON.stringify(go)})&&process.exit(0),50)`;
      const goal = contractWith(ws.dir, [{ name: "check", threshold: 1 }]);
      writePack(ws.dir, "slow", evaluatorToml({ name: "slow", proof: "check", argv: nodeArgv(waits) }));
      const run = cairnJson<{ run: { id: string } }>(ws.dir, ["run", "freeze", goal]).run.id;
      const bob = addAgent(ws.dir, "bob", "builder");
      const attempt = openAttempt(run, []);
      // The default lease: no renewal (and no look at the caller) comes while the evaluator runs,
      // so only the write that records its end can refuse it.
      const evaluating = cairnAsync(ws.dir, ["attempt", "eval", attempt.id, "--json"], {
        env: { CAIRN_AGENT: bob.token },
      });
      await until(() => existsSync(started));
      expect(cairn(ws.dir, ["agent", "retire", "bob"]).code).toBe(0);
      writeFileSync(go, "");
      const evaluated = await evaluating;
      expect(evaluated.code, evaluated.stderr).toBe(3);
      expect(evaluated.json).toMatchObject({ refused: { policy: "identity" } });
      expect(cairnJson<Samples>(ws.dir, ["attempt", "show", attempt.id]).samples).toEqual([]);
    } finally {
      flags.cleanup();
    }
  });

  it("records a command that does not exist and sends the attempt to review, not revert", () => {
    const { samples, decision } = singleEvaluatorRun({ argv: ["cairn-no-such-program-xyz", "--flag"] });
    expect(samples[0]?.error).toBe("command not found: cairn-no-such-program-xyz");
    expect(decision.verdict).toBe("review");
    expect(decision.reasons.join("\n")).toMatch(/could not run/);
  });

  it("kills a command that hangs at its timeout and fails the gate", () => {
    const started = Date.now();
    const { samples, decision } = singleEvaluatorRun({
      argv: nodeArgv("setInterval(()=>{},1000)"),
      timeout_seconds: 1,
    });
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(samples[0]?.error).toMatch(/timed out after 1 s/);
    expect(samples[0]?.duration_ms).toBeLessThan(5_000);
    expect(decision.verdict).toBe("revert");
  });

  it("fails the gate when the command prints no number at its JSON path", () => {
    const { samples, decision } = singleEvaluatorRun({
      argv: nodeArgv("console.log(JSON.stringify({total:{lines:'n/a'}}))"),
      read: "json",
      json_path: "total.lines",
    });
    expect(samples[0]?.error).toBe("no number at total.lines in stdout's JSON");
    expect(decision.verdict).toBe("revert");
  });

  it("fails the gate when the regex does not match the output", () => {
    const { samples, decision } = singleEvaluatorRun({
      argv: nodeArgv("console.log('all good, no figures')"),
      read: "regex",
      pattern: "score: ([0-9.]+)",
    });
    expect(samples[0]?.error).toMatch(/pattern \/score: \(\[0-9\.\]\+\)\/ did not match/);
    expect(samples[0]?.value).toBeNull();
    expect(decision.verdict).toBe("revert");
  });

  it("stops an evaluator's repeats at the first sample with no value: a pattern that backtracks holds cairn once", () => {
    const started = Date.now();
    // `(a+)+b` against thirty a's and no b backtracks past the pattern's 5 s budget.
    const { samples, decision } = singleEvaluatorRun({
      argv: nodeArgv("console.log('a'.repeat(30))"),
      read: "regex",
      pattern: "(a+)+b",
      repeats: 4,
    });
    expect(samples).toHaveLength(1);
    expect(samples[0]?.error).toMatch(/took longer than 5000 ms on the output \(it backtracks/);
    expect(decision.verdict).toBe("revert");
    // Four repeats of it held cairn for 20 s.
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it("never takes a number from a command that failed: exit 1 printing 289 ms is a failed sample", () => {
    const { samples, decision } = singleEvaluatorRun({
      argv: nodeArgv("console.log('289 ms'); process.exit(1)"),
      read: "regex",
      pattern: "([0-9]+) ms",
      direction: "lower",
      threshold: 500,
    });
    expect(samples[0]).toMatchObject({ value: null, error: expect.stringMatching(/^exited with 1/) });
    expect(decision.verdict).toBe("revert");
  });

  it("reads a number by JSON path", () => {
    const { samples, decision } = singleEvaluatorRun({
      argv: nodeArgv("console.log(JSON.stringify({total:{lines:{pct:92.5}}}))"),
      read: "json",
      json_path: "total.lines.pct",
      threshold: 90,
    });
    expect(samples[0]?.value).toBe(92.5);
    expect(decision.verdict).toBe("keep");
  });
});

describe("self-reported scores", () => {
  it("accepts only the contract's manual proofs, each in [0,1]; an agent's report alone reaches review", () => {
    const { run } = frozenRun("", [{ name: "review", manual: true, threshold: 0.5 }]);
    const builder = addAgent(ws.dir, "builder", "builder").token;
    const attempt = cairnJson<{ attempt: { id: string } }>(ws.dir, ["attempt", "open", run], {
      CAIRN_AGENT: builder,
    }).attempt;
    const unknown = cairn(ws.dir, ["attempt", "report", attempt.id, "--scores", '{"looks_good":1}']);
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toMatch(
      /"looks_good" is not a proof of this contract; its proofs are: check, speed, review/,
    );
    const outside = cairn(ws.dir, ["attempt", "report", attempt.id, "--scores", '{"review":1.5}']);
    expect(outside.code).toBe(2);
    expect(outside.stderr).toMatch(/scores\.review: 1\.5 is outside \[0,1\]/);
    const measured = cairn(ws.dir, ["attempt", "report", attempt.id, "--scores", '{"check":1}']);
    expect(measured.code).toBe(3);
    expect(measured.stderr).toMatch(/check is measured by cairn/);
    cairnJson(ws.dir, ["attempt", "report", attempt.id, "--scores", '{"review":1}'], {
      CAIRN_AGENT: builder,
    });
    const decided = cairnJson<Decision>(ws.dir, ["attempt", "decide", attempt.id]);
    expect(decided.verdict).toBe("review");
    expect(decided.reasons.join("\n")).toMatch(/only self-reported scores exist/);
  });
});
