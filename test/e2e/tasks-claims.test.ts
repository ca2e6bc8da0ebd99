import { spawn } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { shellAgent, until, writeAgent } from "../helpers/agents.js";
import { callTool, connectMcp } from "../helpers/mcp.js";
import {
  addAgent,
  arrange,
  CAIRN_BIN,
  cairn,
  cairnAsync,
  cleanEnv,
  initWorkspace,
  STORE_UNDER_TEST,
} from "../helpers/workspace.js";

let ws: { dir: string; cleanup: () => void };
beforeEach(() => {
  ws = initWorkspace();
});
afterEach(() => ws.cleanup());

const as = (token: string) => ({ env: { CAIRN_AGENT: token } });
/** A step a test only stands on, run in-thread: one that fails stops the test there, not later. */
const given = (args: string[], options: { env?: Record<string, string | undefined> } = {}) => {
  const result = arrange(ws.dir, args, options);
  expect(result.code, `${args.join(" ")}: ${result.stderr}`).toBe(0);
  return result;
};
/** A child agent minted by its parent, with the parent's own token. */
const childOf = (parent: { id: string; token: string }, name: string, role: string) => {
  const added = arrange(
    ws.dir,
    ["agent", "add", name, "--role", role, "--parent", parent.id, "--json"],
    as(parent.token),
  );
  expect(added.code, added.stderr).toBe(0);
  const out = added.json as { agent: { id: string }; token: string };
  return { id: out.agent.id, token: out.token };
};
const taskOf = (id: string) =>
  (cairn(ws.dir, ["task", "show", id, "--json"]).json as { task: { status: string; owner: string | null } })
    .task;

