import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
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
import { callTool, connectMcp } from "../helpers/mcp.js";
import { addAgent, CAIRN_BIN, cleanEnv } from "../helpers/workspace.js";

let ws: { dir: string; cleanup: () => void };
beforeEach(() => {
  ws = gitWorkspace({ "lib.txt": "good\n" });
});
afterEach(() => ws.cleanup());

const GOAL_TOOLS = [
  "create_goal",
  "update_goal",
  "plan_milestones",
  "select_evaluators",
  "propose_evaluator",
  "freeze_run",
  "list_runs",
  "run_status",
  "open_attempt",
  "run_evals",
  "decide_attempt",
  "report_scores",
  "revert_attempt",
  "propose_next_task",
];

/** A shell is the evaluator's own choice here: it leaves a grandchild that only a group kill reaches. */
const SLEEPER = ["sh", "-c", "sleep 60 & echo $! > grandchild.pid; wait"];

function gone(pid: number): boolean {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    return /State:\s+Z/.test(status);
  } catch {
    return true;
  }
}

async function waitFor(check: () => boolean, ms = 15_000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

// biome-ignore lint/suspicious/noExplicitAny: tool results are read field by field and checked by the assertions.
type Loose = Record<string, any>;
const structured = (result: { structuredContent?: unknown }) => result.structuredContent as Loose;

describe("goal tools over MCP", () => {
  it("serves the goal tools to the planner profile only, each with an output schema", async () => {
    const planner = await connectMcp(ws.dir, { args: ["--profile", "planner"] });
    const worker = await connectMcp(ws.dir);
    try {
      const listed = await planner.client.listTools();
      const names = listed.tools.map((tool) => tool.name);
      expect(names).toEqual(expect.arrayContaining(GOAL_TOOLS));
      for (const tool of listed.tools) expect(tool.outputSchema, tool.name).toBeDefined();
      expect(listed.tools.find((t) => t.name === "revert_attempt")?.annotations?.destructiveHint).toBe(true);
      const workerNames = (await worker.client.listTools()).tools.map((tool) => tool.name);
      expect(workerNames.filter((name) => GOAL_TOOLS.includes(name))).toEqual([]);
      process.stderr.write(`planner tools/list ≈ ${Math.round(JSON.stringify(listed).length / 4)} tokens\n`);
    } finally {
      await planner.close();
      await worker.close();
    }
  });

  it("hides a holdout's command and output from a building agent, showing only pass/fail after decide", async () => {
    const goal = contractWith(ws.dir, [{ name: "check", threshold: 1 }]);
    writePack(
      ws.dir,
      "fixture",
      evaluatorToml({
        name: "visible-check",
        proof: "check",
        argv: nodeArgv("console.log('visible says hi; agent token: '+(process.env.CAIRN_AGENT??'none'))"),
      }) +
        evaluatorToml({
          name: "holdout",
          proof: "check",
          argv: nodeArgv("console.log('SECRET-HOLDOUT');process.exit(1)"),
          hidden: true,
        }),
    );
    const builder = addAgent(ws.dir, "builder", "builder");
    const mcp = await connectMcp(ws.dir, {
      env: { CAIRN_AGENT: builder.token },
      args: ["--profile", "planner"],
    });
    try {
      // Freezing picks the judges: a building agent's freeze is a refusal, a normal result.
      const byBuilder = await callTool(mcp, "freeze_run", { goal });
      expect(byBuilder.isError).toBeFalsy();
      expect(structured(byBuilder).refused).toMatchObject({ policy: "planning" });
      const run = cairnJson<{ run: { id: string } }>(ws.dir, ["run", "freeze", goal]).run;
      const status = structured(await callTool(mcp, "run_status", { run: run.id }));
      const holdout = status.run.evaluators.find((e: { hidden: boolean }) => e.hidden);
      expect(holdout.argv).toBeNull();
      const attempt = structured(await callTool(mcp, "open_attempt", { run: run.id })).attempt;
      const evals = await callTool(mcp, "run_evals", { attempt: attempt.id });
      const text = JSON.stringify(evals);
      expect(text).toContain("visible says hi");
      expect(text).toContain("agent token: none");
      expect(text).not.toContain("SECRET-HOLDOUT");
      expect(text).not.toContain("holdout");
      const decision = structured(await callTool(mcp, "decide_attempt", { attempt: attempt.id }));
      expect(decision.verdict).toBe("review");
      expect(decision.reasons.join("\n")).toMatch(
        /hidden holdout evaluator fails while the visible ones pass/,
      );
      const hidden = decision.evaluators.find((e: { hidden: boolean }) => e.hidden);
      expect(hidden).toMatchObject({ name: "(hidden)", passed: false, mean: null, errors: [] });
      expect(JSON.stringify(decision)).not.toContain("SECRET");
    } finally {
      await mcp.close();
    }
  });

  it("refuses an unknown proof name as a normal result and a score outside [0,1] as an error", async () => {
    const goal = contractWith(ws.dir, [
      { name: "check", threshold: 1 },
      { name: "review", manual: true, threshold: 0.5 },
    ]);
    writePack(ws.dir, "fixture", evaluatorToml({ name: "ok", proof: "check", argv: nodeArgv("0") }));
    const mcp = await connectMcp(ws.dir, { args: ["--profile", "planner"] });
    // The builder reports: a score from the owner's session is the owner's judgment, which a
    // model gives only with the person's yes (owner-judgment.test.ts).
    const builder = await connectMcp(ws.dir, {
      env: { CAIRN_AGENT: addAgent(ws.dir, "bea", "builder").token },
      args: ["--profile", "planner"],
    });
    try {
      const run = structured(await callTool(mcp, "freeze_run", { goal })).run;
      const attempt = structured(await callTool(builder, "open_attempt", { run: run.id })).attempt;
      const unknown = await callTool(builder, "report_scores", {
        attempt: attempt.id,
        scores: { looks_good: 1 },
      });
      expect(unknown.isError).toBeFalsy();
      expect(structured(unknown).refused.reason).toMatch(/its proofs are: check, review/);
      const outside = await callTool(builder, "report_scores", {
        attempt: attempt.id,
        scores: { review: -0.2 },
      });
      expect(outside.isError).toBe(true);
      expect(JSON.stringify(outside.content)).toMatch(/outside \[0,1\]/);
      const decide = await callTool(builder, "decide_attempt", { attempt: attempt.id });
      expect(structured(decide).refused.policy).toBe("evidence");
    } finally {
      await mcp.close();
      await builder.close();
    }
  });

  it("sends progress notifications when the client asks for them", async () => {
    const goal = contractWith(ws.dir, [{ name: "check", threshold: 1 }]);
    writePack(
      ws.dir,
      "fixture",
      evaluatorToml({ name: "ok", proof: "check", argv: nodeArgv("0"), repeats: 3 }),
    );
    const mcp = await connectMcp(ws.dir, { args: ["--profile", "planner"] });
    try {
      const run = structured(await callTool(mcp, "freeze_run", { goal })).run;
      const attempt = structured(await callTool(mcp, "open_attempt", { run: run.id })).attempt;
      const updates: { progress: number; total?: number }[] = [];
      const result = await mcp.client.callTool(
        { name: "run_evals", arguments: { schema_version: 1, attempt: attempt.id } },
        { onprogress: (update) => updates.push(update) },
      );
      expect(structured(result).samples).toHaveLength(3);
      // One update before each sample, each a sample's run ahead of the result. The end (3 of 3)
      // is the result itself: sent as progress right before it, the SDK client would drop it
      // and report an error, having read it with the result.
      await waitFor(() => updates.length >= 3);
      expect(updates[0]).toMatchObject({ progress: 0, total: 3 });
      expect(updates.map((u) => u.progress)).toEqual([0, 1, 2]);
    } finally {
      await mcp.close();
    }
  });

  it("kills the evaluator's whole process group when the client cancels", async () => {
    const goal = contractWith(ws.dir, [{ name: "check", threshold: 1 }]);
    writePack(ws.dir, "fixture", evaluatorToml({ name: "sleeper", proof: "check", argv: SLEEPER }));
    const mcp = await connectMcp(ws.dir, { args: ["--profile", "planner"] });
    try {
      const run = structured(await callTool(mcp, "freeze_run", { goal })).run;
      const attempt = structured(await callTool(mcp, "open_attempt", { run: run.id })).attempt;
      const abort = new AbortController();
      const call = mcp.client
        .callTool(
          { name: "run_evals", arguments: { schema_version: 1, attempt: attempt.id } },
          { signal: abort.signal },
        )
        .catch((error: unknown) => error);
      const pidFile = join(ws.dir, "grandchild.pid");
      await waitFor(() => existsSync(pidFile) && readFileSync(pidFile, "utf8").trim() !== "");
      const pid = Number(readFileSync(pidFile, "utf8"));
      abort.abort();
      await call;
      await waitFor(() => gone(pid));
      await waitFor(() => {
        const shown = cairnJson<{ samples: { error: string | null }[] }>(ws.dir, [
          "attempt",
          "show",
          attempt.id,
        ]);
        return shown.samples.some((s) => s.error?.startsWith("cancelled") === true);
      });
    } finally {
      await mcp.close();
    }
  });
});

describe("a proposal whose matches must agree", () => {
  it("takes match = only over MCP, shows it in the proposal and dry-runs it: two readings are no number", async () => {
    const goal = contractWith(ws.dir, [{ name: "speed", direction: "lower", threshold: 100 }]);
    const mcp = await connectMcp(ws.dir, { args: ["--profile", "planner"] });
    try {
      const propose = async (sample: string) =>
        structured(
          await callTool(mcp, "propose_evaluator", {
            goal,
            proof: "speed",
            argv: nodeArgv("0"),
            read: "regex",
            pattern: "time: ([0-9.]+) ms",
            match: "only",
            sample_output: sample,
          }),
        );
      const agreed = await propose("time: 20 ms\ntime: 20.0 ms\n");
      expect(agreed.proposal.match).toBe("only");
      expect(agreed.dry_run).toMatchObject({
        value: 20,
        rule: "/time: ([0-9.]+) ms/, every match one number",
      });
      const forged = await propose("time: 20 ms\ntime: 1 ms\n");
      expect(forged.dry_run.value).toBeNull();
      expect(forged.dry_run.note).toContain('2 different numbers ("20" and "1")');
      const misplaced = await callTool(mcp, "propose_evaluator", {
        goal,
        proof: "speed",
        argv: nodeArgv("0"),
        match: "only",
      });
      expect(JSON.stringify(misplaced.content)).toContain("match applies to read = regex only");
    } finally {
      await mcp.close();
    }
  });
});

describe("a pattern that backtracks on the text it reads", () => {
  it("holds no request behind it: a ping is answered while the proposal's dry run searches", async () => {
    const goal = contractWith(ws.dir, [{ name: "speed", threshold: 100 }]);
    const mcp = await connectMcp(ws.dir, { args: ["--profile", "planner"] });
    try {
      const order: string[] = [];
      const started = Date.now();
      // `(a+)+b` over forty a's and no b backtracks until the search's 5 s budget ends it.
      const proposing = callTool(mcp, "propose_evaluator", {
        goal,
        proof: "speed",
        argv: nodeArgv("0"),
        read: "regex",
        pattern: "(a+)+b",
        sample_output: "a".repeat(40),
      }).then((result) => {
        order.push("proposal");
        return result;
      });
      await new Promise((resolve) => setTimeout(resolve, 500));
      const pingSent = Date.now();
      await mcp.client.ping();
      order.push("ping");
      const pingMs = Date.now() - pingSent;
      const proposed = structured(await proposing);
      expect(order).toEqual(["ping", "proposal"]);
      expect(pingMs).toBeLessThan(2_000);
      expect(proposed.dry_run.error).toMatch(/took longer than 5000 ms on the output \(it backtracks/);
      expect(Date.now() - started).toBeGreaterThanOrEqual(5_000);
    } finally {
      await mcp.close();
    }
  });
});

describe("Ctrl-C in a terminal", () => {
  /** `cairn attempt eval --json` on a new attempt of a run frozen now, as a terminal runs it. */
  function evalInTerminal(goal: string) {
    const run = cairnJson<{ run: { id: string } }>(ws.dir, ["run", "freeze", goal]).run.id;
    const attempt = cairnJson<{ attempt: { id: string } }>(ws.dir, ["attempt", "open", run]).attempt.id;
    const child = spawn(process.execPath, [CAIRN_BIN, "attempt", "eval", attempt, "--json"], {
      cwd: ws.dir,
      env: cleanEnv(),
    });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
    return { child, exited, stdout: () => out };
  }

  it("kills the evaluator's process group and keeps the evidence", async () => {
    const goal = contractWith(ws.dir, [{ name: "check", threshold: 1 }]);
    writePack(ws.dir, "fixture", evaluatorToml({ name: "sleeper", proof: "check", argv: SLEEPER }));
    const { child, exited, stdout } = evalInTerminal(goal);
    const pidFile = join(ws.dir, "grandchild.pid");
    await waitFor(() => existsSync(pidFile) && readFileSync(pidFile, "utf8").trim() !== "");
    const pid = Number(readFileSync(pidFile, "utf8"));
    child.kill("SIGINT");
    // Interrupted is interrupted: 130, as a shell reports it, with the cancelled result on stdout.
    expect(await exited).toBe(130);
    expect(JSON.parse(stdout())).toMatchObject({ cancelled: true });
    await waitFor(() => gone(pid));
  });

  it("stops a pattern that backtracks on the output at once, and records the sample as cancelled", async () => {
    const goal = contractWith(ws.dir, [{ name: "speed", threshold: 100 }]);
    const printed = join(ws.dir, "printed");
    writePack(
      ws.dir,
      "fixture",
      evaluatorToml({
        name: "speed",
        proof: "speed",
        argv: nodeArgv(
          `require('fs').writeFileSync(${JSON.stringify(printed)}, ''); console.log('a'.repeat(40))`,
        ),
        read: "regex",
        pattern: "(a+)+b",
        direction: "lower",
        threshold: 100,
      }),
    );
    const { child, exited, stdout } = evalInTerminal(goal);
    await waitFor(() => existsSync(printed));
    // The evaluator has printed and exited; cairn is searching its output.
    await new Promise((resolve) => setTimeout(resolve, 400));
    const interrupted = Date.now();
    child.kill("SIGINT");
    expect(await exited).toBe(130);
    // The search's budget is 5 s: stopping within it shows the interrupt reached the search.
    expect(Date.now() - interrupted).toBeLessThan(2_500);
    const result = JSON.parse(stdout()) as { cancelled: boolean; samples: { error: string | null }[] };
    expect(result.cancelled).toBe(true);
    expect(result.samples[0]?.error).toBe("cancelled while reading the output");
  });
});
