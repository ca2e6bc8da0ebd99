import { appendFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { arrangeJson, cairnJson, gitWorkspace } from "../helpers/goals.js";
import { addAgent, cairn, initWorkspace, runSync } from "../helpers/workspace.js";

/**
 * The reproductions in a tiny node project: `"test": "node test/run.mjs"`, a goal "make
 * the test suite faster", a run frozen with the node pack's tests evaluator and an approved
 * latency evaluator. One workspace serves the file: each test leaves it with no open attempt.
 */
let ws: { dir: string; cleanup: () => void };
let goal: string;
let run: string;
let perf: string;
let perfTask: string;
let builder: string;

const ADD_GOOD = "export const add = (a, b) => a + b;\n";
const files = {
  "package.json": `${JSON.stringify({ name: "fx", type: "module", scripts: { test: "node test/run.mjs" } })}\n`,
  "src/add.mjs": ADD_GOOD,
  "bench.mjs": "console.log('time: 20 ms');\n",
};

beforeAll(() => {
  ws = gitWorkspace();
  mkdirSync(join(ws.dir, "src"));
  mkdirSync(join(ws.dir, "test"));
  for (const [path, text] of Object.entries(files)) writeFileSync(join(ws.dir, path), text);
  writeFileSync(
    join(ws.dir, "test", "run.mjs"),
    "import { add } from '../src/add.mjs';\nif (add(2, 3) !== 5) { console.error('add is broken'); process.exit(1); }\n",
  );
  runSync("git", ["add", "-A"], ws.dir);
  runSync("git", ["commit", "-qm", "tiny node project"], ws.dir);
  appendFileSync(join(ws.dir, ".cairn", "cairn.toml"), "\n[roles.lead]\nplanning = true\n");
  builder = addAgent(ws.dir, "bob", "builder").token;
  goal = arrangeJson<{ goal: { id: string } }>(ws.dir, ["goal", "create", "make the test suite faster"]).goal
    .id;
  arrangeJson(ws.dir, [
    "goal",
    "update",
    goal,
    "--outcome",
    "the suite passes, faster",
    "--proofs",
    '{"name":"latency","threshold":100}',
  ]);
  const planned = cairnJson<{ milestones: { id: string; key: string; task_id: string }[] }>(ws.dir, [
    "goal",
    "plan",
    goal,
  ]).milestones.find((m) => m.key === "perf");
  perf = planned?.id as string;
  perfTask = planned?.task_id as string;
  const proposed = cairnJson<{ proposal: { id: string }; dry_run: { source: string; value: number | null } }>(
    ws.dir,
    [
      "eval",
      "propose",
      goal,
      "--proof",
      "latency",
      "--argv",
      process.execPath,
      "--argv",
      "bench.mjs",
      "--read",
      "regex",
      "--pattern",
      "time: ([0-9.]+) ms",
      "--direction",
      "lower",
      "--sample-output",
      "time: 31.5 ms",
    ],
    { CAIRN_AGENT: builder },
  );
  // Proposing never runs the command; the pattern is tried on the pasted sample.
  expect(proposed.dry_run).toMatchObject({ source: "sample_output", value: 31.5 });
  const approved = cairnJson<{ dry_run: { source: string; value: number } }>(ws.dir, [
    "eval",
    "approve",
    proposed.proposal.id,
  ]);
  expect(approved.dry_run).toMatchObject({ source: "command", value: 20 });
  run = cairnJson<{ run: { id: string } }>(ws.dir, ["run", "freeze", goal]).run.id;
});
afterAll(() => ws.cleanup());

interface Decision {
  verdict: string;
  reasons: string[];
  next: string | null;
  touched_inputs: { path: string; evaluators: string[] }[];
}

describe("frozen inputs", () => {
  it("freezes the manifest whose script `npm test` runs, the files it names and the pack's test folders", () => {
    const status = cairnJson<{
      run: { evaluators: { name: string; inputs: string[]; pattern: string | null }[] };
    }>(ws.dir, ["run", "status", run]);
    const tests = status.run.evaluators.find((e) => e.name === "node-tests");
    // The runner's own configuration is frozen too, absent files included: creating one is a change.
    expect(tests?.inputs).toEqual([
      "package.json",
      "test/run.mjs",
      ".npmrc",
      ".pnpmfile.cjs",
      ".yarnrc",
      ".yarnrc.yml",
      "bunfig.toml",
    ]);
    const latency = status.run.evaluators.find((e) => e.name !== "node-tests");
    expect(latency).toMatchObject({ inputs: ["bench.mjs"], pattern: "time: ([0-9.]+) ms" });
  });

  it("never keeps an attempt that rewrote the test script and broke add(); drift shows for pack and proposal evaluators", () => {
    const opened = cairnJson<{ attempt: { id: string } }>(
      ws.dir,
      ["attempt", "open", run, "--milestone", perf],
      {
        CAIRN_AGENT: builder,
      },
    ).attempt.id;
    const manifest = JSON.parse(files["package.json"]);
    manifest.scripts.test = "node -e 0";
    writeFileSync(join(ws.dir, "package.json"), JSON.stringify(manifest));
    writeFileSync(join(ws.dir, "src", "add.mjs"), "export const add = (a, b) => a - b;\n");
    writeFileSync(join(ws.dir, "bench.mjs"), "console.log('time: 1 ms');\n");
    const evaluated = cairnJson<{ input_drift: string[] }>(ws.dir, ["attempt", "eval", opened], {
      CAIRN_AGENT: builder,
    });
    expect(evaluated.input_drift).toEqual(["bench.mjs", "package.json"]);
    const status = cairnJson<{ drift_details: { evaluator: string; kind: string; files: string[] }[] }>(
      ws.dir,
      ["run", "status", run],
    );
    expect(status.drift_details).toEqual(
      expect.arrayContaining([
        { evaluator: "node-tests", kind: "inputs", files: ["package.json"] },
        { evaluator: `${goal.toLowerCase()}-latency`, kind: "inputs", files: ["bench.mjs"] },
      ]),
    );
    const decided = cairnJson<Decision>(ws.dir, ["attempt", "decide", opened], { CAIRN_AGENT: builder });
    expect(decided.verdict).toBe("revert");
    expect(decided.reasons[0]).toMatch(
      /changes frozen evaluator inputs: bench\.mjs .*package\.json \(node-tests\)/,
    );
    expect(decided.next).toMatch(new RegExp(`attempt revert ${opened} --confirm`));
    const log = runSync("git", ["log", "--oneline"], ws.dir);
    expect(log).not.toMatch(/cairn: keep/);
    cairnJson(ws.dir, ["attempt", "revert", opened, "--confirm"], { CAIRN_AGENT: builder });
    expect(readFileSync(join(ws.dir, "package.json"), "utf8")).toBe(files["package.json"]);
  });

  it("sends an input change the owner allowed to review, never keep, and the owner settles it", () => {
    const refused = cairn(ws.dir, ["attempt", "open", run, "--allow-input-changes", "--json"], {
      env: { CAIRN_AGENT: builder },
    });
    expect(refused.code).toBe(3);
    expect((refused.json as { refused: { policy: string } }).refused.policy).toBe("planning");
    const opened = cairnJson<{ attempt: { id: string } }>(ws.dir, [
      "attempt",
      "open",
      run,
      "--allow-input-changes",
    ]).attempt.id;
    writeFileSync(join(ws.dir, "test", "extra.mjs"), "// a new test file under the pack's test folder\n");
    cairnJson(ws.dir, ["attempt", "eval", opened]);
    const decided = cairnJson<Decision>(ws.dir, ["attempt", "decide", opened]);
    expect(decided.verdict).toBe("review");
    expect(decided.touched_inputs).toEqual([{ path: "test/extra.mjs", evaluators: ["node-tests"] }]);
    expect(decided.next).toMatch(/attempt accept/);
    const byBuilder = cairn(ws.dir, ["attempt", "reject", opened, "--reason", "no"], {
      env: { CAIRN_AGENT: builder },
    });
    expect(byBuilder.code).toBe(3);
    const rejected = cairnJson<{
      attempt: { verdict: string; resolution: { reason: string } };
      next: string;
    }>(ws.dir, ["attempt", "reject", opened, "--reason", "tests change in their own milestone"]);
    expect(rejected.attempt).toMatchObject({
      verdict: "revert",
      resolution: { reason: "tests change in their own milestone" },
    });
    expect(rejected.next).toMatch(/attempt revert/);
    cairnJson(ws.dir, ["attempt", "revert", opened, "--confirm"]);
  });
});

describe("only the owner changes what success means", () => {
  it("refuses a builder's threshold change and re-freeze after a run exists; the owner and a planning role may; history is kept", () => {
    const loosen = cairn(
      ws.dir,
      ["goal", "update", goal, "--proofs", '{"name":"latency","threshold":999999}', "--json"],
      {
        env: { CAIRN_AGENT: builder },
      },
    );
    expect(loosen.code).toBe(3);
    expect((loosen.json as { refused: { policy: string; next: string } }).refused).toMatchObject({
      policy: "planning",
      next: expect.stringMatching(/owner/),
    });
    const refreeze = cairn(ws.dir, ["run", "freeze", goal], { env: { CAIRN_AGENT: builder } });
    expect(refreeze.code).toBe(3);
    expect(refreeze.stderr).toMatch(/freezing again changes what success means/);
    const replan = cairn(ws.dir, ["goal", "plan", goal], { env: { CAIRN_AGENT: builder } });
    expect(replan.code).toBe(3);
    // Constraints and non-goals are not the bar: a builder may still note them.
    cairnJson(
      ws.dir,
      ["goal", "update", goal, "--constraints", "no new dependencies", "--non-goals", "no rewrite"],
      {
        CAIRN_AGENT: builder,
      },
    );
    const brief = cairn(ws.dir, ["context", perfTask], { env: { CAIRN_AGENT: builder } });
    expect(brief.stdout).toMatch(/constraint: no new dependencies/);
    expect(brief.stdout).toMatch(/non-goal \(out of scope\): no rewrite/);
    const lead = addAgent(ws.dir, "lee", "lead").token;
    cairnJson(ws.dir, ["goal", "update", goal, "--proofs", '{"name":"latency","threshold":90}'], {
      CAIRN_AGENT: lead,
    });
    const shown = cairnJson<{
      history: { changed_by: string; fields: string[]; before: { proofs: { threshold: number }[] } }[];
    }>(ws.dir, ["goal", "show", goal]);
    expect(shown.history.map((h) => [h.changed_by, h.fields.join(",")])).toEqual([
      ["owner", "outcome,proofs"],
      [expect.stringMatching(/^A-/), "constraints,nonGoals"],
      [expect.stringMatching(/^A-/), "proofs"],
    ]);
    expect(shown.history[2]?.before.proofs.find((p) => "threshold" in p && p.threshold === 100)).toBeTruthy();
    const unchanged = cairnJson<{ goal: { proofs: { name: string; threshold: number }[] } }>(ws.dir, [
      "goal",
      "show",
      goal,
    ]);
    expect(unchanged.goal.proofs.find((p) => p.name === "latency")?.threshold).toBe(90);
  });

  it("refuses a builder's first freeze and its re-plan before any freeze; the owner's freeze names where each evaluator came from", () => {
    const fresh = arrangeJson<{ goal: { id: string } }>(ws.dir, ["goal", "create", "keep add correct"]).goal
      .id;
    arrangeJson(ws.dir, ["goal", "update", fresh, "--outcome", "add adds"]);
    cairnJson(ws.dir, ["goal", "plan", fresh]);
    const replan = cairn(
      ws.dir,
      ["goal", "plan", fresh, "--milestones", '{"key":"later","title":"Someday","proofs":[]}', "--json"],
      { env: { CAIRN_AGENT: builder } },
    );
    expect(replan.code, replan.stderr).toBe(3);
    expect((replan.json as { refused: { policy: string; reason: string } }).refused).toMatchObject({
      policy: "planning",
      reason: expect.stringMatching(/already has a plan/),
    });
    // A pack beside the workspace, by the shipped tests evaluator's name, that passes anything.
    const planted = join(ws.dir, ".cairn", "evaluators", "local.toml");
    mkdirSync(join(ws.dir, ".cairn", "evaluators"), { recursive: true });
    writeFileSync(
      planted,
      `[[evaluator]]\nname = "node-tests"\nproof = "tests"\nargv = ${JSON.stringify([process.execPath, "-e", "0"])}\n`,
    );
    try {
      const frozenByBuilder = cairn(ws.dir, ["run", "freeze", fresh, "--json"], {
        env: { CAIRN_AGENT: builder },
      });
      expect(frozenByBuilder.code, frozenByBuilder.stderr).toBe(3);
      expect((frozenByBuilder.json as { refused: { policy: string; reason: string } }).refused).toMatchObject(
        {
          policy: "planning",
          reason: expect.stringMatching(/first run fixes the evaluators/),
        },
      );
      expect(cairnJson<{ runs: unknown[] }>(ws.dir, ["run", "list", "--goal", fresh]).runs).toEqual([]);
      const byOwner = cairn(ws.dir, ["run", "freeze", fresh]);
      expect(byOwner.code, byOwner.stderr).toBe(0);
      expect(byOwner.stdout).toContain(`node-tests (workspace:${planted})`);
    } finally {
      rmSync(planted);
    }
  });

  it("refuses an approval whose regex reads nothing from a command that fails, though it prints 289 ms", () => {
    const proposed = cairnJson<{ proposal: { id: string } }>(ws.dir, [
      "eval",
      "propose",
      goal,
      "--proof",
      "latency",
      "--name",
      "crashing-bench",
      "--argv",
      process.execPath,
      "--argv",
      "-e",
      "--argv",
      "console.log('289 ms'); process.exit(1)",
      "--read",
      "regex",
      "--pattern",
      "([0-9]+) ms",
    ]);
    const byBuilder = cairn(ws.dir, ["eval", "approve", proposed.proposal.id], {
      env: { CAIRN_AGENT: builder },
    });
    expect(byBuilder.code).toBe(3);
    const approve = cairn(ws.dir, ["eval", "approve", proposed.proposal.id, "--json"]);
    expect(approve.code).toBe(3);
    expect((approve.json as { refused: { policy: string; reason: string } }).refused).toMatchObject({
      policy: "dry-run",
      reason: expect.stringMatching(/extracts nothing.*exited with 1/),
    });
    const list = cairnJson<{ proposals: { name: string; pattern: string | null; status: string }[] }>(
      ws.dir,
      ["eval", "proposals", goal],
    );
    expect(list.proposals.find((p) => p.name === "crashing-bench")).toMatchObject({
      pattern: "([0-9]+) ms",
      status: "proposed",
    });
  });
});

describe("outside git", () => {
  it("refuses to plan or freeze a goal where there is no repository, with next", () => {
    const plain = initWorkspace();
    try {
      const created = arrangeJson<{ goal: { id: string } }>(plain.dir, ["goal", "create", "keep it tested"]);
      for (const args of [
        ["goal", "plan", created.goal.id],
        ["run", "freeze", created.goal.id],
      ]) {
        const out = cairn(plain.dir, [...args, "--json"]);
        expect(out.code).toBe(3);
        expect((out.json as { refused: { policy: string; next: string } }).refused).toMatchObject({
          policy: "git",
          next: expect.stringMatching(/git init/),
        });
      }
    } finally {
      plain.cleanup();
    }
  });
});