describe("claims", () => {
  it("of N processes racing for one task, exactly one wins; the rest are refused naming the owner", async () => {
    given(["task", "add", "contested"]);
    given(["task", "add", "spare"]);
    const agents = Array.from({ length: 8 }, (_, i) => addAgent(ws.dir, `racer${i}`, "builder"));
    const runs = await Promise.all(
      agents.map((a) => cairnAsync(ws.dir, ["task", "claim", "T-1", "--json"], as(a.token))),
    );
    const winners = runs.filter((r) => r.code === 0);
    expect(winners).toHaveLength(1);
    const owner = taskOf("T-1").owner;
    const winner = agents[runs.indexOf(winners[0] as (typeof runs)[number])];
    expect(owner).toBe(winner?.id);
    for (const lost of runs.filter((r) => r.code !== 0)) {
      expect(lost.code).toBe(3);
      expect(lost.json).toMatchObject({ refused: { policy: "claimed" } });
      expect((lost.json as { refused: { reason: string; next: string } }).refused.reason).toContain(
        `claimed by ${owner}`,
      );
      expect((lost.json as { refused: { next: string } }).refused.next).toContain("take T-2");
    }
  });

  it("refuses a claim by a retired agent, on the CLI and on a server started before the retirement", async () => {
    given(["task", "add", "t"]);
    const bob = addAgent(ws.dir, "bob", "builder");
    const mcp = await connectMcp(ws.dir, as(bob.token));
    try {
      expect(cairn(ws.dir, ["agent", "retire", "bob"]).code).toBe(0);
      const viaCli = cairn(ws.dir, ["task", "claim", "T-1", "--json"], as(bob.token));
      expect(viaCli.code).toBe(3);
      expect(viaCli.stderr).toMatch(/retired/);
      const viaMcp = await callTool(mcp, "claim_task", { task: "T-1" });
      expect(viaMcp.isError).toBeFalsy();
      expect(viaMcp.structuredContent).toMatchObject({ refused: { policy: "identity" } });
      expect(taskOf("T-1")).toMatchObject({ status: "open", owner: null });
    } finally {
      await mcp.close();
    }
  });

  it("refuses with open dependencies (naming them), over the WIP cap, outside scope, and for a read-only grant", () => {
    writeFileSync(
      join(ws.dir, ".cairn", "cairn.toml"),
      '[roles.builder]\nscope = ["src/**"]\nout_of_scope = ["src/vendor/**"]\nwip_cap = 1\n',
    );
    const bob = addAgent(ws.dir, "bob", "builder");
    const ro = addAgent(ws.dir, "rita", "reviewer", ["--grant", "ro"]);
    given(["task", "add", "first", "--traces", "src/a.ts"]);
    given(["task", "add", "second", "--depends-on", "T-1"]);
    given(["task", "add", "vendored", "--traces", "src/vendor/x.ts"]);
    given(["task", "add", "docs", "--traces", "docs/readme.md"]);
    given(["task", "add", "free"]);
    const deps = cairn(ws.dir, ["task", "claim", "T-2", "--json"], as(bob.token));
    expect(deps.json).toMatchObject({ refused: { policy: "dependencies" } });
    expect((deps.json as { refused: { reason: string; next: string } }).refused.reason).toContain(
      "T-1 (open)",
    );
    expect((deps.json as { refused: { next: string } }).refused.next).toContain("take the dependency T-1");
    expect(cairn(ws.dir, ["task", "claim", "T-3", "--json"], as(bob.token)).json).toMatchObject({
      refused: { policy: "scope" },
    });
    expect(cairn(ws.dir, ["task", "claim", "T-4", "--json"], as(bob.token)).json).toMatchObject({
      refused: { policy: "scope" },
    });
    const ready = cairn(ws.dir, ["task", "ready", "--limit", "10", "--json"], as(bob.token)).json as {
      tasks: { id: string }[];
    };
    expect(ready.tasks.map((t) => t.id)).toEqual(["T-1", "T-5"]);
    expect(cairn(ws.dir, ["task", "claim", "T-1"], as(bob.token)).code).toBe(0);
    const wip = cairn(ws.dir, ["task", "claim", "T-5", "--json"], as(bob.token));
    expect(wip.json).toMatchObject({ refused: { policy: "wip" } });
    const readOnly = cairn(ws.dir, ["task", "claim", "T-5", "--json"], as(ro.token));
    expect(readOnly.code).toBe(3);
    expect(readOnly.json).toMatchObject({ refused: { policy: "grant" } });
    // A read-only agent may still propose: its finish becomes a proposal for the owner.
    const proposal = cairn(ws.dir, ["task", "finish", "T-1", "--json"], as(ro.token));
    expect(proposal.json).toMatchObject({ result: "proposed", to: bob.id });
    expect(taskOf("T-1").status).toBe("active");
  });

  it("decides scope against a hostile trace in bounded time, a glob of many stars or not", () => {
    // Each glob below backtracks in a regular-expression engine: against these traces, three
    // names of 255 dashes, the first one alone took seconds per match.
    writeFileSync(
      join(ws.dir, ".cairn", "cairn.toml"),
      '[roles.builder]\nscope = ["src/*-*/*-*/*-*.ts"]\nout_of_scope = ["**/*_*_*_*_old.ts"]\n',
    );
    const bob = addAgent(ws.dir, "bob", "builder");
    const names = (last: string) => `src/${"-".repeat(255)}/${"-".repeat(255)}/${last}`;
    given(["task", "add", "hostile", "--traces", names(`${"-".repeat(252)}.t`)]);
    given(["task", "add", "fits", "--traces", names(`${"-".repeat(252)}.ts`)]);
    given(["task", "add", "kept out", "--traces", `src/a-b/c-d/${"_".repeat(250)}old.ts`]);
    const started = performance.now();
    const ready = cairn(ws.dir, ["task", "ready", "--limit", "10", "--json"], as(bob.token));
    expect((ready.json as { tasks: { id: string }[] }).tasks.map((t) => t.id)).toEqual(["T-2"]);
    for (const id of ["T-1", "T-3"])
      expect(cairn(ws.dir, ["task", "claim", id, "--json"], as(bob.token)).json, id).toMatchObject({
        refused: { policy: "scope" },
      });
    expect(cairn(ws.dir, ["task", "claim", "T-2"], as(bob.token)).code).toBe(0);
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it("settles concurrent finish and release on one task: exactly one happens", async () => {
    const bob = addAgent(ws.dir, "bob", "builder");
    for (let round = 1; round <= 4; round++) {
      const id = `T-${round}`;
      given(["task", "add", `t${round}`, "--criteria", "done"]);
      given(["task", "claim", id], as(bob.token));
      cairn(ws.dir, ["task", "check", id, "--all"], as(bob.token));
      const [finish, release] = await Promise.all([
        cairnAsync(ws.dir, ["task", "finish", id, "--json"], as(bob.token)),
        cairnAsync(ws.dir, ["task", "release", id, "--json"], as(bob.token)),
      ]);
      const final = taskOf(id);
      if (finish.code === 0) {
        expect(release.code, release.stderr).toBe(5);
        expect(final).toMatchObject({ status: "done", owner: bob.id });
      } else {
        expect(finish.code, finish.stderr).toBe(3);
        expect(release.code).toBe(0);
        expect(final).toMatchObject({ status: "open", owner: null });
      }
    }
  });

  it("a claimer killed mid-claim leaves the claim either made or not, never half", async () => {
    const bob = addAgent(ws.dir, "bob", "builder");
    const rounds = 16;
    for (let i = 1; i <= rounds; i++) arrange(ws.dir, ["task", "add", `t${i}`]);
    for (let i = 1; i <= rounds; i++) {
      const child = spawn(process.execPath, [CAIRN_BIN, "task", "claim", `T-${i}`], {
        cwd: ws.dir,
        env: cleanEnv({ CAIRN_AGENT: bob.token }),
        stdio: "ignore",
      });
      const closed = new Promise((resolve) => child.on("close", resolve));
      // Kill at a spread of moments: before, during and after the claim's transaction.
      setTimeout(() => child.kill("SIGKILL"), 60 + i * 12);
      await closed;
    }
    const exported = cairn(ws.dir, ["export", "--json"]).json as { jsonl: string };
    const records = exported.jsonl
      .trim()
      .split("\n")
      .slice(1)
      .map((line) => JSON.parse(line) as { table: string; row: Record<string, unknown> });
    const claimed = new Set(
      records.filter((r) => r.table === "events" && r.row.action === "task.claim").map((r) => r.row.subject),
    );
    const tasks = records.filter((r) => r.table === "tasks").map((r) => r.row);
    for (const task of tasks) {
      const active = task.status === "active";
      expect(active, String(task.id)).toBe(task.owner === bob.id);
      expect(active, String(task.id)).toBe(claimed.has(task.id));
      expect(active, String(task.id)).toBe(task.lease_at !== null);
    }
    // The board still works after the kills.
    expect(cairn(ws.dir, ["task", "claim", "T-1"], as(bob.token)).code).toBe(0);
  });

  it("a blocked task taken back up counts against the WIP cap: block, claim another, reopen is refused", () => {
    writeFileSync(join(ws.dir, ".cairn", "cairn.toml"), "[roles.builder]\nwip_cap = 1\n");
    const bob = addAgent(ws.dir, "bob", "builder");
    given(["task", "add", "first"]);
    given(["task", "add", "second"]);
    given(["task", "claim", "T-1"], as(bob.token));
    given(["task", "block", "T-1", "--reason", "parked"], as(bob.token));
    given(["task", "claim", "T-2"], as(bob.token));
    const reopen = cairn(ws.dir, ["task", "reopen", "T-1", "--json"], as(bob.token));
    expect(reopen.code, reopen.stdout).toBe(3);
    expect(reopen.json).toMatchObject({ refused: { policy: "wip" } });
    expect((reopen.json as { refused: { next: string } }).refused.next).toContain("T-2");
    expect(taskOf("T-1")).toMatchObject({ status: "blocked", owner: bob.id });
    // With the other one finished, it goes back to work.
    given(["task", "release", "T-2"], as(bob.token));
    expect(cairn(ws.dir, ["task", "reopen", "T-1"], as(bob.token)).code).toBe(0);
    expect(taskOf("T-1")).toMatchObject({ status: "active", owner: bob.id });
  });

  it("a WIP cap bounds the whole line: children an agent mints claim nothing past it, on the CLI or MCP", async () => {
    writeFileSync(join(ws.dir, ".cairn", "cairn.toml"), "[roles.dev]\nwip_cap = 1\n");
    const dev1 = addAgent(ws.dir, "dev1", "dev");
    const ann = addAgent(ws.dir, "ann", "dev");
    for (let i = 1; i <= 5; i++) arrange(ws.dir, ["task", "add", `t${i}`]);
    given(["task", "claim", "T-3"], as(dev1.token));
    const dev1c = childOf(dev1, "dev1c", "dev");
    const dev1d = childOf(dev1, "dev1d", "dev");
    const viaCli = cairn(ws.dir, ["task", "claim", "T-1", "--json"], as(dev1c.token));
    expect(viaCli.code, viaCli.stdout).toBe(3);
    expect(viaCli.json).toMatchObject({ refused: { policy: "wip" } });
    const refused = (viaCli.json as { refused: { reason: string; next: string } }).refused;
    expect(refused.reason).toContain(`dev1 (${dev1.id}, above dev1c)`);
    expect(refused.reason).toContain("dev1's line holds T-3 (dev1)");
    expect(refused.next).toContain("T-3 (dev1)");
    const mcp = await connectMcp(ws.dir, as(dev1d.token));
    try {
      const viaMcp = await callTool(mcp, "claim_task", { task: "T-2" });
      expect(viaMcp.isError).toBeFalsy();
      expect(viaMcp.structuredContent).toMatchObject({
        refused: { policy: "wip", reason: expect.stringContaining("T-3 (dev1)") },
      });
    } finally {
      await mcp.close();
    }
    const active = cairn(ws.dir, ["task", "list", "--status", "active", "--json"]).json as {
      tasks: { id: string; owner: string }[];
    };
    expect(active.tasks.map((t) => [t.id, t.owner])).toEqual([["T-3", dev1.id]]);
    // Another agent of the role, with no line of its own, keeps its own cap of one.
    expect(cairn(ws.dir, ["task", "claim", "T-4"], as(ann.token)).code).toBe(0);
  });

  it("a parent's WIP room is its line's: a child's task fills it, and reopening past it is refused", () => {
    writeFileSync(join(ws.dir, ".cairn", "cairn.toml"), "[roles.dev]\nwip_cap = 1\n");
    const dev1 = addAgent(ws.dir, "dev1", "dev");
    for (let i = 1; i <= 3; i++) arrange(ws.dir, ["task", "add", `t${i}`]);
    const dev1c = childOf(dev1, "dev1c", "dev");
    const dev1d = childOf(dev1, "dev1d", "dev");
    given(["task", "claim", "T-1"], as(dev1c.token));
    const parent = cairn(ws.dir, ["task", "claim", "T-3", "--json"], as(dev1.token));
    expect(parent.json).toMatchObject({
      refused: { policy: "wip", reason: expect.stringContaining("dev1's line holds T-1 (dev1c)") },
    });
    // Block one, the line claims another, reopen the first: refused, as a claim is.
    given(["task", "block", "T-1", "--reason", "parked"], as(dev1c.token));
    given(["task", "claim", "T-2"], as(dev1d.token));
    const reopen = cairn(ws.dir, ["task", "reopen", "T-1", "--json"], as(dev1c.token));
    expect(reopen.code, reopen.stdout).toBe(3);
    expect(reopen.json).toMatchObject({
      refused: { policy: "wip", reason: expect.stringContaining("T-2 (dev1d)") },
    });
    expect(taskOf("T-1")).toMatchObject({ status: "blocked", owner: dev1c.id });
  });

  it("children of one capped parent racing over parallel processes for tasks of their own: one wins", async () => {
    writeFileSync(join(ws.dir, ".cairn", "cairn.toml"), "[roles.dev]\nwip_cap = 1\n");
    const dev1 = addAgent(ws.dir, "dev1", "dev");
    const children = Array.from({ length: 4 }, (_, i) => childOf(dev1, `kid${i}`, "dev"));
    for (const [i] of children.entries()) arrange(ws.dir, ["task", "add", `t${i + 1}`]);
    const runs = await Promise.all(
      children.map((child, i) =>
        cairnAsync(ws.dir, ["task", "claim", `T-${i + 1}`, "--json"], as(child.token)),
      ),
    );
    expect(runs.filter((r) => r.code === 0)).toHaveLength(1);
    for (const lost of runs.filter((r) => r.code !== 0)) {
      expect(lost.code, lost.stderr).toBe(3);
      expect(lost.json).toMatchObject({ refused: { policy: "wip" } });
    }
    const active = cairn(ws.dir, ["task", "list", "--status", "active", "--json"]).json as {
      tasks: unknown[];
    };
    expect(active.tasks).toHaveLength(1);
  });

  it("an answer does not push the holder past its WIP cap: the task stays blocked, saying why, until reopened", () => {
    writeFileSync(join(ws.dir, ".cairn", "cairn.toml"), "[roles.builder]\nwip_cap = 1\n");
    const bob = addAgent(ws.dir, "bob", "builder");
    given(["task", "add", "first"]);
    given(["task", "add", "second"]);
    given(["task", "claim", "T-1"], as(bob.token));
    const asked = cairn(ws.dir, ["ask", "T-1", "which parser?", "--json"], as(bob.token));
    expect(asked.json).toMatchObject({ ask: "Q-1", status: "blocked" });
    // Waiting, bob takes up another task: the cap holds one active task.
    given(["task", "claim", "T-2"], as(bob.token));
    const answered = cairn(ws.dir, ["answer", "Q-1", "the streaming one", "--json"]);
    expect(answered.code, answered.stderr).toBe(0);
    expect(answered.json).toMatchObject({ status: "blocked", unblocked: false });
    const held = cairn(ws.dir, ["task", "show", "T-1", "--json"]).json as {
      task: { status: string; owner: string; blocked_reason: string };
    };
    expect(held.task).toMatchObject({ status: "blocked", owner: bob.id });
    expect(held.task.blocked_reason).toMatch(/answered; bob holds T-2, role builder's WIP cap of 1/);
    expect(cairn(ws.dir, ["task", "reopen", "T-1", "--json"], as(bob.token)).json).toMatchObject({
      refused: { policy: "wip" },
    });
    given(["task", "release", "T-2"], as(bob.token));
    expect(cairn(ws.dir, ["task", "reopen", "T-1"], as(bob.token)).code).toBe(0);
    expect(taskOf("T-1")).toMatchObject({ status: "active", owner: bob.id });
  });

  it("an agent retired while its check runs records nothing: the tick is refused when the command ends", async () => {
    const bob = addAgent(ws.dir, "bob", "builder");
    given(["task", "add", "t", "--criteria", '{"text":"slow","verify":["sleep","2"]}']);
    given(["task", "claim", "T-1"], as(bob.token));
    const check = cairnAsync(ws.dir, ["task", "check", "T-1", "--all", "--json"], as(bob.token));
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(cairn(ws.dir, ["agent", "retire", "bob"]).code).toBe(0);
    const out = await check;
    expect(out.code, out.stdout).toBe(3);
    expect(out.json).toMatchObject({ refused: { policy: "identity" } });
    const shown = cairn(ws.dir, ["task", "show", "T-1", "--json"]).json as {
      criteria: { checked: boolean }[];
    };
    expect(shown.criteria[0]?.checked).toBe(false);
  });

  it("an agent retired while its local agent run goes on: the run is cancelled at the next lease renewal, says why, and the call is refused", async () => {
    // Renewed, and the caller looked at, once a second.
    writeFileSync(join(ws.dir, ".cairn", "cairn.toml"), "[claims]\nlease_minutes = 0.05\n");
    const started = join(ws.dir, "started");
    writeAgent(ws.dir, "slow", shellAgent("slow", `touch ${JSON.stringify(started)}; sleep 60`));
    const bob = addAgent(ws.dir, "bob", "builder");
    const running = cairnAsync(ws.dir, ["agents", "run", "slow", "--json"], {
      ...as(bob.token),
      overstayMs: 30_000,
    });
    await until(() => existsSync(started));
    expect(cairn(ws.dir, ["agent", "retire", "bob"]).code).toBe(0);
    const ran = await running;
    expect(ran.code, ran.stderr).toBe(3);
    expect(ran.json).toMatchObject({ refused: { policy: "identity" } });
    const inspected = cairn(ws.dir, ["agents", "inspect", "slow", "--json"]).json as {
      last_runs: { status: string; reason: string | null }[];
    };
    expect(inspected.last_runs[0]).toMatchObject({
      status: "cancelled",
      reason: expect.stringMatching(/its caller may no longer act: agent bob \(A-1\) was retired at /),
    });
  });

  it("a role made read-only in cairn.toml makes its agents (and their children) read-only, however they were added", () => {
    const bob = addAgent(ws.dir, "bob", "builder");
    const kid = addAgent(ws.dir, "kid", "builder", ["--parent", bob.id]);
    given(["task", "add", "t"]);
    writeFileSync(join(ws.dir, ".cairn", "cairn.toml"), '[roles.builder]\ngrant = "ro"\n');
    for (const token of [bob.token, kid.token]) {
      expect(cairn(ws.dir, ["whoami"], as(token)).stdout).toContain("grant=ro");
      const claim = cairn(ws.dir, ["task", "claim", "T-1", "--json"], as(token));
      expect(claim.code).toBe(3);
      expect(claim.json).toMatchObject({ refused: { policy: "grant" } });
      expect(cairn(ws.dir, ["task", "add", "more", "--json"], as(token)).json).toMatchObject({
        refused: { policy: "grant" },
      });
    }
    expect(taskOf("T-1")).toMatchObject({ status: "open", owner: null });
  });

  it("a non-owner's finish becomes a proposal event for the owner", () => {
    const bob = addAgent(ws.dir, "bob", "builder");
    const eve = addAgent(ws.dir, "eve", "builder");
    given(["task", "add", "t", "--criteria", "c"]);
    given(["task", "claim", "T-1"], as(bob.token));
    const out = cairn(ws.dir, ["task", "finish", "T-1", "--note", "looks done", "--json"], as(eve.token));
    expect(out.code).toBe(0);
    expect(out.json).toMatchObject({ result: "proposed", to: bob.id });
    const exported = (cairn(ws.dir, ["export", "--json"]).json as { jsonl: string }).jsonl;
    expect(exported).toMatch(/"action":"task.finish_proposed","subject":"T-1","data":"{\\"to\\":\\"A-1\\"/);
  });

  it("sweeps the claims of a retired agent at once, blocked ones too: it will never call again", () => {
    const bob = addAgent(ws.dir, "bob", "builder");
    const ann = addAgent(ws.dir, "ann", "builder");
    given(["task", "add", "bob's active"]);
    given(["task", "add", "bob's blocked"]);
    given(["task", "add", "ann's"]);
    given(["task", "claim", "T-1"], as(bob.token));
    given(["task", "claim", "T-2"], as(bob.token));
    given(["task", "block", "T-2", "--reason", "parked"], as(bob.token));
    given(["task", "claim", "T-3"], as(ann.token));
    expect(cairn(ws.dir, ["agent", "retire", "bob"]).code).toBe(0);
    const swept = cairn(ws.dir, ["sweep", "--json"]).json as { released: { task: string; why: string }[] };
    expect(swept.released.map((r) => r.task).sort()).toEqual(["T-1", "T-2"]);
    for (const released of swept.released) expect(released.why).toMatch(/bob.*retired/);
    expect(taskOf("T-1")).toMatchObject({ status: "open", owner: null });
    expect(taskOf("T-2")).toMatchObject({ status: "open", owner: null });
    expect(taskOf("T-3")).toMatchObject({ status: "active", owner: ann.id });
    expect((cairn(ws.dir, ["sweep", "--json"]).json as { released: unknown[] }).released).toEqual([]);
  });

  it("the daemon releases stale claims too, as cairn sweep does, and records why", async () => {
    writeFileSync(join(ws.dir, ".cairn", "cairn.toml"), "[claims]\nlease_minutes = 0.02\n");
    const bob = addAgent(ws.dir, "bob", "builder");
    given(["task", "add", "bob's"]);
    given(["task", "claim", "T-1"], as(bob.token));
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const once = cairn(ws.dir, ["daemon", "--once", "--json"]);
    expect(once.code, once.stderr).toBe(0);
    expect((once.json as { swept: { task: string; why: string }[] }).swept).toEqual([
      { task: "T-1", why: expect.stringMatching(/bob.*made no call since/) },
    ]);
    expect(taskOf("T-1")).toMatchObject({ status: "open", owner: null });
  });

  // Waiting on cairn is not silence: whatever long call a holder makes, its leases are renewed
  // while cairn works on it, so a sweep meanwhile takes nothing.
  it.each([
    [
      "a local agent it started",
      (flag: string) => {
        writeAgent(
          ws.dir,
          "slow",
          shellAgent("slow", `while [ ! -e ${JSON.stringify(flag)} ]; do sleep 0.05; done`),
        );
        return ["agents", "run", "slow", "--json"];
      },
    ],
    [
      "a check whose verify command runs long",
      (flag: string) => {
        const waits = `while [ ! -e ${JSON.stringify(flag)} ]; do sleep 0.05; done`;
        const added = arrange(ws.dir, [
          "task",
          "criterion",
          "T-1",
          "--text",
          "slow",
          "--verify=sh",
          "--verify=-c",
          `--verify=${waits}`,
        ]);
        expect(added.code, added.stderr).toBe(0);
        return ["task", "check", "T-1", "--all", "--json"];
      },
    ],
  ])("keeps a holder's lease while a long call of its runs: %s", async (_, longCall) => {
    writeFileSync(join(ws.dir, ".cairn", "cairn.toml"), "[claims]\nlease_minutes = 0.05\n");
    const bob = addAgent(ws.dir, "bob", "builder");
    given(["task", "add", "bob's"]);
    given(["task", "claim", "T-1"], as(bob.token));
    const flag = join(ws.dir, "go");
    // Well inside the test's own timeout, so that a hang says what it waits on. One was seen in CI
    // on PostgreSQL: a renewal still running when the call returned reconnected after the CLI had
    // closed its store, and that connection held the process open (test/unit/lease-renewal.test.ts).
    const running = cairnAsync(ws.dir, longCall(flag), { ...as(bob.token), overstayMs: 40_000 });
    try {
      await new Promise((resolve) => setTimeout(resolve, 3_500));
      const status = cairn(ws.dir, ["status", "--json"]).json as { board: { stale_claims: unknown[] } };
      expect(status.board.stale_claims).toEqual([]);
      expect((cairn(ws.dir, ["sweep", "--json"]).json as { released: unknown[] }).released).toEqual([]);
    } finally {
      writeFileSync(flag, "");
    }
    const ran = await running;
    expect(ran.code, ran.stderr).toBe(0);
    expect(taskOf("T-1")).toMatchObject({ status: "active", owner: bob.id });
  });

  it("sweeps claims of silent agents, records why, and status shows it; a call renews the lease", async () => {
    writeFileSync(join(ws.dir, ".cairn", "cairn.toml"), "[claims]\nlease_minutes = 0.05\n");
    const bob = addAgent(ws.dir, "bob", "builder");
    const ann = addAgent(ws.dir, "ann", "builder");
    given(["task", "add", "bob's"]);
    given(["task", "add", "ann's"]);
    given(["task", "claim", "T-1"], as(bob.token));
    given(["task", "claim", "T-2"], as(ann.token));
    await new Promise((resolve) => setTimeout(resolve, 3_200));
    // Ann keeps working (any call renews her claims); Bob stays silent.
    expect(cairn(ws.dir, ["whoami"], as(ann.token)).code).toBe(0);
    const before = cairn(ws.dir, ["status", "--json"]).json as { board: { stale_claims: { id: string }[] } };
    expect(before.board.stale_claims.map((c) => c.id)).toEqual(["T-1"]);
    const swept = cairn(ws.dir, ["sweep", "--json"]).json as { released: { task: string; why: string }[] };
    expect(swept.released.map((r) => r.task)).toEqual(["T-1"]);
    expect(swept.released[0]?.why).toMatch(/bob.*made no call since/);
    expect(taskOf("T-1")).toMatchObject({ status: "open", owner: null });
    expect(taskOf("T-2")).toMatchObject({ status: "active", owner: ann.id });
    const after = cairn(ws.dir, ["status", "--json"]).json as {
      board: { swept: { task: string; why: string }[] };
    };
    expect(after.board.swept[0]).toMatchObject({ task: "T-1", why: expect.stringMatching(/lease/) });
  });

  it("a claim stamped by a clock far ahead is no sign of life: the next sweep releases it, and a call on a true clock renews it", () => {
    // The agent's own cairn, its clock a year ahead (another machine's, or a process given a false one).
    const ahead = join(ws.dir, "clock-ahead.cjs");
    writeFileSync(
      ahead,
      `const Real = Date; const skew = 365 * 86400000;
       globalThis.Date = class extends Real {
         constructor(...a) { if (a.length === 0) super(Real.now() + skew); else super(...a); }
         static now() { return Real.now() + skew; }
       };`,
    );
    const bob = addAgent(ws.dir, "bob", "builder");
    const ann = addAgent(ws.dir, "ann", "builder");
    given(["task", "add", "bob's"]);
    given(["task", "add", "ann's"]);
    const skewed = (token: string) => ({ env: { CAIRN_AGENT: token, NODE_OPTIONS: `--require ${ahead}` } });
    expect(cairn(ws.dir, ["task", "claim", "T-1"], skewed(bob.token)).code).toBe(0);
    expect(cairn(ws.dir, ["task", "claim", "T-2"], skewed(ann.token)).code).toBe(0);
    // Ann's clock is put right and she keeps working; bob's claim keeps its year-ahead stamp.
    expect(cairn(ws.dir, ["whoami"], as(ann.token)).code).toBe(0);
    const status = cairn(ws.dir, ["status", "--json"]).json as { board: { stale_claims: { id: string }[] } };
    if (STORE_UNDER_TEST === "postgres") {
      // A shared store stamps leases by the server's clock: no process's own clock stamps one ahead.
      expect(status.board.stale_claims).toEqual([]);
      expect((cairn(ws.dir, ["sweep", "--json"]).json as { released: unknown[] }).released).toEqual([]);
      expect(taskOf("T-1")).toMatchObject({ status: "active", owner: bob.id });
      return;
    }
    expect(status.board.stale_claims.map((c) => c.id)).toEqual(["T-1"]);
    const swept = cairn(ws.dir, ["sweep", "--json"]).json as { released: { task: string; why: string }[] };
    expect(swept.released.map((r) => r.task)).toEqual(["T-1"]);
    expect(swept.released[0]?.why).toMatch(/bob.*ahead of the lease clock/);
    expect(taskOf("T-1")).toMatchObject({ status: "open", owner: null });
    expect(taskOf("T-2")).toMatchObject({ status: "active", owner: ann.id });
  });
});
