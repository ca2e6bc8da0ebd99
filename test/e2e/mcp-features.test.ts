import { join } from "node:path";
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
import { skillMd, writeTree } from "../helpers/skills.js";
import { cairn, initWorkspace } from "../helpers/workspace.js";

/** Completions and logging, through the built `cairn mcp` and the SDK's own client. */
type CompletionRef = { type: "ref/prompt"; name: string } | { type: "ref/resource"; uri: string };

/** What a server completes for one argument of a prompt or resource template. */
const completion = async (mcp: McpHandle, ref: CompletionRef, name: string, value: string) =>
  (await mcp.client.complete({ ref, argument: { name, value } })).completion;

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
    writeTree(join(ws.dir, ".claude", "skills"), {
      "release-notes/SKILL.md": skillMd(
        { name: "release-notes", description: "Write release notes" },
        "body\n",
      ),
      "release-notes/references/guide.md": "how\n",
      "release-notes/scripts/run.sh": "echo hi\n",
      "release-secret/SKILL.md": skillMd(
        { name: "release-secret", description: "For people", "disable-model-invocation": "true" },
        "body\n",
      ),
    });
    mcp = await connectMcp(ws.dir, { args: ["--profile", "planner"] });
  });
  afterAll(async () => {
    await mcp.close();
    ws.cleanup();
  });

  const complete = (ref: CompletionRef, name: string, value: string) => completion(mcp, ref, name, value);

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
    // A goal id is read as a bare number (cairn://goal/1, goal_show 1), so typing one offers it.
    const number = goal.replace(/^G-/, "");
    for (const typed of [number, ` ${number}`, goal.toLowerCase()])
      expect(
        (await complete({ type: "ref/resource", uri: "cairn://goal/{id}" }, "id", typed)).values,
        typed,
      ).toEqual([goal]);
    for (const typed of ["-1", "GG", `${goal}x`])
      expect(
        (await complete({ type: "ref/resource", uri: "cairn://goal/{id}" }, "id", typed)).values,
        typed,
      ).toEqual([]);
    const read = await mcp.client.readResource({ uri: `cairn://goal/${goal}` });
    expect(JSON.parse((read.contents[0] as { text: string }).text).goal.id).toBe(goal);
  });

  it("completes the Skills extension's template: skill names a model may use, then the named skill's files", async () => {
    const template = { type: "ref/resource" as const, uri: "skill://{name}/{+path}" };
    expect((await complete(template, "name", "release")).values).toEqual(["release-notes"]);
    const files = async (name: string | undefined, value: string) =>
      (
        await mcp.client.complete({
          ref: template,
          argument: { name: "path", value },
          ...(name ? { context: { arguments: { name } } } : {}),
        })
      ).completion.values;
    expect(await files("release-notes", "")).toEqual(["SKILL.md", "references/guide.md", "scripts/run.sh"]);
    expect(await files("release-notes", "ref")).toEqual(["references/guide.md"]);
    // In any case: a completion is the exact name to use.
    expect((await complete(template, "name", "Release")).values).toEqual(["release-notes"]);
    expect(await files("release-notes", "REF")).toEqual(["references/guide.md"]);
    // Without the skill named, for one a model may not load, or for none: nothing, and no error.
    for (const name of [undefined, "release-secret", "no-such-skill", "../etc"])
      expect(await files(name, "")).toEqual([]);
  });

  it("offers nothing, without an error, for what it cannot complete", async () => {
    expect((await complete({ type: "ref/prompt", name: "no-such-prompt" }, "x", "a")).values).toEqual([]);
    expect((await complete({ type: "ref/prompt", name: "claim-next" }, "x", "a")).values).toEqual([]);
    expect((await complete({ type: "ref/resource", uri: "cairn://board" }, "id", "a")).values).toEqual([]);
    // Argument names that are properties of every object name no completer either.
    for (const name of ["constructor", "__proto__", "toString", "hasOwnProperty"]) {
      expect((await complete({ type: "ref/prompt", name: "brief" }, name, "T")).values, name).toEqual([]);
      expect(
        (await complete({ type: "ref/resource", uri: "cairn://goal/{id}" }, name, "G")).values,
        name,
      ).toEqual([]);
    }
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

  it("shows the control characters of a command's output in log lines and progress by their codes", async () => {
    const lines: unknown[] = [];
    const progress: unknown[] = [];
    mcp.client.setNotificationHandler("notifications/message", (note) => {
      lines.push(note.params.data);
    });
    await mcp.client.setLoggingLevel("info");
    // A verify command another agent wrote: its output lines become progress a person reads.
    const script = "printf 'one\\n'; sleep 0.6; printf '\\033[2J\\033]52;c;aGk=\\007wiped\\n'; sleep 0.6";
    const added = cairnJson(ws.dir, [
      "task",
      "add",
      "escapes",
      "--criteria",
      JSON.stringify({ text: "prints escapes", verify: ["sh", "-c", script] }),
    ]) as { task: { id: string } };
    cairnJson(ws.dir, ["task", "claim", added.task.id]);
    const result = await mcp.client.callTool(
      { name: "check_task", arguments: { schema_version: 1, task: added.task.id, all: true } },
      { onprogress: (update) => progress.push(update.message) },
    );
    expect(result.isError).toBeFalsy();
    const shown = JSON.stringify([...lines, ...progress]);
    expect(shown).toContain("wiped");
    expect(shown).toContain("\\\\x1b[2J");
    expect(shown).not.toMatch(/\\u001b|\\u0007/);
  });
});

