import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  cairnJson,
  contractWith,
  evaluatorToml,
  gitWorkspace,
  nodeArgv,
  writePack,
} from "../helpers/goals.js";
import { callTool, connectMcp, type McpHandle } from "../helpers/mcp.js";

/** Completions and logging, through the built `cairn mcp` and the SDK's own client. */
describe("MCP completions and logging", () => {
  let ws: { dir: string; cleanup: () => void };
  let mcp: McpHandle;
  let goal: string;

  beforeAll(async () => {
    ws = gitWorkspace({ "lib.txt": "good\n" });
    for (let i = 1; i <= 12; i++) cairnJson(ws.dir, ["task", "add", `task ${i}`]);
    cairnJson(ws.dir, ["task", "drop", "T-11"]);
    goal = contractWith(ws.dir, [{ name: "check", threshold: 1 }]);
    writePack(
      ws.dir,
      "fixture",
      evaluatorToml({ name: "ok", proof: "check", argv: nodeArgv("0"), repeats: 2 }),
    );
    mcp = await connectMcp(ws.dir, { args: ["--profile", "planner"] });
  });
  afterAll(async () => {
    await mcp.close();
    ws.cleanup();
  });

  const complete = async (
    ref: { type: "ref/prompt"; name: string } | { type: "ref/resource"; uri: string },
    name: string,
    value: string,
  ) => (await mcp.client.complete({ ref, argument: { name, value } })).completion;

  it("declares both capabilities", () => {
    expect(mcp.client.getServerCapabilities()).toMatchObject({ completions: {}, logging: {} });
  });

  it("completes a prompt's task argument with live task ids that start with what was typed", async () => {
    const found = await complete({ type: "ref/prompt", name: "brief" }, "task", "T-1");
    expect(found.values.sort()).toEqual(["T-1", "T-10", "T-12"]);
    expect(found).toMatchObject({ total: 3, hasMore: false });
    expect((await complete({ type: "ref/prompt", name: "brief" }, "task", "1")).values).toContain("T-12");
  });

  it("completes resource-template variables: task ids and goal ids", async () => {
    const tasks = await complete({ type: "ref/resource", uri: "cairn://task/{id}/brief" }, "id", "T-2");
    expect(tasks.values).toEqual(["T-2"]);
    const goals = await complete({ type: "ref/resource", uri: "cairn://goal/{id}" }, "id", "");
    expect(goals.values).toEqual([goal]);
    const read = await mcp.client.readResource({ uri: `cairn://goal/${goal}` });
    expect(JSON.parse((read.contents[0] as { text: string }).text).goal.id).toBe(goal);
  });

  it("offers nothing, without an error, for what it cannot complete", async () => {
    expect((await complete({ type: "ref/prompt", name: "no-such-prompt" }, "x", "a")).values).toEqual([]);
    expect((await complete({ type: "ref/prompt", name: "claim-next" }, "x", "a")).values).toEqual([]);
    expect((await complete({ type: "ref/resource", uri: "cairn://board" }, "id", "a")).values).toEqual([]);
  });

  it("sends a long run's progress as log lines, filtered by logging/setLevel", async () => {
    const lines: { level: string; data: unknown }[] = [];
    mcp.client.setNotificationHandler("notifications/message", (note) => {
      lines.push(note.params as { level: string; data: unknown });
    });
    const structured = async (name: string, args: Record<string, unknown>) =>
      (await callTool(mcp, name, args)).structuredContent as Record<string, { id: string }>;
    const run = (await structured("freeze_run", { goal })).run;
    const evals = async () => {
      const attempt = (await structured("open_attempt", { run: run?.id })).attempt;
      await structured("run_evals", { attempt: attempt?.id });
    };
    await mcp.client.setLoggingLevel("info");
    await evals();
    expect(lines.filter((line) => line.level === "info").map((line) => line.data)).toContain("done (2/2)");
    lines.length = 0;
    await mcp.client.setLoggingLevel("warning");
    await evals();
    expect(lines).toEqual([]);
  });
});
