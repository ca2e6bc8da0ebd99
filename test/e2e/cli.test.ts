import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { callTool, connectMcp } from "../helpers/mcp.js";
import { addAgent, arrange, cairn, cairnAsync, initWorkspace } from "../helpers/workspace.js";

let ws: { dir: string; cleanup: () => void };
beforeEach(() => {
  ws = initWorkspace();
});
afterEach(() => ws.cleanup());

describe("the CLI face: exit codes and --json", () => {
  it("prints the output object under --json and readable text without it", () => {
    const json = cairn(ws.dir, ["whoami", "--json"]);
    expect(json.code).toBe(0);
    expect(json.json).toMatchObject({ id: "owner", grant: "rw", is_owner: true });
    const text = cairn(ws.dir, ["whoami"]);
    expect(text.stdout).toMatch(/^owner \(owner\) role=owner grant=rw/);
  });

  it("exits 2 on an unknown flag, an unknown command and a missing required option", () => {
    for (const args of [["status", "--bogus"], ["frobnicate"], ["agent", "add", "x"]]) {
      const run = cairn(ws.dir, args);
      expect(run.code, args.join(" ")).toBe(2);
      expect(run.stdout, args.join(" ")).toBe("");
    }
  });

  it("exits 2 on a group without its command and on help of an unknown word; help asked for exits 0", () => {
    for (const args of [["queue"], ["task"], ["agent"], ["shortcut"], ["help", "bogus"]]) {
      const run = cairn(ws.dir, args);
      expect(run.code, args.join(" ")).toBe(2);
      expect(run.stdout, args.join(" ")).toBe("");
      expect(run.stderr, args.join(" ")).toMatch(/^Usage: cairn/);
    }
    for (const args of [["queue", "--help"], ["help", "queue"], ["help"]]) {
      const run = cairn(ws.dir, args);
      expect(run.code, args.join(" ")).toBe(0);
      expect(run.stdout, args.join(" ")).toMatch(/^Usage: cairn/);
    }
    const unknown = cairn(ws.dir, ["help", "bogus", "--json"]);
    expect(unknown.code).toBe(2);
    expect((unknown.json as { error: unknown }).error).toEqual({
      kind: "usage",
      message: 'cairn has no command "bogus"',
      next: "see `cairn --help`",
    });
  });

  it("prints a parser's complaint as the JSON error object under --json, still exiting 2", () => {
    const cases = [
      { args: ["task", "show", "--json"], message: "missing required argument 'task'", help: "task show" },
      { args: ["task", "add", "--json"], message: "missing required argument 'title'", help: "task add" },
      { args: ["status", "--bogus", "--json"], message: "unknown option '--bogus'", help: "status" },
      {
        args: ["agent", "add", "x", "--json"],
        message: "required option '--role <role>'",
        help: "agent add",
      },
      { args: ["frobnicate", "--json"], message: "unknown command 'frobnicate'", help: "" },
    ];
    for (const { args, message, help } of cases) {
      const run = cairn(ws.dir, args);
      expect(run.code, args.join(" ")).toBe(2);
      const { error } = run.json as { error: { kind: string; message: string; next: string } };
      expect(error.kind, args.join(" ")).toBe("usage");
      expect(error.message, args.join(" ")).toContain(message);
      expect(error.next, args.join(" ")).toBe(`see \`cairn ${help ? `${help} ` : ""}--help\``);
      // A person still reads the parser's own words on stderr.
      expect(run.stderr, args.join(" ")).toContain(`error: ${error.message}`);
    }
    // A group with options alone misses its command, not an option (the cli tool's ["note"]).
    const group = cairn(ws.dir, ["note", "--json"]);
    expect(group.code).toBe(2);
    expect((group.json as { error: unknown }).error).toEqual({
      kind: "usage",
      message: "`cairn note` needs a command: add, list, show, trust, supersede",
      next: "see `cairn note --help`",
    });
    // Options alone, to cairn itself (the cli tool's ["--"] and []): what is missing is a command.
    for (const args of [["--json"], ["--json", "--"]]) {
      const none = cairn(ws.dir, args);
      expect(none.code, args.join(" ")).toBe(2);
      expect((none.json as { error: unknown }).error).toEqual({
        kind: "usage",
        message: "name a command: `cairn --help` lists them",
        next: "see `cairn --help`",
      });
    }
    // After `--`, "--json" is a value, not the option: no JSON is asked for.
    const literal = cairn(ws.dir, ["task", "show", "T-1", "--", "--json", "extra"]);
    expect(literal.code).toBe(2);
    expect(literal.stdout).toBe("");
  });

  it("exits 2 on a value its schema rejects, naming the field", () => {
    const run = cairn(ws.dir, ["agent", "add", "bad name!", "--role", "builder"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("bad name!");
  });

  it("exits 2 on a one-value flag given twice, where the last one used to win; a list flag gathers its repeats", async () => {
    for (const args of [
      ["task", "add", "twice", "--priority", "must", "--priority", "could"],
      ["task", "add", "twice", "--context", "a", "--context=b"],
      ["task", "list", "--limit", "2", "--limit", "3"],
    ]) {
      const run = cairn(ws.dir, args);
      expect(run.code, args.join(" ")).toBe(2);
      expect(run.stderr).toMatch(/--\w+ was given more than once/);
    }
    // Through the `cli` tool too: a usage error, and nothing added.
    const mcp = await connectMcp(ws.dir);
    try {
      const result = await callTool(mcp, "cli", {
        argv: ["task", "add", "t", "--priority", "must", "--priority", "wont"],
      });
      expect(result.isError).toBe(true);
    } finally {
      await mcp.close();
    }
    expect((cairn(ws.dir, ["task", "list", "--json"]).json as { tasks: unknown[] }).tasks).toEqual([]);
    const labelled = cairn(ws.dir, [
      "task",
      "add",
      "gathered",
      "--labels",
      "a",
      "--labels",
      "b",
      "--priority",
      "must",
      "--json",
    ]);
    expect(labelled.code, labelled.stderr).toBe(0);
    const shown = cairn(ws.dir, ["task", "show", "T-1", "--json"]).json as {
      task: { labels: string[]; priority: string };
    };
    expect(shown.task).toMatchObject({ labels: ["a", "b"], priority: "must" });
  });

  it("exits 3 on a refusal, with the reason and next on stderr and the envelope under --json", () => {
    const bob = addAgent(ws.dir, "bob", "reviewer", ["--grant", "ro"]);
    const run = cairn(ws.dir, ["agent", "add", "carol", "--role", "builder", "--json"], {
      env: { CAIRN_AGENT: bob.token },
    });
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/refused \(grant\)/);
    expect(run.stderr).toContain("next:");
    expect(run.json).toMatchObject({ refused: { policy: "grant" } });
  });

  it("exits 4 for something that does not exist, 5 for a conflict", () => {
    expect(cairn(ws.dir, ["agent", "retire", "nobody"]).code).toBe(4);
    addAgent(ws.dir, "twin", "builder");
    const again = cairn(ws.dir, ["agent", "add", "twin", "--role", "builder", "--json"]);
    expect(again.code).toBe(5);
    expect(again.json).toMatchObject({ error: { kind: "conflict" } });
  });
});

describe("identity is bound at launch", () => {
  it("refuses to run with an empty, unknown or retired token (exit 3) instead of falling back", () => {
    const empty = cairn(ws.dir, ["whoami"], { env: { CAIRN_AGENT: "" } });
    expect(empty.code).toBe(3);
    expect(empty.stderr).toContain("set but empty");
    expect(cairn(ws.dir, ["whoami"], { env: { CAIRN_AGENT: "cairn_not-a-real-token" } }).code).toBe(3);
    const gone = addAgent(ws.dir, "gone", "builder");
    expect(cairn(ws.dir, ["agent", "retire", "gone"]).code).toBe(0);
    const retired = cairn(ws.dir, ["whoami"], { env: { CAIRN_AGENT: gone.token } });
    expect(retired.code).toBe(3);
    expect(retired.stderr).toContain("retired");
  });

  it("lets only the owner export: an export holds hidden evaluators", () => {
    const agent = addAgent(ws.dir, "curious", "builder");
    const refused = cairn(ws.dir, ["export"], { env: { CAIRN_AGENT: agent.token } });
    expect(refused.code).toBe(3);
    expect(refused.stdout).toBe("");
    expect(refused.stderr).toContain("hidden evaluators");
  });

  it("never stores or prints a token after creation", () => {
    const agent = addAgent(ws.dir, "secret", "builder");
    const exported = cairn(ws.dir, ["export"]).stdout;
    expect(exported).not.toContain(agent.token);
    expect(cairn(ws.dir, ["agent", "list", "--json"]).stdout).not.toContain(agent.token);
  });

  it("keeps a child's grant within its parent's, and lets agents add only their own children", () => {
    const lead = addAgent(ws.dir, "lead", "reviewer", ["--grant", "ro"]);
    const widened = cairn(ws.dir, [
      "agent",
      "add",
      "kid",
      "--role",
      "reviewer",
      "--parent",
      lead.id,
      "--grant",
      "rw",
    ]);
    expect(widened.code).toBe(3);
    expect(widened.stderr).toContain("cannot exceed");
    expect(
      cairn(ws.dir, ["agent", "add", "kid", "--role", "reviewer", "--parent", lead.id, "--json"]).json,
    ).toMatchObject({
      agent: { grant: "ro", parent: lead.id },
    });
    const writer = addAgent(ws.dir, "writer", "builder");
    const other = cairn(ws.dir, ["agent", "add", "stranger", "--role", "builder"], {
      env: { CAIRN_AGENT: writer.token },
    });
    expect(other.code).toBe(3);
    const own = cairn(
      ws.dir,
      ["agent", "add", "mine", "--role", "builder", "--parent", writer.id, "--json"],
      {
        env: { CAIRN_AGENT: writer.token },
      },
    );
    expect(own.code).toBe(0);
  });
});

describe("a refusal's next step is a command that runs", () => {
  it("names `cairn ask` as typed on the CLI, and the ask tool over MCP, for another agent's task", async () => {
    const holder = addAgent(ws.dir, "holder", "builder");
    const other = addAgent(ws.dir, "other", "builder");
    const asOther = { env: { CAIRN_AGENT: other.token } };
    arrange(ws.dir, ["task", "add", "held"]);
    expect(cairn(ws.dir, ["task", "claim", "T-1"], { env: { CAIRN_AGENT: holder.token } }).code).toBe(0);

    const ask = '`cairn ask T-1 "your question"`';
    for (const args of [
      ["task", "release", "T-1"],
      ["task", "block", "T-1", "--reason", "stuck"],
    ]) {
      const refused = cairn(ws.dir, [...args, "--json"], asOther);
      expect(refused.code, args.join(" ")).toBe(3);
      const next = (refused.json as { refused: { next: string } }).refused.next;
      expect(next, args.join(" ")).toBe(
        `ask its holder, ${holder.id} (holder), with ${ask}, or take another task (\`cairn task ready\`)`,
      );
      expect(cairn(ws.dir, args, asOther).stderr).toContain(
        `next: ask its holder, ${holder.id} (holder), with ${ask},`,
      );
    }
    // The hint runs as written, the placeholder being the question.
    expect(cairn(ws.dir, ["ask", "T-1", "your question"], asOther).code).toBe(0);

    const mcp = await connectMcp(ws.dir, asOther);
    try {
      const result = await callTool(mcp, "block_task", { task: "T-1", reason: "stuck" });
      const { next } = (result.structuredContent as { refused: { next: string } }).refused;
      expect(next).toBe(
        `ask its holder, ${holder.id} (holder), with ask T-1 "your question", or take another task (next_task)`,
      );
    } finally {
      await mcp.close();
    }
  });
});

describe("concurrent writers", () => {
  it("loses no write when many processes add agents at once", async () => {
    const runs = await Promise.all(
      Array.from({ length: 8 }, (_, index) =>
        cairnAsync(ws.dir, ["agent", "add", `parallel-${index}`, "--role", "builder", "--json"]),
      ),
    );
    expect(runs.map((run) => run.code)).toEqual(Array(8).fill(0));
    const ids = runs.map((run) => (run.json as { agent: { id: string } }).agent.id);
    expect(new Set(ids).size).toBe(8);
    const status = cairn(ws.dir, ["status", "--json"]).json as { counts: Record<string, number> };
    expect(status.counts.agents).toBe(8);
    expect(status.counts.events).toBe(9);
  });
});