/**
 * Completion on a board past one page of completion values (100): every live task is a
 * candidate, not just the first page of them, and `total`/`hasMore` say how many matched.
 */
describe("MCP completions past a page of values", () => {
  let ws: { dir: string; cleanup: () => void };
  let mcp: McpHandle;

  beforeAll(async () => {
    ws = initWorkspace();
    mcp = await connectMcp(ws.dir, { args: ["--profile", "planner"] });
    for (let i = 1; i <= 133; i++) await callTool(mcp, "add_task", { title: `task ${i}` });
    for (let i = 1; i <= 101; i++) await callTool(mcp, "create_goal", { goal: `goal ${i}` });
    expect(cairn(ws.dir, ["task", "drop", "T-132"]).code).toBe(0);
  });
  afterAll(async () => {
    await mcp.close();
    ws.cleanup();
  });

  const complete = (ref: CompletionRef, name: string, value: string) => completion(mcp, ref, name, value);
  const brief = { type: "ref/prompt", name: "brief" } as const;
  const task = { type: "ref/resource", uri: "cairn://task/{id}" } as const;

  it("finds a live task past the first hundred, by the prompt argument and the resource variable", async () => {
    for (const [ref, name] of [
      [brief, "task"],
      [task, "id"],
    ] as const) {
      expect(await complete(ref, name, "T-131")).toEqual({ values: ["T-131"], total: 1, hasMore: false });
      // Lowest number first; the dropped T-132 is not live.
      expect(await complete(ref, name, "t-13")).toEqual({
        values: ["T-13", "T-130", "T-131", "T-133"],
        total: 4,
        hasMore: false,
      });
      expect((await complete(ref, name, "13")).values).toEqual(["T-13", "T-130", "T-131", "T-133"]);
    }
  });

  it("sends at most a hundred values, with the true total and hasMore", async () => {
    const all = await complete(brief, "task", "");
    expect(all.values).toHaveLength(100);
    expect(all.values.slice(0, 3)).toEqual(["T-1", "T-2", "T-3"]);
    expect(all).toMatchObject({ total: 132, hasMore: true });
    expect(await complete(brief, "task", "T-1")).toMatchObject({ total: 44, hasMore: false });
    expect(await complete(brief, "task", "T-1x")).toEqual({ values: [], total: 0, hasMore: false });
  });

  it("completes goal ids the same way", async () => {
    const goal = { type: "ref/resource", uri: "cairn://goal/{id}" } as const;
    expect(await complete(goal, "id", "g-10")).toEqual({
      values: ["G-10", "G-100", "G-101"],
      total: 3,
      hasMore: false,
    });
    const all = await complete(goal, "id", "");
    expect(all.values).toHaveLength(100);
    expect(all).toMatchObject({ total: 101, hasMore: true });
  });
});
