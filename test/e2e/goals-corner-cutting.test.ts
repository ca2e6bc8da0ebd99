import { writeFileSync } from "node:fs";
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
    const old = cairnJson<{ run: { id: string } }>(ws.dir, ["run", "freeze", goal]).run.id;
    // The owner adds a proof and a milestone that requires it, and freezes a run that measures it.
    cairnJson(ws.dir, ["goal", "update", goal, "--proofs", '{"name":"security","threshold":1}']);
    const secure = cairnJson<{ milestones: { id: string; key: string }[] }>(ws.dir, [
      "goal",
      "plan",
      goal,
      "--milestones",
      '{"key":"core","title":"core","proofs":["check"]}',
      "--milestones",
      '{"key":"sec","title":"secure it","proofs":["security"],"depends_on":["core"]}',
    ]).milestones.find((m) => m.key === "sec")?.id as string;
    const current = cairnJson<{ run: { id: string } }>(ws.dir, ["run", "freeze", goal]).run.id;

    // The old run knows nothing of `security`: it cannot judge the milestone that requires it.
    const opened = cairn(ws.dir, ["attempt", "open", old, "--milestone", secure, "--json"], { env: builder });
    expect(opened.code).toBe(3);
    expect(opened.stdout).toMatch(/security/);
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
