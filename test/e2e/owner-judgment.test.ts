import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  cairnJson,
  contractWith,
  evaluatorToml,
  freezeRun,
  gitWorkspace,
  nodeArgv,
  openAttempt,
  writePack,
} from "../helpers/goals.js";
import {
  callTool,
  connectMcp,
  type McpHandle,
  type PersonAtClient,
  personAnswering,
} from "../helpers/mcp.js";
import { addAgent, cairn, runSync } from "../helpers/workspace.js";

/**
 * With no agent token, a model's MCP session is the owner's, and the owner's word settles what a
 * self-report cannot: a manual proof's score, a review's accept or reject. The model that built
 * an attempt must not give that word itself: from a model it needs the person at the client.
 */
let repo: { dir: string; cleanup: () => void };
const open: McpHandle[] = [];
beforeEach(() => {
  repo = gitWorkspace({ "lib.txt": "good\n" });
});
afterEach(async () => {
  for (const handle of open.splice(0)) await handle.close();
  repo.cleanup();
});

/** A planner's server in the workspace: the owner's, or `token`'s agent's. */
async function planner(at?: PersonAtClient, token?: string) {
  const handle = await connectMcp(repo.dir, {
    args: ["--profile", "planner"],
    ...(at ? { person: at } : {}),
    ...(token ? { env: { CAIRN_AGENT: token } } : {}),
  });
  open.push(handle);
  return handle;
}

const refusalOf = (result: { structuredContent?: unknown }) =>
  (result.structuredContent as { refused?: { policy: string; reason: string; next: string } }).refused;

/** What the `cli` tool's command printed with --json: its exit code and output. */
const viaCli = (result: { structuredContent?: unknown }) =>
  result.structuredContent as { exit_code: number; output: { refused?: { policy: string } } };

/** An attempt a builder agent made and evaluated, undecided: its manual proof has no score yet. */
function evaluatedAttempt(builder: Record<string, string>): string {
  const goal = contractWith(repo.dir, [
    { name: "check", threshold: 1 },
    { name: "design", manual: true, threshold: 1 },
  ]);
  writePack(
    repo.dir,
    "fixture",
    evaluatorToml({ name: "fixture-check", proof: "check", argv: nodeArgv("process.exit(0)") }),
  );
  const attempt = openAttempt(repo.dir, freezeRun(repo.dir, goal), builder);
  writeFileSync(join(repo.dir, "feature.txt"), "the attempt's work\n");
  cairnJson(repo.dir, ["attempt", "eval", attempt], builder);
  return attempt;
}

const decide = (attempt: string, builder: Record<string, string>) =>
  cairnJson<{ verdict: string }>(repo.dir, ["attempt", "decide", attempt], builder).verdict;

const commits = () => runSync("git", ["log", "--format=%s"], repo.dir).trim().split("\n").length;

