import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { callTool, connectMcp } from "../helpers/mcp.js";
import { rawExec } from "../helpers/raw-store.js";
import { arrange, cairn, initWorkspace } from "../helpers/workspace.js";

let ws: { dir: string; cleanup: () => void };
beforeEach(() => {
  ws = initWorkspace();
});
afterEach(() => ws.cleanup());

type Json = Record<string, unknown> & { task: { id: string } };
const add = (title: string, extra: string[] = []) => {
  const run = cairn(ws.dir, ["task", "add", title, ...extra, "--json"]);
  expect(run.code, run.stderr).toBe(0);
  return (run.json as Json).task.id;
};

describe("the task board through the CLI", () => {
  it("gives short stable ids and keeps a tree, criteria, estimate, traces and labels", () => {
    const root = add("Ship the parser", [
      "--so-that",
      "files load",
      "--estimate",
      "1,2,6",
      "--labels",
      "core",
    ]);
    const child = add("Tokenizer", ["--parent", root, "--criteria", "lexes", "--traces", "src/lex.ts"]);
    expect([root, child]).toEqual(["T-1", "T-2"]);
    const shown = cairn(ws.dir, ["task", "show", "t-2", "--json"]).json as {
      task: Record<string, unknown>;
      criteria: { n: number; text: string; checked: boolean }[];
    };
    expect(shown.task).toMatchObject({ id: "T-2", parent: "T-1", traces: ["src/lex.ts"], status: "open" });
    expect(shown.criteria).toEqual([expect.objectContaining({ n: 1, text: "lexes", checked: false })]);
    const parent = cairn(ws.dir, ["task", "show", "1", "--json"]).json as { task: { estimate: unknown } };
    expect(parent.task.estimate).toEqual({ optimistic: 1, probable: 2, pessimistic: 6, expected: 2.5 });
  });

  it("refuses a lone number as an estimate (usage, exit 2)", () => {
    const run = cairn(ws.dir, ["task", "add", "x", "--estimate", "3", "--json"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/three-point/);
  });

  it("answers an unknown task id with exit 4 on every verb", () => {
    for (const verb of [
      ["show"],
      ["claim"],
      ["release"],
      ["check", "--all"],
      ["finish"],
      ["block", "--reason", "x"],
      ["reopen"],
      ["drop"],
      ["move"],
      ["depend", "--on", "T-1"],
    ]) {
      const run = cairn(ws.dir, ["task", verb[0] as string, "T-404", ...verb.slice(1), "--json"]);
      expect(run.code, verb.join(" ")).toBe(4);
      expect(run.json).toMatchObject({ error: { kind: "not_found" } });
    }
  });

  it("refuses a cycle in depends_on, naming the loop", () => {
    add("a");
    add("b", ["--depends-on", "T-1"]);
    add("c", ["--depends-on", "T-2"]);
    const self = cairn(ws.dir, ["task", "depend", "T-1", "--on", "T-1", "--json"]);
    expect(self.code).toBe(3);
    const loop = cairn(ws.dir, ["task", "depend", "T-1", "--on", "T-3", "--json"]);
    expect(loop.code).toBe(3);
    expect(loop.json).toMatchObject({ refused: { policy: "dependencies" } });
    expect(loop.stderr).toContain("T-1 → T-3 → T-2 → T-1");
    const deps = cairn(ws.dir, ["task", "show", "T-1", "--json"]).json as { depends_on: unknown[] };
    expect(deps.depends_on).toEqual([]);
  });

  it("refuses moving a task under itself or its own descendant, and moves subtrees otherwise", () => {
    add("root");
    add("child", ["--parent", "T-1"]);
    add("grandchild", ["--parent", "T-2"]);
    add("other");
    for (const target of ["T-1", "T-3"]) {
      const run = cairn(ws.dir, ["task", "move", "T-1", "--parent", target, "--json"]);
      expect(run.code, target).toBe(3);
      expect(run.json).toMatchObject({ refused: { policy: "tree" } });
    }
    expect(cairn(ws.dir, ["task", "move", "T-2", "--parent", "T-4"]).code).toBe(0);
    const order = cairn(ws.dir, ["task", "list", "--json"]).json as { tasks: { id: string }[] };
    expect(order.tasks.map((t) => t.id)).toEqual(["T-1", "T-4", "T-2", "T-3"]);
  });

  it("orders ready work by priority, then depth-first, and hides tasks with open dependencies", () => {
    add("could later", ["--priority", "could"]);
    add("must parent", ["--priority", "must"]);
    add("must child", ["--priority", "must", "--parent", "T-2"]);
    add("should", ["--priority", "should"]);
    add("must waits", ["--priority", "must", "--depends-on", "T-4"]);
    add("wont", ["--priority", "wont"]);
    const ready = cairn(ws.dir, ["task", "ready", "--limit", "10", "--json"]).json as {
      tasks: { id: string }[];
    };
    expect(ready.tasks.map((t) => t.id)).toEqual(["T-2", "T-3", "T-4", "T-1"]);
  });

  it("shows a task's first 100 children, dependents and dependencies with their totals, and a claim none of them", () => {
    add("the epic");
    // 102 tasks under T-1, and 102 waiting on T-104: what any writer may pile onto another's task.
    // (No part waits on its own epic: neither could ever finish.)
    for (let i = 0; i < 102; i++) {
      const added = arrange(ws.dir, ["task", "add", `piece ${i}`, "--parent", "T-1"]);
      expect(added.code, added.stderr).toBe(0);
    }
    add("the gate");
    for (let i = 0; i < 102; i++) {
      const added = arrange(ws.dir, ["task", "add", `waiter ${i}`, "--depends-on", "T-104"]);
      expect(added.code, added.stderr).toBe(0);
    }
    const shown = cairn(ws.dir, ["task", "show", "T-1", "--json"]).json as {
      children: { id: string }[];
      children_total: number;
    };
    const first100 = Array.from({ length: 100 }, (_, i) => `T-${i + 2}`);
    expect(shown.children.map((t) => t.id)).toEqual(first100);
    expect(shown.children_total).toBe(102);
    const gate = cairn(ws.dir, ["task", "show", "T-104", "--json"]).json as {
      dependents: { id: string }[];
      dependents_total: number;
    };
    // In the order they were made, on both stores: a query without ORDER BY promises none.
    expect(gate.dependents.map((t) => t.id)).toEqual(Array.from({ length: 100 }, (_, i) => `T-${i + 105}`));
    expect(gate.dependents_total).toBe(102);
    const text = cairn(ws.dir, ["task", "show", "T-1"]).stdout;
    expect(text).toContain("T-101 … and 2 more (`cairn task list --parent T-1`)");
    expect(cairn(ws.dir, ["task", "show", "T-104"]).stdout).toContain("waited on by: T-105, T-106");
    // Off the open column, so the board's 200 cards reach the target below.
    for (let i = 105; i <= 206; i++) expect(arrange(ws.dir, ["task", "drop", `T-${i}`]).code).toBe(0);
    // The rest are a list away.
    const rest = cairn(ws.dir, ["task", "list", "--parent", "T-1", "--offset", "100", "--json"]).json as {
      tasks: { id: string }[];
    };
    expect(rest.tasks.map((t) => t.id)).toEqual(["T-102", "T-103"]);
    const claimed = cairn(ws.dir, ["task", "claim", "T-1", "--json"]).json as Record<string, unknown>;
    expect(Object.keys(claimed).sort()).toEqual(["already", "criteria", "task"]);
    expect(claimed.task).toMatchObject({ id: "T-1", status: "active", title: "the epic" });
    // A task waiting on those 102 (any writer may make another's task wait on as many): its
    // detail and its board card list the first 100, and a claim's refusal names the first 10.
    const on = Array.from({ length: 102 }, (_, i) => ["--on", `T-${i + 2}`]).flat();
    expect(arrange(ws.dir, ["task", "add", "the target"]).code).toBe(0);
    const depended = arrange(ws.dir, ["task", "depend", "T-207", ...on]);
    expect(depended.code, depended.stderr).toBe(0);
    const target = cairn(ws.dir, ["task", "show", "T-207", "--json"]).json as {
      depends_on: { id: string }[];
      depends_on_total: number;
    };
    expect(target.depends_on.map((t) => t.id)).toEqual(first100);
    expect(target.depends_on_total).toBe(102);
    expect(cairn(ws.dir, ["task", "show", "T-207"]).stdout).toContain("T-101 (open) … and 2 more");
    const board = cairn(ws.dir, ["board", "--limit", "200", "--json"]).json as {
      columns: { cards: { id: string; depends_on: { id: string }[]; depends_on_total: number }[] }[];
    };
    const card = board.columns.flatMap((column) => column.cards).find((c) => c.id === "T-207");
    expect(card?.depends_on.map((d) => d.id)).toEqual(first100);
    expect(card?.depends_on_total).toBe(102);
    const refused = cairn(ws.dir, ["task", "claim", "T-207", "--json"]);
    expect(refused.code).toBe(3);
    const { reason } = (refused.json as { refused: { reason: string } }).refused;
    expect(reason).toContain("unfinished dependencies: T-2 (open), T-3 (open)");
    expect(reason).toContain("T-11 (open) and 92 more (102 in all; `cairn task show T-207`)");
    expect(reason).not.toContain("T-12 (open)");
  });

  it("lists with filters and pages", () => {
    for (let i = 1; i <= 7; i++) add(`task ${i}`, i % 2 ? ["--labels", "odd"] : []);
    const odd = cairn(ws.dir, ["task", "list", "--label", "odd", "--json"]).json as { total: number };
    expect(odd.total).toBe(4);
    const page = cairn(ws.dir, ["task", "list", "--limit", "3", "--offset", "3", "--json"]).json as {
      tasks: { id: string }[];
      next_offset: number | null;
    };
    expect(page.tasks.map((t) => t.id)).toEqual(["T-4", "T-5", "T-6"]);
    expect(page.next_offset).toBe(6);
    const text = cairn(ws.dir, ["task", "list", "--text", "TASK 7", "--json"]).json as {
      tasks: { id: string }[];
    };
    expect(text.tasks.map((t) => t.id)).toEqual(["T-7"]);
    cairn(ws.dir, ["task", "claim", "T-2"]);
    const mine = cairn(ws.dir, ["task", "list", "--owner", "me", "--status", "active", "--json"]).json as {
      tasks: { id: string }[];
    };
    expect(mine.tasks.map((t) => t.id)).toEqual(["T-2"]);
  });

  it("answers an unknown task id over MCP with a not-found error result", async () => {
    const mcp = await connectMcp(ws.dir);
    try {
      const result = await callTool(mcp, "claim_task", { task: "T-404" });
      expect(result.isError).toBe(true);
      expect((result.content as { text: string }[])[0]?.text).toMatch(/not found: no task T-404/);
    } finally {
      await mcp.close();
    }
  });

  it("refuses to finish its holder's blocked task before running the definition of done, naming reopen", () => {
    const marker = join(ws.dir, "gate-ran");
    writeFileSync(
      join(ws.dir, ".cairn", "cairn.toml"),
      `[done]\nshortcuts = ["gate"]\n[shortcuts.gate]\nargv = ["touch", ${JSON.stringify(marker)}]\neffect = "read"\n`,
    );
    arrange(ws.dir, ["task", "add", "mine"]);
    arrange(ws.dir, ["task", "claim", "T-1"]);
    arrange(ws.dir, ["task", "block", "T-1", "--reason", "vendor outage"]);
    const refused = cairn(ws.dir, ["task", "finish", "T-1", "--unverified", "--json"]);
    expect(refused.code, refused.stderr).toBe(3);
    const refusal = (refused.json as { refused: { policy: string; reason: string; next: string } }).refused;
    expect(refusal.policy).toBe("status");
    expect(refusal.reason).toBe('T-1 is blocked ("vendor outage"); a blocked task is not finished');
    expect(refusal.next).toContain("`cairn task reopen T-1`");
    expect(refusal.next).not.toContain("claim");
    expect(existsSync(marker)).toBe(false);
    // Reopened, it finishes, the definition of done run.
    arrange(ws.dir, ["task", "reopen", "T-1"]);
    const finished = cairn(ws.dir, ["task", "finish", "T-1", "--unverified", "--json"]);
    expect(finished.code, finished.stderr).toBe(0);
    expect(existsSync(marker)).toBe(true);
  });

  it("says a task was finished unverified in now's, board's and task show's text, as their --json does", () => {
    const id = add("take my word for it");
    cairn(ws.dir, ["task", "claim", id]);
    expect(cairn(ws.dir, ["task", "finish", id, "--unverified"]).code).toBe(0);
    const now = cairn(ws.dir, ["now"]).stdout;
    expect(now).toContain("1 finished unverified");
    expect(now).toContain(`finished unverified: ${id}`);
    expect(cairn(ws.dir, ["board"]).stdout).toMatch(
      new RegExp(`${id} take my word for it .*\\(finished unverified\\)`),
    );
    expect(cairn(ws.dir, ["task", "show", id]).stdout).toContain(
      "status done (finished unverified, held by owner)",
    );
  });

  it("counts every unverified finish where status and review list only the newest", async () => {
    const mcp = await connectMcp(ws.dir);
    const finished = 105;
    try {
      for (let i = 0; i < finished; i++) {
        const result = await callTool(mcp, "add_task", { title: `said done ${i}` });
        expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
      }
    } finally {
      await mcp.close();
    }
    // Finished unverified behind cairn's back: 105 finishes through the CLI would take a minute.
    await rawExec(ws.dir, "UPDATE tasks SET status = 'done', unverified = 1");
    const status = cairn(ws.dir, ["status", "--json"]).json as {
      board: { unverified: string[]; unverified_total: number };
    };
    expect(status.board.unverified).toHaveLength(100);
    expect(status.board.unverified_total).toBe(finished);
    expect(cairn(ws.dir, ["status"]).stdout).toContain(`… and ${finished - 100} more: cairn review`);
    const review = cairn(ws.dir, ["review", "--json"]).json as {
      unverified: unknown[];
      unverified_total: number;
    };
    expect(review.unverified_total).toBe(finished);
    const now = cairn(ws.dir, ["now", "--json"]).json as { inbox: { unverified_total: number } };
    expect(now.inbox.unverified_total).toBe(finished);
    expect(cairn(ws.dir, ["now"]).stdout).toContain(`${finished} finished unverified`);
    expect(cairn(ws.dir, ["now"]).stdout).toContain(`… and ${finished - 100} more: cairn review`);
  });

  it("lists a few blocked tasks in status's and now's text and says how many more, where --json keeps them", async () => {
    const mcp = await connectMcp(ws.dir);
    const blocked = 14;
    try {
      for (let i = 0; i < blocked; i++) {
        const result = await callTool(mcp, "add_task", { title: `waiting ${i}` });
        expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
      }
    } finally {
      await mcp.close();
    }
    // Blocked behind cairn's back, as above.
    await rawExec(ws.dir, "UPDATE tasks SET status = 'blocked', blocked_reason = 'waits on the vendor'");
    for (const command of ["status", "now"]) {
      const text = cairn(ws.dir, [command]).stdout;
      expect(text.match(/^ {2}blocked T-\d+ waiting \d+: waits on the vendor$/gm), command).toHaveLength(10);
      expect(text, command).toContain(`  … ${blocked - 10} more blocked: cairn task list --status blocked`);
    }
    const status = cairn(ws.dir, ["status", "--json"]).json as { board: { blocked: unknown[] } };
    expect(status.board.blocked).toHaveLength(blocked);
  });

  it("now shows the goals changed last, and counts them all, where it read every goal", async () => {
    const mcp = await connectMcp(ws.dir);
    const made = 23;
    try {
      for (let i = 0; i < made; i++) {
        const result = await callTool(mcp, "cli", { argv: ["goal", "create", `goal number ${i}`] });
        expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
      }
      const changed = await callTool(mcp, "cli", {
        argv: ["goal", "update", "G-1", "--outcome", "first, changed last"],
      });
      expect(changed.isError, JSON.stringify(changed.content)).toBeFalsy();
    } finally {
      await mcp.close();
    }
    const now = cairn(ws.dir, ["now", "--json"]).json as { goals: { id: string }[]; goals_total: number };
    expect(now.goals_total).toBe(made);
    expect(now.goals).toHaveLength(20);
    expect(now.goals[0]?.id).toBe("G-1");
  });
});
