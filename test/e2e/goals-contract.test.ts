import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  cairnJson,
  contractWith,
  evaluatorToml,
  gitWorkspace,
  nodeArgv,
  writePack,
} from "../helpers/goals.js";
import { addAgent, cairn } from "../helpers/workspace.js";

let ws: { dir: string; cleanup: () => void };
beforeEach(() => {
  ws = gitWorkspace();
});
afterEach(() => ws.cleanup());

interface GoalOut {
  goal: { id: string; proofs: { name: string; threshold: number | null; manual: boolean }[] };
  matched: string[];
  to_fill_in: string[];
}

describe("goal contracts", () => {
  it("drafts a contract from a vague goal by keyword rules and says what is left to fill in", () => {
    const out = cairnJson<GoalOut>(ws.dir, ["goal", "create", "make search fast, typed and tested"]);
    expect(out.goal.proofs.map((p) => p.name)).toEqual(["tests", "typecheck", "latency"]);
    expect(out.goal.proofs.find((p) => p.name === "latency")?.threshold).toBeNull();
    expect(out.to_fill_in.join("\n")).toMatch(/outcome/);
    expect(out.to_fill_in.join("\n")).toMatch(/proofs\.latency\.threshold/);
    const again = cairnJson<GoalOut>(ws.dir, ["goal", "create", "make search fast, typed and tested"]);
    expect(again.goal.proofs).toEqual(out.goal.proofs);

    const updated = cairnJson<GoalOut>(ws.dir, [
      "goal",
      "update",
      out.goal.id,
      "--outcome",
      "p95 below 50 ms",
      "--proofs",
      '{"name":"latency","threshold":50}',
      "--non-goals",
      "no new index",
    ]);
    expect(updated.to_fill_in).toEqual([]);
    const list = cairnJson<{ goals: { id: string; open: number }[] }>(ws.dir, ["goal", "list"]);
    expect(list.goals).toEqual(
      expect.arrayContaining([expect.objectContaining({ id: out.goal.id, open: 0 })]),
    );
  });

  it("refuses a run while the contract still has open thresholds", () => {
    const out = cairnJson<GoalOut>(ws.dir, ["goal", "create", "make it fast"]);
    const freeze = cairn(ws.dir, ["run", "freeze", out.goal.id, "--json"]);
    expect(freeze.code).toBe(3);
    expect(freeze.stderr).toMatch(/latency\.threshold/);
  });
});

describe("a goal's author", () => {
  it("alone changes and plans its draft, beside the owner and a role granted planning", () => {
    const bob = { CAIRN_AGENT: addAgent(ws.dir, "bob", "builder").token };
    const carl = { CAIRN_AGENT: addAgent(ws.dir, "carl", "builder").token };
    const id = cairnJson<GoalOut>(ws.dir, ["goal", "create", "make search fast"], bob).goal.id;
    const outcome = (who: Record<string, string> | undefined, text: string) =>
      cairn(ws.dir, ["goal", "update", id, "--outcome", text, "--json"], who ? { env: who } : {});
    // Another builder rewrites what success means on a draft it did not write: refused.
    const rewrite = outcome(carl, "whatever ships");
    expect(rewrite.code).toBe(3);
    expect(rewrite.json).toMatchObject({ refused: { policy: "ownership" } });
    expect(cairn(ws.dir, ["goal", "plan", id, "--json"], { env: carl }).json).toMatchObject({
      refused: { policy: "ownership" },
    });
    expect(outcome(bob, "p95 below 50 ms").code).toBe(0);
    appendFileSync(join(ws.dir, ".cairn", "cairn.toml"), "\n[roles.lead]\nplanning = true\n");
    const lead = { CAIRN_AGENT: addAgent(ws.dir, "lead", "lead").token };
    expect(outcome(lead, "p95 below 45 ms").code).toBe(0);
    expect(outcome(undefined, "p95 below 40 ms").code).toBe(0);
    const shown = cairnJson<{ goal: { outcome: string }; history: { changed_by: string }[] }>(ws.dir, [
      "goal",
      "show",
      id,
    ]);
    expect(shown.goal.outcome).toBe("p95 below 40 ms");
    const bobId = cairnJson<{ id: string }>(ws.dir, ["whoami"], bob).id;
    const leadId = cairnJson<{ id: string }>(ws.dir, ["whoami"], lead).id;
    expect(shown.history.map((h) => h.changed_by)).toEqual([bobId, leadId, "owner"]);
  });
});

