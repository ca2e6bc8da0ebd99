import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { callTool, connectMcp } from "../helpers/mcp.js";
import { rawExec } from "../helpers/raw-store.js";
import { addAgent, arrange, cairn, initWorkspace } from "../helpers/workspace.js";

let ws: { dir: string; cleanup: () => void };
beforeEach(() => {
  ws = initWorkspace();
});
afterEach(() => ws.cleanup());

const BOARD_TOOLS = [
  "list_tasks",
  "next_task",
  "add_task",
  "claim_task",
  "check_task",
  "finish_task",
  "block_task",
  "ask",
  "answer",
  "run_shortcut",
  "queue_next",
  "queue_advance",
];

describe("the board's MCP tools", () => {
  it("serves the twelve board tools to a worker, with truthful annotations and a small catalog", async () => {
    const mcp = await connectMcp(ws.dir);
    try {
      const listed = await mcp.client.listTools();
      const names = listed.tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(BOARD_TOOLS));
      const byName = new Map(listed.tools.map((t) => [t.name, t]));
      expect(byName.get("next_task")?.annotations).toMatchObject({ readOnlyHint: true });
      expect(byName.get("claim_task")?.annotations).toMatchObject({
        readOnlyHint: false,
        destructiveHint: false,
      });
      // It runs shortcuts declared destructive (the guard asks those for confirm): it may destroy.
      expect(byName.get("run_shortcut")?.annotations).toMatchObject({
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: false,
      });
      const boardOnly = listed.tools.filter((t) => BOARD_TOOLS.includes(t.name));
      // A regression guard on the board's share of the catalog (chars / 4), measured at 4,424 tokens:
      // about 190 tokens of every tool are the shared envelope (refusal branch, $schema, schema_version).
      expect(JSON.stringify({ tools: boardOnly }).length / 4).toBeLessThan(4_500);
    } finally {
      await mcp.close();
    }
  });

  it("two agents race for one task: one wins, the other is refused (a normal result) and takes the next", async () => {
    arrange(ws.dir, ["task", "add", "contested", "--priority", "must"]);
    arrange(ws.dir, ["task", "add", "next best"]);
    const ann = addAgent(ws.dir, "ann", "builder");
    const bob = addAgent(ws.dir, "bob", "builder");
    const a = await connectMcp(ws.dir, { env: { CAIRN_AGENT: ann.token } });
    const b = await connectMcp(ws.dir, { env: { CAIRN_AGENT: bob.token } });
    try {
      const [ra, rb] = await Promise.all([
        callTool(a, "claim_task", { task: "T-1" }),
        callTool(b, "claim_task", { task: "T-1" }),
      ]);
      const results = [ra, rb];
      const won = results.filter((r) => !("refused" in (r.structuredContent as object)));
      const lost = results.filter((r) => "refused" in (r.structuredContent as object));
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(1);
      expect(lost[0]?.isError).toBeFalsy();
      const refusal = (lost[0]?.structuredContent as { refused: { next: string } } | undefined)?.refused;
      expect(refusal?.next).toContain("T-2");
      const loser = lost[0] === ra ? a : b;
      const next = await callTool(loser, "next_task", {});
      expect((next.structuredContent as { tasks: { id: string }[] }).tasks.map((t) => t.id)).toEqual(["T-2"]);
      const claimed = await callTool(loser, "claim_task", { task: "T-2" });
      expect(claimed.structuredContent).toMatchObject({
        task: { id: "T-2", status: "active" },
        already: false,
      });
    } finally {
      await a.close();
      await b.close();
    }
  });

  it("check, finish, ask, answer and queues work through the tools", async () => {
    const mcp = await connectMcp(ws.dir);
    try {
      const added = await callTool(mcp, "add_task", {
        title: "tool path",
        criteria: ["manual", { text: "node runs", verify: ["node", "-e", "process.exit(0)"] }],
      });
      expect(added.structuredContent).toMatchObject({ task: { id: "T-1" } });
      await callTool(mcp, "claim_task", { task: "T-1" });
      const early = await callTool(mcp, "finish_task", { task: "T-1" });
      expect(early.structuredContent).toMatchObject({ refused: { policy: "done" } });
      const checked = await callTool(mcp, "check_task", { task: "T-1", all: true });
      expect(checked.structuredContent).toMatchObject({ unchecked: [] });
      const asked = await callTool(mcp, "ask", { task: "T-1", question: "ok?" });
      expect(asked.structuredContent).toMatchObject({ status: "blocked" });
      await callTool(mcp, "answer", { ask: "Q-1", answer: "yes" });
      const done = await callTool(mcp, "finish_task", { task: "T-1" });
      expect(done.structuredContent).toMatchObject({ result: "done" });
      cairn(ws.dir, ["queue", "add", "q", "--step", "one", "--step", "two"]);
      await callTool(mcp, "queue_advance", { name: "q", key: "x" });
      const replay = await callTool(mcp, "queue_advance", { name: "q", key: "x" });
      expect(replay.structuredContent).toMatchObject({ step: "two", replayed: true });
      const listed = await callTool(mcp, "list_tasks", { status: ["done"] });
      expect(listed.structuredContent).toMatchObject({ total: 1 });
    } finally {
      await mcp.close();
    }
  });

  it("a server's change feed renews no lease: an agent silent while others write is still swept", async () => {
    arrange(ws.dir, ["task", "add", "held by a silent agent"]);
    const bob = addAgent(ws.dir, "bob", "builder");
    const mcp = await connectMcp(ws.dir, { env: { CAIRN_AGENT: bob.token } });
    try {
      expect((await callTool(mcp, "claim_task", { task: "T-1" })).isError).toBeFalsy();
      const heard = new Promise<void>((resolve) =>
        mcp.client.setNotificationHandler("notifications/resources/updated", () => resolve()),
      );
      await mcp.client.subscribeResource({ uri: "cairn://board" });
      // Bob's last call was long ago; then the owner works, and bob's server looks at the board.
      await rawExec(ws.dir, "UPDATE tasks SET lease_at = '2000-01-01T00:00:00.000Z' WHERE id = 'T-1'");
      expect(cairn(ws.dir, ["task", "add", "the owner works on"]).code).toBe(0);
      await heard;
      const swept = cairn(ws.dir, ["sweep", "--json"]).json as { released: { task: string }[] };
      expect(swept.released.map((r) => r.task)).toEqual(["T-1"]);
    } finally {
      await mcp.close();
    }
  });

  it("nor does its host's own look: re-listing and re-reading what others changed, a prompt or a completion", async () => {
    arrange(ws.dir, ["task", "add", "held by a silent agent"]);
    const bob = addAgent(ws.dir, "bob", "builder");
    const mcp = await connectMcp(ws.dir, { env: { CAIRN_AGENT: bob.token } });
    try {
      expect((await callTool(mcp, "claim_task", { task: "T-1" })).isError).toBeFalsy();
      await mcp.client.subscribeResource({ uri: "cairn://board" });
      const heard = new Promise<void>((resolve) =>
        mcp.client.setNotificationHandler("notifications/resources/list_changed", () => resolve()),
      );
      // Bob's model has gone quiet; the owner adds a task, and bob's host does what hosts do when
      // told the list changed: it lists the resources again and reads what it shows.
      await rawExec(ws.dir, "UPDATE tasks SET lease_at = '2000-01-01T00:00:00.000Z' WHERE id = 'T-1'");
      expect(cairn(ws.dir, ["task", "add", "the owner works on"]).code).toBe(0);
      await heard;
      await mcp.client.listResources();
      await mcp.client.readResource({ uri: "cairn://board" });
      await mcp.client.readResource({ uri: "cairn://task/T-1/brief" });
      await mcp.client.getPrompt({ name: "claim-next" });
      await mcp.client.complete({
        ref: { type: "ref/prompt", name: "brief" },
        argument: { name: "task", value: "T" },
      });
      const swept = cairn(ws.dir, ["sweep", "--json"]).json as { released: { task: string }[] };
      expect(swept.released.map((r) => r.task)).toEqual(["T-1"]);
      // A tool call is bob's own: it still renews what bob holds.
      expect((await callTool(mcp, "claim_task", { task: "T-1" })).isError).toBeFalsy();
      await rawExec(ws.dir, "UPDATE tasks SET lease_at = '2000-01-01T00:00:00.000Z' WHERE id = 'T-1'");
      expect((await callTool(mcp, "whoami")).isError).toBeFalsy();
      const kept = cairn(ws.dir, ["sweep", "--json"]).json as { released: { task: string }[] };
      expect(kept.released).toEqual([]);
    } finally {
      await mcp.close();
    }
  });

  it("a role made read-only in cairn.toml binds an agent's running server at its next call", async () => {
    writeFileSync(join(ws.dir, ".cairn", "cairn.toml"), '[roles.builder]\nsummary = "builds"\n');
    const bob = addAgent(ws.dir, "bob", "builder");
    const mcp = await connectMcp(ws.dir, { env: { CAIRN_AGENT: bob.token } });
    try {
      expect((await callTool(mcp, "add_task", { title: "before" })).structuredContent).toMatchObject({
        task: { id: "T-1" },
      });
      writeFileSync(join(ws.dir, ".cairn", "cairn.toml"), '[roles.builder]\ngrant = "ro"\n');
      const after = await callTool(mcp, "add_task", { title: "after" });
      expect(after.structuredContent).toMatchObject({ refused: { policy: "grant" } });
      expect(cairn(ws.dir, ["task", "list", "--json"]).json).toMatchObject({ total: 1 });
    } finally {
      await mcp.close();
    }
  });

  it("reports a verify command's progress while it runs (start, output, a heartbeat), result unchanged", async () => {
    const mcp = await connectMcp(ws.dir);
    try {
      // One line, then 6.5 s of silence, then success.
      const script = 'console.log("compiling"); setTimeout(() => {}, 6500)';
      await callTool(mcp, "add_task", {
        title: "slow proof",
        criteria: [{ text: "it builds", verify: ["node", "-e", script] }],
      });
      await callTool(mcp, "claim_task", { task: "T-1" });
      const logged: string[] = [];
      mcp.client.setNotificationHandler("notifications/message", (note) => {
        logged.push(String(note.params.data));
      });
      await mcp.client.setLoggingLevel("debug");
      const started = Date.now();
      const updates: { progress: number; message?: string; at: number }[] = [];
      const checked = await mcp.client.callTool(
        { name: "check_task", arguments: { schema_version: 1, task: "T-1", all: true } },
        { onprogress: (update) => updates.push({ ...update, at: Date.now() - started }) },
      );
      expect(checked.structuredContent).toEqual({
        task: "T-1",
        results: [{ n: 1, text: "it builds", checked: true, why: null, exit_code: 0, output_tail: null }],
        unchecked: [],
      });
      const start = `criterion 1: running node -e ${JSON.stringify(script)}`;
      expect(updates[0]).toMatchObject({ progress: 0, message: start });
      expect(updates.map((update) => update.message)).toContain("criterion 1: compiling");
      // While the command prints nothing, a heartbeat still arrives (at most 5 s after the last).
      expect(
        updates.some((update) => update.at >= 5_000 && update.message === "criterion 1: compiling"),
      ).toBe(true);
      const values = updates.map((update) => update.progress);
      expect(values).toEqual([...values].sort((a, b) => a - b));
      expect(new Set(values).size).toBe(values.length);
      // The same lines go to the log, for a client that follows logging rather than a token.
      expect(logged.some((line) => line.startsWith(start))).toBe(true);
      expect(logged.some((line) => line.startsWith("criterion 1: compiling"))).toBe(true);
    } finally {
      await mcp.close();
    }
  });

  it("reports the definition of done's shortcut as it runs under finish_task", async () => {
    writeFileSync(
      join(ws.dir, ".cairn", "cairn.toml"),
      '[done]\nshortcuts = ["slow"]\n[shortcuts.slow]\nargv = ["node", "-e", "setTimeout(() => {}, 1500)"]\neffect = "read"\n',
    );
    const mcp = await connectMcp(ws.dir);
    try {
      await callTool(mcp, "add_task", { title: "done by the book", criteria: ["said"] });
      await callTool(mcp, "claim_task", { task: "T-1" });
      await callTool(mcp, "check_task", { task: "T-1", all: true });
      const updates: { progress: number; message?: string }[] = [];
      const finished = await mcp.client.callTool(
        { name: "finish_task", arguments: { schema_version: 1, task: "T-1" } },
        { onprogress: (update) => updates.push(update) },
      );
      expect(finished.structuredContent).toMatchObject({ task: "T-1", result: "done" });
      expect(updates[0]).toMatchObject({
        progress: 0,
        message: 'definition of done: shortcut slow: running node -e "setTimeout(() => {}, 1500)"',
      });
    } finally {
      await mcp.close();
    }
  });

  it("reports a shortcut's progress under run_shortcut: what runs, then its output", async () => {
    writeFileSync(
      join(ws.dir, ".cairn", "cairn.toml"),
      '[shortcuts.build]\nargv = ["node", "-e", "console.log(\'linking\'); setTimeout(() => {}, 1500)"]\neffect = "read"\n',
    );
    const mcp = await connectMcp(ws.dir);
    try {
      const updates: { progress: number; message?: string }[] = [];
      const run = await mcp.client.callTool(
        { name: "run_shortcut", arguments: { schema_version: 1, name: "build" } },
        { onprogress: (update) => updates.push(update) },
      );
      expect(run.structuredContent).toMatchObject({ name: "build", exit_code: 0, output_tail: "linking\n" });
      expect(updates[0]).toMatchObject({
        progress: 0,
        message: expect.stringMatching(/^build: running node -e /),
      });
      expect(updates.map((update) => update.message)).toContain("build: linking");
    } finally {
      await mcp.close();
    }
  });

  it("runs at most eight shortcuts of one server at once: sixteen sent together all finish, in turns", async () => {
    // Each run marks itself live, writes how many are live, and leaves a moment later.
    const live = join(ws.dir, "live");
    const script = `mkdir -p ${live}; touch ${live}/$$; ls ${live} | wc -l >> ${ws.dir}/seen; sleep 1; rm ${live}/$$`;
    const added = [
      "shortcut",
      "add",
      "crowd",
      "--argv",
      "sh",
      "--argv",
      "-c",
      "--argv",
      script,
      "--effect",
      "read",
    ];
    expect(cairn(ws.dir, added).code).toBe(0);
    const mcp = await connectMcp(ws.dir);
    try {
      const runs = await Promise.all(
        Array.from({ length: 16 }, () => callTool(mcp, "run_shortcut", { name: "crowd" })),
      );
      for (const run of runs) expect(run.structuredContent).toMatchObject({ exit_code: 0 });
      const seen = readFileSync(join(ws.dir, "seen"), "utf8").trim().split("\n").map(Number);
      expect(seen).toHaveLength(16);
      expect(Math.max(...seen)).toBeLessThanOrEqual(8);
    } finally {
      await mcp.close();
    }
  });
});
