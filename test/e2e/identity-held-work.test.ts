import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addAgent, arrange, cairn, initWorkspace } from "../helpers/workspace.js";

/**
 * What an agent holds is its own to change: another agent with a write grant, through the real
 * CLI, cannot add to the work of a task it does not hold. One workspace for the file: each test
 * uses its own tasks and agents.
 */
let ws: { dir: string; cleanup: () => void };
const as = (token: string) => ({ env: { CAIRN_AGENT: token } });
const json = <T>(args: string[], token?: string) =>
  cairn(ws.dir, [...args, "--json"], token ? as(token) : {}).json as T;
const newTask = (title: string, extra: string[] = []) =>
  (arrange(ws.dir, ["task", "add", title, ...extra, "--json"]).json as { task: { id: string } }).task.id;

beforeAll(() => {
  ws = initWorkspace();
  writeFileSync(join(ws.dir, ".cairn", "cairn.toml"), `[roles.builder]\nscope = ["src/**"]\n`);
});
afterAll(() => ws.cleanup());

describe("a held task's parts are its holder's", () => {
  it("another agent puts no open part under a task it does not hold, by add or by move", () => {
    const holder = addAgent(ws.dir, "epic-holder", "builder");
    const rival = addAgent(ws.dir, "rival", "builder");
    const epic = newTask("Epic: search", ["--criteria", "summary written", "--traces", "src/search"]);
    expect(cairn(ws.dir, ["task", "claim", epic], as(holder.token)).code).toBe(0);

    const added = cairn(ws.dir, ["task", "add", "a part", "--parent", epic, "--json"], as(rival.token));
    expect(added.code).toBe(3);
    expect(added.json).toMatchObject({ refused: { policy: "ownership" } });
    const own = json<{ task: { id: string } }>(["task", "add", "rival's own"], rival.token).task.id;
    const moved = cairn(ws.dir, ["task", "move", own, "--parent", epic, "--json"], as(rival.token));
    expect(moved.code).toBe(3);
    expect(moved.json).toMatchObject({ refused: { policy: "ownership" } });
    expect(json<{ children: unknown[] }>(["task", "show", epic]).children).toEqual([]);

    // So the holder finishes its epic with no part it never asked for.
    expect(cairn(ws.dir, ["task", "check", epic, "--all"], as(holder.token)).code).toBe(0);
    expect(cairn(ws.dir, ["task", "finish", epic], as(holder.token)).code).toBe(0);
    // Finished, it holds no one back: a follow-up goes under it from anyone.
    expect(cairn(ws.dir, ["task", "add", "follow-up", "--parent", epic], as(rival.token)).code).toBe(0);
  });

  it("its holder and the owner still split it; an unheld task takes parts from anyone", () => {
    const holder = addAgent(ws.dir, "splitter", "builder");
    const other = addAgent(ws.dir, "helper", "builder");
    const epic = newTask("Epic: export");
    expect(cairn(ws.dir, ["task", "claim", epic], as(holder.token)).code).toBe(0);
    expect(cairn(ws.dir, ["task", "add", "part one", "--parent", epic], as(holder.token)).code).toBe(0);
    expect(cairn(ws.dir, ["task", "add", "part two", "--parent", epic]).code).toBe(0);
    const unheld = newTask("Epic: import");
    expect(cairn(ws.dir, ["task", "add", "a part", "--parent", unheld], as(other.token)).code).toBe(0);
  });
});