describe("milestones", () => {
  it("drafts a DAG from the contract and accepts an edited plan keeping ids", () => {
    const goal = contractWith(ws.dir, [
      { name: "check", threshold: 1 },
      { name: "latency", direction: "lower", threshold: 100 },
      { name: "review", manual: true, threshold: 0.5 },
    ]);
    const drafted = cairnJson<{ milestones: { id: string; key: string; depends_on: string[] }[] }>(ws.dir, [
      "goal",
      "plan",
      goal,
    ]);
    expect(drafted.milestones.map((m) => m.key)).toEqual(["core", "perf", "review"]);
    expect(drafted.milestones[1]?.depends_on).toEqual(["core"]);
    const edited = cairnJson<{ milestones: { id: string; key: string; proofs: string[] }[] }>(ws.dir, [
      "goal",
      "plan",
      goal,
      "--milestones",
      '{"key":"core","title":"Core","proofs":["check"]}',
      "--milestones",
      '{"key":"ship","title":"Ship","proofs":["latency"],"depends_on":["core"]}',
    ]);
    expect(edited.milestones.map((m) => m.key)).toEqual(["core", "ship"]);
    expect(edited.milestones[0]?.id).toBe(drafted.milestones[0]?.id);
  });

  it("refuses a plan whose dependencies form a cycle, naming it", () => {
    const goal = contractWith(ws.dir, [{ name: "check", threshold: 1 }]);
    const cycle = cairn(ws.dir, [
      "goal",
      "plan",
      goal,
      "--milestones",
      '{"key":"a","title":"A","depends_on":["c"]}',
      "--milestones",
      '{"key":"b","title":"B","depends_on":["a"]}',
      "--milestones",
      '{"key":"c","title":"C","depends_on":["b"]}',
      "--json",
    ]);
    expect(cycle.code).toBe(3);
    expect((cycle.json as { refused: { policy: string; reason: string } }).refused).toMatchObject({
      policy: "dag",
    });
    expect(cycle.stderr).toMatch(/a → c → b → a|c → b → a → c|b → a → c → b/);
    const show = cairnJson<{ milestones: unknown[] }>(ws.dir, ["goal", "show", goal]);
    expect(show.milestones).toEqual([]);
  });

  it("refuses a milestone that owns a proof the contract does not have", () => {
    const goal = contractWith(ws.dir, [{ name: "check", threshold: 1 }]);
    const bad = cairn(ws.dir, [
      "goal",
      "plan",
      goal,
      "--milestones",
      '{"key":"a","title":"A","proofs":["speed"]}',
    ]);
    expect(bad.code).toBe(3);
    expect(bad.stderr).toMatch(/"speed" is not a proof of this contract; its proofs are: check/);
  });
});

