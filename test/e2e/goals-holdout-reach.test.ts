import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { definitionHash, EvaluatorDefinition } from "../../src/domains/goals/evaluators/definition.js";
import {
  cairnJson,
  contractWith,
  evaluatorToml,
  freezeRun,
  gitWorkspace,
  nodeArgv,
  writePack,
} from "../helpers/goals.js";
import { callTool, connectMcp } from "../helpers/mcp.js";
import { addAgent, cairn } from "../helpers/workspace.js";

/**
 * What a building agent can read of a hidden holdout through cairn's own commands: that it exists
 * and whether it passes, never its command, rule, bar or output.
 */
let ws: { dir: string; cleanup: () => void };
let builder: { CAIRN_AGENT: string };
beforeEach(() => {
  ws = gitWorkspace({ "lib.txt": "good\n" });
  builder = { CAIRN_AGENT: addAgent(ws.dir, "bob", "builder").token };
});
afterEach(() => ws.cleanup());

/** The holdout as frozen, less its bar. */
const HOLDOUT = {
  name: "quality-holdout",
  proof: "quality",
  hidden: true,
  argv: nodeArgv("console.log('score 7')"),
  read: "regex",
  pattern: "holdout-score (\\d+)",
} as const;

/** A goal whose `quality` proof a holdout measures with a bar of its own (6.25); the goal's id. */
function holdoutGoal(): string {
  // speed is measured in the open; a new evaluator for it is a proposal's to add.
  const goal = contractWith(ws.dir, [
    { name: "quality", threshold: 5 },
    { name: "speed", threshold: 1 },
  ]);
  writePack(
    ws.dir,
    "fixture",
    evaluatorToml({ name: "speed-check", proof: "speed", argv: nodeArgv("0") }) +
      evaluatorToml({ ...HOLDOUT, threshold: 6.25 }),
  );
  return goal;
}

const holdoutRun = () => freezeRun(ws.dir, holdoutGoal());

type RunShown = { run: { evaluators: { hidden: boolean; threshold: number | null; hash: string }[] } };

/** The hash a definition would have unsalted, for each bar a builder might try. */
const plainHashes = (bars: number[]) =>
  bars.map((threshold) =>
    definitionHash(
      EvaluatorDefinition.parse({
        ...HOLDOUT,
        direction: "higher",
        threshold,
      }),
    ),
  );

describe("a hidden holdout's bar", () => {
  it("is withheld from a building agent's run status, as the decision and progress views withhold it", () => {
    const run = holdoutRun();
    const seen = cairn(ws.dir, ["run", "status", run, "--json"], { env: builder });
    expect(seen.code).toBe(0);
    expect(seen.stdout).not.toContain("6.25");
    const holdout = (seen.json as RunShown).run.evaluators.find((e) => e.hidden);
    expect(holdout).toMatchObject({ hidden: true, threshold: null });
    // Nor can it be found from the holdout's content hash by trying bars, the rest being guessed
    // right: a plain hash would match the one that hashes to it.
    const tried = plainHashes([5, 6, 6.25, 7]);
    expect(tried[0]).not.toBe(tried[2]);
    expect(tried).not.toContain(holdout?.hash);
    // The owner, who set it, still reads it.
    const owner = cairnJson<RunShown>(ws.dir, ["run", "status", run]);
    expect(owner.run.evaluators.find((e) => e.hidden)?.threshold).toBe(6.25);
    // An unchanged pack is no drift: the frozen salt is used again; an edited one is.
    const drift = () => cairnJson<{ drift: string[] }>(ws.dir, ["run", "status", run]).drift;
    expect(drift()).toEqual([]);
    const pack = join(ws.dir, ".cairn", "evaluators", "fixture.toml");
    writeFileSync(pack, readFileSync(pack, "utf8").replace("6.25", "6.5"));
    expect(drift()).toEqual(["quality-holdout"]);
  });
});