describe("the owner's block on an agent's task is the owner's to lift", () => {
  it("its holder neither reopens it, nor re-blocks it to lift, nor releases it open, nor drops it", () => {
    const holder = addAgent(ws.dir, "stopped", "builder");
    const own = json<{ task: { id: string } }>(["task", "add", "its own work"], holder.token).task.id;
    expect(cairn(ws.dir, ["task", "claim", own], as(holder.token)).code).toBe(0);
    expect(cairn(ws.dir, ["task", "block", own, "--reason", "stop: legal review"]).code).toBe(0);

    for (const argv of [
      ["task", "reopen", own],
      ["task", "block", own, "--reason", "my own block now"],
      ["task", "drop", own],
    ]) {
      const tried = cairn(ws.dir, [...argv, "--json"], as(holder.token));
      expect(tried.code, argv.join(" ")).toBe(3);
      expect(tried.json).toMatchObject({ refused: { policy: "ownership" } });
    }
    // Released, it goes back to the board still blocked: not its author's to reopen, no one's to claim.
    expect(cairn(ws.dir, ["task", "release", own], as(holder.token)).code).toBe(0);
    const shown = json<{ task: { status: string; owner: string | null } }>(["task", "show", own]).task;
    expect(shown).toMatchObject({ status: "blocked", owner: null });
    expect(cairn(ws.dir, ["task", "reopen", own], as(holder.token)).code).toBe(3);
    expect(cairn(ws.dir, ["task", "claim", own], as(holder.token)).code).toBe(3);

    // The owner lifts it; then it is its author's and holder's as before.
    expect(cairn(ws.dir, ["task", "reopen", own]).code).toBe(0);
    expect(cairn(ws.dir, ["task", "claim", own], as(holder.token)).code).toBe(0);
    expect(cairn(ws.dir, ["task", "block", own, "--reason", "waiting on CI"], as(holder.token)).code).toBe(0);
    expect(cairn(ws.dir, ["task", "reopen", own], as(holder.token)).code).toBe(0);
  });

  it("nor does a sweep give it back open once its holder is retired: it stays blocked for the next", () => {
    const holder = addAgent(ws.dir, "let-go", "builder");
    const next = addAgent(ws.dir, "next-one", "builder");
    const task = newTask("paused work");
    expect(cairn(ws.dir, ["task", "claim", task], as(holder.token)).code).toBe(0);
    expect(cairn(ws.dir, ["task", "block", task, "--reason", "paused by the owner"]).code).toBe(0);
    expect(cairn(ws.dir, ["agent", "retire", "let-go"]).code).toBe(0);
    const swept = json<{ released: { task: string }[] }>(["sweep"], next.token);
    expect(swept.released.map((r) => r.task)).toContain(task);
    const shown = json<{ task: { status: string; owner: string | null } }>(["task", "show", task]).task;
    expect(shown).toMatchObject({ status: "blocked", owner: null });
    expect(cairn(ws.dir, ["task", "claim", task], as(next.token)).code).toBe(3);
  });

  it("nor does its author reopen a task of its own that the owner dropped", () => {
    const author = addAgent(ws.dir, "idea-man", "builder");
    const idea = json<{ task: { id: string } }>(["task", "add", "a side quest"], author.token).task.id;
    expect(cairn(ws.dir, ["task", "drop", idea, "--reason", "not wanted"]).code).toBe(0);
    const reopen = cairn(ws.dir, ["task", "reopen", idea, "--json"], as(author.token));
    expect(reopen.code).toBe(3);
    expect(reopen.json).toMatchObject({ refused: { policy: "ownership" } });
    expect(json<{ task: { status: string } }>(["task", "show", idea]).task.status).toBe("dropped");
    // A drop of its own it takes back; the owner's, the owner does.
    const own = json<{ task: { id: string } }>(["task", "add", "a second idea"], author.token).task.id;
    expect(cairn(ws.dir, ["task", "drop", own], as(author.token)).code).toBe(0);
    expect(cairn(ws.dir, ["task", "reopen", own], as(author.token)).code).toBe(0);
    expect(cairn(ws.dir, ["task", "reopen", idea]).code).toBe(0);
  });
});

describe("no part waits on an epic above it, which waits on its parts", () => {
  it("refuses the wait by task add, task depend (however indirect) and task move; the epic may wait on a part", () => {
    const griefer = addAgent(ws.dir, "griefer", "builder");
    const epic = newTask("Epic: billing");
    const refusedWait = (argv: string[]) => {
      const tried = cairn(ws.dir, [...argv, "--json"], as(griefer.token));
      expect(tried.code, argv.join(" ")).toBe(3);
      expect(tried.json).toMatchObject({ refused: { policy: "dependencies" } });
    };
    refusedWait(["task", "add", "poison part", "--parent", epic, "--depends-on", epic]);
    const part = json<{ task: { id: string } }>(["task", "add", "a part", "--parent", epic], griefer.token)
      .task.id;
    const side = json<{ task: { id: string } }>(["task", "add", "side task"], griefer.token).task.id;
    expect(cairn(ws.dir, ["task", "depend", part, "--on", side], as(griefer.token)).code).toBe(0);
    refusedWait(["task", "depend", side, "--on", epic]);
    const outside = json<{ task: { id: string } }>(
      ["task", "add", "waits on the epic", "--depends-on", epic],
      griefer.token,
    ).task.id;
    refusedWait(["task", "move", outside, "--parent", epic]);

    // So the epic's holder finishes it once its parts are done; and an epic may wait on its part.
    expect(cairn(ws.dir, ["task", "depend", epic, "--on", part]).code).toBe(0);
    expect(cairn(ws.dir, ["task", "drop", part], as(griefer.token)).code).toBe(0);
    expect(cairn(ws.dir, ["task", "claim", epic], as(griefer.token)).code).toBe(0);
    expect(cairn(ws.dir, ["task", "finish", epic, "--unverified"], as(griefer.token)).code).toBe(0);
    // Done, it is still refused: reopened, the epic would wait on the part again.
    const followUp = cairn(ws.dir, ["task", "add", "follow-up", "--parent", epic, "--depends-on", epic]);
    expect(followUp.code).toBe(3);
  });
});