describe("evaluator packs and proposals", () => {
  it("names the pack file when it is broken", () => {
    const goal = contractWith(ws.dir, [{ name: "check", threshold: 1 }]);
    const path = writePack(
      ws.dir,
      "broken",
      '[[evaluator]]\nname = "x"\nproof = "check"\nargv = "not-a-list"\n',
    );
    const select = cairn(ws.dir, ["eval", "select", goal]);
    expect(select.code).toBe(2);
    expect(select.stderr).toContain(path);
    expect(select.stderr).toMatch(/argv/);
    writePack(ws.dir, "broken", "[[evaluator]\nname=");
    const toml = cairn(ws.dir, ["eval", "list"]);
    expect(toml.code).toBe(2);
    expect(toml.stderr).toMatch(/broken\.toml: not valid TOML/);
  });

  it("ships built-in packs and selects what applies to the workspace", () => {
    const list = cairnJson<{ evaluators: { name: string; source: string }[] }>(ws.dir, ["eval", "list"]);
    const names = list.evaluators.map((e) => e.name);
    for (const name of [
      "node-tests",
      "node-typecheck",
      "node-lint",
      "node-coverage",
      "py-pytest",
      "py-ruff",
      "py-mypy",
      "exit-code",
      "benchmark-number",
    ]) {
      expect(names).toContain(name);
    }
    const goal = contractWith(ws.dir, [{ name: "tests", threshold: 1 }]);
    const none = cairnJson<{ unmeasured: string[] }>(ws.dir, ["eval", "select", goal]);
    expect(none.unmeasured).toEqual(["tests"]);
  });

  it("runs an unmeasured proof's proposal only after the owner approves it; an agent cannot approve", () => {
    const goal = contractWith(ws.dir, [{ name: "check", threshold: 1 }]);
    const planner = addAgent(ws.dir, "planner", "planner");
    const proposed = cairnJson<{ proposal: { id: string; status: string } }>(
      ws.dir,
      [
        "eval",
        "propose",
        goal,
        "--proof",
        "check",
        "--argv",
        process.execPath,
        "--argv",
        "-e",
        "--argv",
        "0",
      ],
      { CAIRN_AGENT: planner.token },
    );
    expect(proposed.proposal.status).toBe("proposed");
    const frozenEarly = cairn(ws.dir, ["run", "freeze", goal]);
    expect(frozenEarly.code).toBe(3);
    expect(frozenEarly.stderr).toMatch(/no approved evaluator measures: check/);
    const agentApproves = cairn(ws.dir, ["eval", "approve", proposed.proposal.id], {
      env: { CAIRN_AGENT: planner.token },
    });
    expect(agentApproves.code).toBe(3);
    expect(agentApproves.stderr).toMatch(/needs the workspace owner or a role granted planning/);
    cairnJson(ws.dir, ["eval", "approve", proposed.proposal.id]);
    const run = cairnJson<{ run: { evaluators: { name: string; source: string }[] } }>(ws.dir, [
      "run",
      "freeze",
      goal,
    ]);
    expect(run.run.evaluators).toEqual([
      expect.objectContaining({ source: `proposal:${proposed.proposal.id}` }),
    ]);
  });

  it("refuses a proposal for a proof the contract does not have", () => {
    const goal = contractWith(ws.dir, [{ name: "check", threshold: 1 }]);
    const bad = cairn(ws.dir, ["eval", "propose", goal, "--proof", "speed", "--argv", "true"]);
    expect(bad.code).toBe(3);
    expect(bad.stderr).toMatch(/its proofs are: check/);
  });

  it("reads packs from CAIRN_HOME, which a workspace pack of the same name (any agent can write one) does not replace", () => {
    const home = join(ws.dir, "home");
    mkdirSync(join(home, "evaluators"), { recursive: true });
    writeFileSync(
      join(home, "evaluators", "team.toml"),
      evaluatorToml({ name: "team-check", proof: "check", argv: ["from-home"] }),
    );
    const env = { CAIRN_HOME: home };
    const listed = cairn(ws.dir, ["eval", "list", "--json"], { env });
    const fromHome = (listed.json as { evaluators: { name: string; source: string }[] }).evaluators.find(
      (e) => e.name === "team-check",
    );
    expect(fromHome?.source).toBe(`home:${join(home, "evaluators", "team.toml")}`);
    writePack(
      ws.dir,
      "local",
      evaluatorToml({ name: "team-check", proof: "check", argv: ["from-workspace"] }),
    );
    const goal = contractWith(ws.dir, [{ name: "check", threshold: 1 }]);
    const selected = cairn(ws.dir, ["eval", "select", goal, "--json"], { env });
    expect(JSON.stringify(selected.json)).toContain("from-home");
    expect(JSON.stringify(selected.json)).not.toContain("from-workspace");
    // A shipped evaluator is still the project's to tune.
    writePack(ws.dir, "tuned", evaluatorToml({ name: "node-tests", proof: "tests", argv: ["tuned-here"] }));
    const all = cairn(ws.dir, ["eval", "list", "--json"], { env });
    const tuned = (all.json as { evaluators: { name: string; source: string }[] }).evaluators.find(
      (e) => e.name === "node-tests",
    );
    expect(tuned?.source).toMatch(/^workspace:.*tuned\.toml$/);
  });

  it("selects workspace pack evaluators by proof", () => {
    const goal = contractWith(ws.dir, [{ name: "check", threshold: 1 }]);
    writePack(
      ws.dir,
      "fixture",
      evaluatorToml({ name: "fixture-check", proof: "check", argv: nodeArgv("0") }),
    );
    const select = cairnJson<{ measured: { proof: string; evaluators: { name: string }[] }[] }>(ws.dir, [
      "eval",
      "select",
      goal,
    ]);
    expect(select.measured).toEqual([
      { proof: "check", evaluators: [expect.objectContaining({ name: "fixture-check" })] },
    ]);
  });
});