describe("the owner's judgment, asked of a model in the owner's session", () => {
  it("is refused where the client cannot ask the person, through the tool and the cli hatch alike", async () => {
    const builder = { CAIRN_AGENT: addAgent(repo.dir, "bea", "builder").token };
    const attempt = evaluatedAttempt(builder);
    const model = await planner();
    const scored = await callTool(model, "report_scores", { attempt, scores: { design: 1 } });
    expect(refusalOf(scored)).toMatchObject({ policy: "person" });
    expect(refusalOf(scored)?.reason).toContain("records the owner's judgment");
    // Named as the person's command, not as the tool the model just called.
    expect(refusalOf(scored)?.next).toContain("at a terminal (cairn attempt report)");
    // Nothing was recorded as the owner's: the builder's self-report alone reaches review.
    cairnJson(repo.dir, ["attempt", "report", attempt, "--scores", '{"design":1}'], builder);
    expect(decide(attempt, builder)).toBe("review");
    const accepted = viaCli(await callTool(model, "cli", { argv: ["attempt", "accept", attempt] }));
    expect(accepted.exit_code).toBe(3);
    expect(accepted.output.refused).toMatchObject({ policy: "person" });
    const rejected = viaCli(
      await callTool(model, "cli", { argv: ["attempt", "reject", attempt, "--reason", "no"] }),
    );
    expect(rejected.output.refused).toMatchObject({ policy: "person" });
    // Nor does it approve the evaluator it proposed: a person approves what will judge.
    const goal = contractWith(repo.dir, [{ name: "speed", threshold: 1 }]);
    const proposed = await callTool(model, "propose_evaluator", { goal, proof: "speed", argv: ["true"] });
    const proposal = (proposed.structuredContent as { proposal: { id: string } }).proposal.id;
    const approved = viaCli(await callTool(model, "cli", { argv: ["eval", "approve", proposal] }));
    expect(approved.output.refused).toMatchObject({ policy: "person" });
    expect(cairn(repo.dir, ["eval", "approve", proposal, "--json"]).code).toBe(0);
    expect(commits()).toBe(1);
    // The person at a terminal judges as the owner.
    const byPerson = cairn(repo.dir, ["attempt", "accept", attempt, "--json"]);
    expect(byPerson.code, byPerson.stderr).toBe(0);
    expect(runSync("git", ["show", "HEAD:feature.txt"], repo.dir)).toBe("the attempt's work\n");
  });

  it("goes ahead only on the person's yes where the client can ask them; an agent's self-report asks no one", async () => {
    const builderToken = addAgent(repo.dir, "bea", "builder").token;
    const builder = { CAIRN_AGENT: builderToken };
    const attempt = evaluatedAttempt(builder);
    // The builder's own report is its self-report, not a judgment: no one is troubled.
    const watching = personAnswering({ action: "accept", content: { allow: true } });
    const asBuilder = await planner(watching.person, builderToken);
    const selfReport = await callTool(asBuilder, "report_scores", { attempt, scores: { design: 0.9 } });
    expect(selfReport.structuredContent).toMatchObject({ recorded: { design: 0.9 } });
    expect(watching.asked).toHaveLength(0);

    const declining = personAnswering({ action: "decline" });
    const refused = await callTool(await planner(declining.person), "report_scores", {
      attempt,
      scores: { design: 1 },
    });
    expect(refusalOf(refused)).toMatchObject({ policy: "confirm" });
    expect(declining.asked[0]?.message).toMatch(
      new RegExp(
        `^The owner's session asks to run \`attempt report\`, which records your judgment as the owner: .*${attempt}.*Is it your judgment\\?$`,
      ),
    );

    expect(declining.asked[0]?.message).toContain(`score design 1 for ${attempt}, opened by A-1 on goal G-1`);

    const allowing = personAnswering({ action: "accept", content: { allow: true } });
    const judge = await planner(allowing.person);
    // A report refused anyway (a proof the contract does not have) troubles no one.
    const unknown = await callTool(judge, "report_scores", { attempt, scores: { looks_good: 1 } });
    expect(refusalOf(unknown)?.reason).toMatch(/its proofs are: check, design/);
    expect(allowing.asked).toHaveLength(0);
    const scored = await callTool(judge, "report_scores", {
      attempt,
      scores: { design: 1 },
    });
    expect(scored.structuredContent).toMatchObject({ recorded: { design: 1 } });
    expect(allowing.asked).toHaveLength(1);
    // The person's yes made it the owner's judgment: with the check passing, the attempt is kept.
    expect(decide(attempt, builder)).toBe("keep");
  });

  it("settles a review from a model only on the person's yes", async () => {
    const builder = { CAIRN_AGENT: addAgent(repo.dir, "bea", "builder").token };
    const attempt = evaluatedAttempt(builder);
    cairnJson(repo.dir, ["attempt", "report", attempt, "--scores", '{"design":1}'], builder);
    expect(decide(attempt, builder)).toBe("review");
    const declining = personAnswering({ action: "decline" });
    const refused = await callTool(await planner(declining.person), "cli", {
      argv: ["attempt", "accept", attempt],
    });
    expect(viaCli(refused).output.refused).toMatchObject({ policy: "confirm" });
    expect(declining.asked[0]?.message).toContain(
      "`attempt accept`, which records your judgment as the owner",
    );
    expect(declining.asked[0]?.message).toContain(
      `keep (commit its changes) ${attempt}, opened by A-1, in review because:`,
    );
    expect(commits()).toBe(1);
    const allowing = personAnswering({ action: "accept", content: { allow: true } });
    const accepted = viaCli(
      await callTool(await planner(allowing.person), "cli", { argv: ["attempt", "accept", attempt] }),
    );
    expect(accepted.exit_code).toBe(0);
    expect(runSync("git", ["show", "HEAD:feature.txt"], repo.dir)).toBe("the attempt's work\n");
  });
});

describe("a holdout, asked for by a model in the owner's session", () => {
  it("is shown to the person at the terminal, and to the model only as hidden", async () => {
    const goal = contractWith(repo.dir, [{ name: "check", threshold: 1 }]);
    writePack(
      repo.dir,
      "fixture",
      evaluatorToml({ name: "visible-check", proof: "check", argv: nodeArgv("process.exit(0)") }) +
        evaluatorToml({
          name: "holdout",
          proof: "check",
          argv: nodeArgv("console.log('SECRET-HOLDOUT');process.exit(1)"),
          hidden: true,
        }),
    );
    const model = await planner();
    const run = (await callTool(model, "freeze_run", { goal })).structuredContent as {
      run: { id: string };
    };
    const attempt = (
      (await callTool(model, "open_attempt", { run: run.run.id })).structuredContent as {
        attempt: { id: string };
      }
    ).attempt.id;
    const seen = [
      run,
      (await callTool(model, "run_evals", { attempt })).structuredContent,
      (await callTool(model, "decide_attempt", { attempt })).structuredContent,
      (await callTool(model, "run_status", { run: run.run.id })).structuredContent,
      (await callTool(model, "select_evaluators", { goal })).structuredContent,
      ...(await Promise.all(
        [
          ["attempt", "show", attempt],
          ["eval", "list"],
          ["run", "status", run.run.id],
        ].map(async (argv) => (await callTool(model, "cli", { argv })).structuredContent),
      )),
    ];
    for (const result of seen) expect(JSON.stringify(result)).not.toContain("SECRET-HOLDOUT");
    // The decision still says the holdout failed, by its place and not its command.
    expect(JSON.stringify(seen[2])).toContain("(hidden)");
    // Nor does a backup carry it to the model: the person exports at the terminal.
    const exported = viaCli(await callTool(model, "cli", { argv: ["export"] }));
    expect(exported.output.refused).toMatchObject({ policy: "person" });
    expect(cairn(repo.dir, ["export"]).stdout).toContain("SECRET-HOLDOUT");
    // The person reads it whole.
    expect(cairn(repo.dir, ["run", "status", run.run.id, "--json"]).stdout).toContain("SECRET-HOLDOUT");
    expect(cairn(repo.dir, ["eval", "list", "--json"]).stdout).toContain("SECRET-HOLDOUT");
  });
});
