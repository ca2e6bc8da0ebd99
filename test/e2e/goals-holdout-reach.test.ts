import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  cairnJson,
  contractWith,
  evaluatorToml,
  freezeRun,
  gitWorkspace,
  nodeArgv,
  writePack,
} from "../helpers/goals.js";
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

/** A goal whose `quality` proof a holdout measures with a bar of its own (6.25); the run's id. */
function holdoutRun(): string {
  const goal = contractWith(ws.dir, [{ name: "quality", threshold: 5 }]);
  writePack(
    ws.dir,
    "fixture",
    evaluatorToml({
      name: "quality-holdout",
      proof: "quality",
      hidden: true,
      argv: nodeArgv("console.log('score 7')"),
      read: "regex",
      pattern: "score (\\d+)",
      threshold: 6.25,
    }),
  );
  return freezeRun(ws.dir, goal);
}

type RunShown = { run: { evaluators: { hidden: boolean; threshold: number | null }[] } };

describe("a hidden holdout's bar", () => {
  it("is withheld from a building agent's run status, as the decision and progress views withhold it", () => {
    const run = holdoutRun();
    const seen = cairn(ws.dir, ["run", "status", run, "--json"], { env: builder });
    expect(seen.code).toBe(0);
    expect(seen.stdout).not.toContain("6.25");
    expect((seen.json as RunShown).run.evaluators[0]).toMatchObject({ hidden: true, threshold: null });
    // The owner, who set it, still reads it.
    const owner = cairnJson<RunShown>(ws.dir, ["run", "status", run]);
    expect(owner.run.evaluators[0]?.threshold).toBe(6.25);
  });
});