describe("a hidden holdout as a proposal's template", () => {
  it("is refused to a building agent, so its command and rule are never copied where the builder reads them", async () => {
    const goal = holdoutGoal();
    const byCli = cairn(
      ws.dir,
      ["eval", "propose", goal, "--proof", "speed", "--template", "quality-holdout", "--json"],
      { env: builder },
    );
    expect(byCli.code).toBe(3);
    expect(byCli.stdout + byCli.stderr).not.toContain("holdout-score");
    // Over MCP a proposal could also say it is not hidden, which would journal the copy for all.
    const mcp = await connectMcp(ws.dir, { env: builder, args: ["--profile", "planner"] });
    try {
      const unhidden = await callTool(mcp, "propose_evaluator", {
        goal,
        proof: "speed",
        template: "quality-holdout",
        hidden: false,
      });
      expect(unhidden.isError).toBeFalsy();
      expect(JSON.stringify(unhidden)).not.toMatch(/holdout-score|console\.log/);
      expect((unhidden.structuredContent as { refused?: { policy: string } }).refused?.policy).toBe("hidden");
    } finally {
      await mcp.close();
    }
    const seen = cairn(ws.dir, ["activity", "--json"], { env: builder });
    expect(seen.stdout).not.toMatch(/holdout-score|console\.log/);
    // The owner may still start from it; the copy stays hidden.
    const owners = cairnJson<{ proposal: { argv: string[] | null } }>(ws.dir, [
      "eval",
      "propose",
      goal,
      "--proof",
      "speed",
      "--template",
      "quality-holdout",
    ]);
    expect(owners.proposal.argv).not.toBeNull();
    const listed = cairn(ws.dir, ["eval", "proposals", goal, "--json"], { env: builder });
    expect(listed.stdout).not.toMatch(/holdout-score|console\.log/);
  });
});

describe("a hidden proposal the owner's approval refuses", () => {
  it("keeps its rule out of the refusal the audit log records for agents to tail", () => {
    const goal = holdoutGoal();
    const proposal = cairnJson<{ proposal: { id: string } }>(ws.dir, [
      "eval",
      "propose",
      goal,
      "--proof",
      "speed",
      "--hidden",
      "--argv",
      process.execPath,
      "--argv",
      "-e",
      "--argv",
      "console.log('no number here')",
      "--read",
      "regex",
      "--pattern",
      "private-latency (\\d+)",
    ]).proposal.id;
    const refused = cairn(ws.dir, ["eval", "approve", proposal, "--json"]);
    expect(refused.code).toBe(3);
    const { token } = addAgent(ws.dir, "rita", "reviewer", ["--grant", "ro"]);
    const tail = cairn(ws.dir, ["audit", "tail", "--json"], { env: { CAIRN_AGENT: token } });
    expect(tail.code).toBe(0);
    expect(tail.stdout).toContain("eval approve");
    expect(tail.stdout).not.toContain("private-latency");
  });
});

describe("a hidden evaluator whose pattern does not compile", () => {
  it("is reported by its place, not its text, to an agent listing evaluators and in the audited freeze", () => {
    const goal = contractWith(ws.dir, [{ name: "quality", threshold: 5 }]);
    writePack(
      ws.dir,
      "fixture",
      evaluatorToml({
        name: "quality-holdout",
        proof: "quality",
        hidden: true,
        argv: nodeArgv("0"),
        read: "regex",
        pattern: "(secret-ratio (\\d+)",
      }),
    );
    const listed = cairn(ws.dir, ["eval", "list", "--json"], { env: builder });
    expect(listed.code).toBe(2);
    expect(listed.stderr).toMatch(/evaluator\.0\.pattern: not a valid regex/);
    expect(listed.stderr).not.toContain("secret-ratio");
    expect(cairn(ws.dir, ["run", "freeze", goal]).code).toBe(2);
    const tail = cairn(ws.dir, ["audit", "tail", "--json"], { env: builder });
    expect(tail.stdout).toContain("run freeze");
    expect(tail.stdout).not.toContain("secret-ratio");
  });
});
