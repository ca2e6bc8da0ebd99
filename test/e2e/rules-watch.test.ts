import { appendFileSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { callTool, connectMcp } from "../helpers/mcp.js";
import { addAgent, arrange, cairn, cairnAsync, initWorkspace } from "../helpers/workspace.js";

/**
 * cairn.toml sets the board's rules (roles, shortcuts, leases, the definition of done) and any
 * agent in the checkout can edit it. cairn cannot stop that; it notices the change at the first
 * call that runs under it and keeps it in the journal, in `status` and on the page of each task
 * added meanwhile, naming whose call first saw it.
 */
let ws: { dir: string; cleanup: () => void };
let config: string;

const RULES = `
[roles.builder]
scope = ["src/**"]
wip_cap = 2

[roles.reviewer]
grant = "ro"

[done]
shortcuts = ["test"]

[shortcuts.test]
argv = ["node", "-e", "process.exit(1)"]
effect = "read"
roles = ["builder"]
`;

type Change = { at: string; sections: string[]; first_seen_in_call_of: string };

const rulesEvents = (dir: string) => {
  const out = cairn(dir, ["activity", "--action", "rules.changed", "--json"]);
  expect(out.code, out.stderr).toBe(0);
  return (out.json as { events: { actor: string; action: string }[] }).events;
};
const lastChange = (dir: string) => {
  const out = cairn(dir, ["status", "--json"]);
  expect(out.code, out.stderr).toBe(0);
  return (out.json as { rules_changed: Change | null }).rules_changed;
};

beforeEach(() => {
  ws = initWorkspace();
  config = join(ws.dir, ".cairn", "cairn.toml");
  appendFileSync(config, RULES);
  // The owner's own call puts these rules on record, as the workspace's first change.
  expect(arrange(ws.dir, ["task", "add", "Ship the parser", "--json"]).code).toBe(0);
});
afterEach(() => ws.cleanup());

describe("rules changed in cairn.toml", () => {
  it("an agent that empties the definition of done before finishing is named, on the task and in status", () => {
    const builder = addAgent(ws.dir, "bob", "builder");
    const asBob = { env: { CAIRN_AGENT: builder.token } };
    expect(cairn(ws.dir, ["task", "claim", "T-1"], asBob).code).toBe(0);
    // The test shortcut fails, so the finish is refused under the rules as the owner set them.
    expect(cairn(ws.dir, ["task", "finish", "T-1", "--unverified"], asBob).code).toBe(3);

    writeFileSync(
      config,
      readFileSync(config, "utf8").replace(/^shortcuts = \["test"\]$/m, "shortcuts = []"),
    );
    const finish = cairn(ws.dir, ["task", "finish", "T-1", "--unverified", "--json"], asBob);
    expect(finish.code, finish.stderr).toBe(0);

    const change = lastChange(ws.dir);
    expect(change?.sections).toEqual(["done"]);
    expect(change?.first_seen_in_call_of).toBe(`${builder.id} (bob)`);
    const shown = cairn(ws.dir, ["task", "show", "T-1", "--json"]);
    expect((shown.json as { rules_changed_since_added?: Change[] }).rules_changed_since_added).toEqual([
      change,
    ]);
    expect(cairn(ws.dir, ["task", "show", "T-1"]).stdout).toContain(
      `cairn.toml's rules changed since it was added: done at ${change?.at}, first seen in a call of ${builder.id} (bob)`,
    );
    expect(cairn(ws.dir, ["status"]).stdout).toContain("rules in cairn.toml last changed: done at");
    // The journal's entries are cairn's (it saw each change; it does not know who made it): the
    // owner's rules put on record before the test, then the agent's edit.
    expect(rulesEvents(ws.dir).map((event) => event.actor)).toEqual(["cairn", "cairn"]);
    // What the section held and holds: the owner sees the change without git.
    const [newest] = rulesEvents(ws.dir) as unknown as { data: { values: Record<string, unknown> } }[];
    expect(newest?.data.values).toEqual({
      done: { before: '{"note_kinds":[],"shortcuts":["test"]}', after: '{"note_kinds":[],"shortcuts":[]}' },
    });
  });

  it("an agent widening its own role is recorded at its next call, a read included, and each role is named", () => {
    const reviewer = addAgent(ws.dir, "rita", "reviewer");
    writeFileSync(
      config,
      readFileSync(config, "utf8")
        .replace('grant = "ro"', 'grant = "rw"\nplanning = true')
        .replace(/^wip_cap = 2$/m, "wip_cap = 9"),
    );
    expect(cairn(ws.dir, ["whoami"], { env: { CAIRN_AGENT: reviewer.token } }).code).toBe(0);
    const change = lastChange(ws.dir);
    expect(change?.sections).toEqual(["roles.builder", "roles.reviewer"]);
    expect(change?.first_seen_in_call_of).toBe(`${reviewer.id} (rita)`);
  });

  it("an edit that changes no rule is not a change: comments, order, a default written out", () => {
    const before = rulesEvents(ws.dir).length;
    const sameRules = `
# The team's rules, rewritten: tables in another order, keys too, and defaults spelt out.
[shortcuts.test]
roles = ["builder"]
effect = "read"
argv = ["node", "-e", "process.exit(1)"]

[done]
note_kinds = []
shortcuts = ["test"]

[roles.reviewer]
summary = ""
grant = "ro"

[roles.builder]
wip_cap = 2
scope = ["src/**"]

[claims]
lease_minutes = 30

[verify]
timeout_seconds = 600
`;
    writeFileSync(config, readFileSync(config, "utf8").replace(RULES, sameRules));
    expect(cairn(ws.dir, ["task", "list"]).code).toBe(0);
    expect(rulesEvents(ws.dir).length).toBe(before);
    // And a real change after them is one.
    appendFileSync(config, '\n[roles.tester]\nsummary = "runs the tests"\n');
    expect(cairn(ws.dir, ["task", "list"]).code).toBe(0);
    expect(lastChange(ws.dir)?.sections).toEqual(["roles.tester"]);
  });

  it("a running server notices an edit at its next call, and an edit undone is a change too", async () => {
    const builder = addAgent(ws.dir, "bob", "builder");
    const server = await connectMcp(ws.dir, { env: { CAIRN_AGENT: builder.token } });
    try {
      expect((await callTool(server, "whoami")).isError).toBeFalsy();
      const original = readFileSync(config, "utf8");
      writeFileSync(config, original.replace('argv = ["node", "-e", "process.exit(1)"]', 'argv = ["true"]'));
      expect((await callTool(server, "whoami")).isError).toBeFalsy();
      expect(lastChange(ws.dir)?.sections).toEqual(["shortcuts.test"]);
      writeFileSync(config, original);
      expect((await callTool(server, "list_tasks")).isError).toBeFalsy();
      expect(rulesEvents(ws.dir)).toHaveLength(3);
      expect(lastChange(ws.dir)?.first_seen_in_call_of).toBe(`${builder.id} (bob)`);
    } finally {
      await server.close();
    }
  });

  it("a running server that noted loosened rules once is not spared their return after they were undone", async () => {
    const builder = addAgent(ws.dir, "bob", "builder");
    const asBob = { env: { CAIRN_AGENT: builder.token } };
    const strict = readFileSync(config, "utf8");
    const loose = strict.replace(/^shortcuts = \["test"\]$/m, "shortcuts = []");
    const server = await connectMcp(ws.dir, { env: { CAIRN_AGENT: builder.token } });
    try {
      // Long before the task: the server notes the loosened rules, which are then undone.
      writeFileSync(config, loose);
      expect((await callTool(server, "whoami")).isError).toBeFalsy();
      writeFileSync(config, strict);
      expect(cairn(ws.dir, ["whoami"]).code).toBe(0);
      expect(arrange(ws.dir, ["task", "add", "Write the docs"]).code).toBe(0);
      expect(cairn(ws.dir, ["task", "claim", "T-2"], asBob).code).toBe(0);
      expect(cairn(ws.dir, ["task", "finish", "T-2", "--unverified"], asBob).code).toBe(3);
      // Loosened again, and the task finished through the server that had seen them before.
      writeFileSync(config, loose);
      const finished = await callTool(server, "finish_task", { task: "T-2", unverified: true });
      expect(finished.structuredContent).toMatchObject({ result: "done" });
      writeFileSync(config, strict);
      expect(cairn(ws.dir, ["whoami"], asBob).code).toBe(0);
      const shown = cairn(ws.dir, ["task", "show", "T-2", "--json"]);
      const changes = (shown.json as { rules_changed_since_added?: Change[] }).rules_changed_since_added;
      expect(changes?.map((change) => [change.sections, change.first_seen_in_call_of])).toEqual([
        [["done"], `${builder.id} (bob)`],
      ]);
    } finally {
      await server.close();
    }
  });

  it("a daemon sweeping under a lease shortened for it notes the change, on the swept task's page too", () => {
    const alice = addAgent(ws.dir, "alice", "builder");
    const bob = addAgent(ws.dir, "bob", "builder");
    expect(cairn(ws.dir, ["task", "claim", "T-1"], { env: { CAIRN_AGENT: alice.token } }).code).toBe(0);
    const strict = readFileSync(config, "utf8");
    // A lease of a few milliseconds for one pass of a daemon bob starts, then the file put back.
    appendFileSync(config, "\n[claims]\nlease_minutes = 0.0001\n");
    const pass = cairn(ws.dir, ["daemon", "--once", "--json"], { env: { CAIRN_AGENT: bob.token } });
    expect(pass.code, pass.stderr).toBe(0);
    expect((pass.json as { swept: { task: string }[] }).swept.map((s) => s.task)).toEqual(["T-1"]);
    writeFileSync(config, strict);
    expect(cairn(ws.dir, ["task", "claim", "T-1"], { env: { CAIRN_AGENT: bob.token } }).code).toBe(0);

    const changes = (
      cairn(ws.dir, ["task", "show", "T-1", "--json"]).json as { rules_changed_since_added?: Change[] }
    ).rules_changed_since_added;
    // The lease put back, first seen in bob's claim, and the shortened one, first seen in his daemon.
    expect(changes?.map((change) => [change.sections, change.first_seen_in_call_of])).toEqual([
      [["claims"], `${bob.id} (bob)`],
      [["claims"], `${bob.id} (bob)`],
    ]);
  });

  it("a task's page says when earlier changes were left out, so noise after an emptied [done] does not hide it", () => {
    const builder = addAgent(ws.dir, "bob", "builder");
    const asBob = { env: { CAIRN_AGENT: builder.token } };
    expect(cairn(ws.dir, ["task", "claim", "T-1"], asBob).code).toBe(0);
    const loose = readFileSync(config, "utf8").replace(/^shortcuts = \["test"\]$/m, "shortcuts = []");
    writeFileSync(config, loose);
    expect(cairn(ws.dir, ["whoami"], asBob).code).toBe(0);
    // Ten changes that mean nothing push the one that did off the page's ten.
    for (let round = 0; round < 5; round++) {
      writeFileSync(config, `${loose}\n[roles.noise]\nsummary = "${round}"\n`);
      expect(arrange(ws.dir, ["whoami"]).code).toBe(0);
      writeFileSync(config, loose);
      expect(arrange(ws.dir, ["whoami"]).code).toBe(0);
    }
    expect(cairn(ws.dir, ["task", "finish", "T-1", "--unverified"], asBob).code).toBe(0);
    const shown = cairn(ws.dir, ["task", "show", "T-1", "--json"]).json as {
      rules_changed_since_added?: Change[];
      rules_changed_more?: boolean;
    };
    expect(shown.rules_changed_since_added).toHaveLength(10);
    expect(shown.rules_changed_more).toBe(true);
    expect(cairn(ws.dir, ["task", "show", "T-1"]).stdout).toContain(
      "… and earlier changes of cairn.toml's rules since it was added, left out here",
    );
    // The journal keeps every one of them.
    expect(rulesEvents(ws.dir).map((event) => event.actor)).toHaveLength(12);
  });

  it("a change hidden among thousands of dummy roles is named first, and a read shows a few of them", () => {
    const builder = addAgent(ws.dir, "bob", "builder");
    const dummies = Array.from({ length: 3000 }, (_, i) => `\n[roles.a${String(i).padStart(4, "0")}]\n`);
    writeFileSync(
      config,
      readFileSync(config, "utf8").replace('argv = ["node", "-e", "process.exit(1)"]', 'argv = ["true"]') +
        dummies.join(""),
    );
    expect(cairn(ws.dir, ["whoami"], { env: { CAIRN_AGENT: builder.token } }).code).toBe(0);

    const change = lastChange(ws.dir) as Change & { sections_total?: number };
    expect(change.sections[0]).toBe("shortcuts.test");
    expect(change.sections).toHaveLength(11);
    expect(change.sections_total).toBe(3001);
    const status = cairn(ws.dir, ["status"]);
    expect(status.stdout).toContain("rules in cairn.toml last changed: shortcuts.test, roles.a0000,");
    expect(status.stdout).toContain("roles.a0009 and 2990 more at");
    expect(status.stdout.length).toBeLessThan(4000);
    // The journal keeps them all, the redefined shortcut within what `activity` previews.
    const events = cairn(ws.dir, ["activity", "--action", "rules.changed", "--json"]).json as {
      events: { data: { sections: string[]; values: Record<string, unknown> } }[];
    };
    expect(events.events[0]?.data.sections[0]).toBe("shortcuts.test");
    // And what it held and holds is among the values the event keeps.
    expect(events.events[0]?.data.values["shortcuts.test"]).toMatchObject({
      after: expect.stringContaining('["true"]'),
    });
  });

  it("one edit seen by many processes at once is recorded once", async () => {
    const before = rulesEvents(ws.dir).length;
    appendFileSync(config, "\n[claims]\nlease_minutes = 5\n");
    const calls = await Promise.all(
      Array.from({ length: 6 }, () => cairnAsync(ws.dir, ["task", "list", "--json"])),
    );
    for (const call of calls) expect(call.code, call.stderr).toBe(0);
    expect(rulesEvents(ws.dir).length).toBe(before + 1);
    expect(lastChange(ws.dir)?.sections).toEqual(["claims"]);
  });

  it("a task's page names the changes between its adding and its finish, an edit before its claim too", () => {
    const builder = addAgent(ws.dir, "bob", "builder");
    const asBob = { env: { CAIRN_AGENT: builder.token } };
    appendFileSync(config, '\n[roles.early]\nsummary = "before the task"\n');
    expect(cairn(ws.dir, ["task", "list"]).code).toBe(0);
    expect(arrange(ws.dir, ["task", "add", "Write the docs"]).code).toBe(0);
    const page = () =>
      (cairn(ws.dir, ["task", "show", "T-2", "--json"]).json as { rules_changed_since_added?: Change[] })
        .rules_changed_since_added;
    expect(page()).toBeUndefined();
    // Loosened before the claim, and first seen in someone else's call: still the task's to show.
    writeFileSync(
      config,
      readFileSync(config, "utf8").replace(/^shortcuts = \["test"\]$/m, "shortcuts = []"),
    );
    expect(cairn(ws.dir, ["whoami"]).code).toBe(0);
    expect(cairn(ws.dir, ["task", "claim", "T-2"], asBob).code).toBe(0);
    expect(cairn(ws.dir, ["task", "finish", "T-2", "--unverified"], asBob).code).toBe(0);
    appendFileSync(config, '\n[roles.late]\nsummary = "after the finish"\n');
    expect(cairn(ws.dir, ["task", "list"]).code).toBe(0);
    expect(page()?.map((change) => [change.sections, change.first_seen_in_call_of])).toEqual([
      [["done"], "owner"],
    ]);
    expect(lastChange(ws.dir)?.sections).toEqual(["roles.late"]);
  });

  it("an agent that loosens the rules, then adds its own task and finishes it, finds the change on the task's page", () => {
    const builder = addAgent(ws.dir, "bob", "builder");
    const asBob = { env: { CAIRN_AGENT: builder.token } };
    const strict = readFileSync(config, "utf8");
    writeFileSync(config, strict.replace(/^shortcuts = \["test"\]$/m, "shortcuts = []"));
    const added = cairn(ws.dir, ["task", "add", "Bob's own task", "--json"], asBob);
    expect(added.code, added.stderr).toBe(0);
    expect(cairn(ws.dir, ["task", "claim", "T-2"], asBob).code).toBe(0);
    expect(cairn(ws.dir, ["task", "finish", "T-2", "--unverified"], asBob).code).toBe(0);
    writeFileSync(config, strict);
    expect(cairn(ws.dir, ["whoami"]).code).toBe(0);
    const shown = cairn(ws.dir, ["task", "show", "T-2", "--json"]).json as {
      rules_changed_since_added?: Change[];
    };
    expect(
      shown.rules_changed_since_added?.map((change) => [change.sections, change.first_seen_in_call_of]),
    ).toEqual([[["done"], `${builder.id} (bob)`]]);
    // A task the owner added after the owner's own change lists none.
    expect(arrange(ws.dir, ["task", "add", "Owner's task"]).code).toBe(0);
    expect(
      (cairn(ws.dir, ["task", "show", "T-3", "--json"]).json as Record<string, unknown>)
        .rules_changed_since_added,
    ).toBeUndefined();
  });

  it("an agent that loosens the rules, then makes a harmless change before adding its own task, finds both on the task's page", () => {
    const builder = addAgent(ws.dir, "bob", "builder");
    const asBob = { env: { CAIRN_AGENT: builder.token } };
    const strict = readFileSync(config, "utf8");
    writeFileSync(config, strict.replace(/^shortcuts = \["test"\]$/m, "shortcuts = []"));
    expect(cairn(ws.dir, ["task", "list"], asBob).code).toBe(0);
    // A second edit of its own: the task's page opened at it alone, and the emptied [done] was left out.
    appendFileSync(config, "\n[roles.dummy]\n");
    expect(cairn(ws.dir, ["task", "list"], asBob).code).toBe(0);
    expect(cairn(ws.dir, ["task", "add", "Bob's own task"], asBob).code).toBe(0);
    expect(cairn(ws.dir, ["task", "claim", "T-2"], asBob).code).toBe(0);
    expect(cairn(ws.dir, ["task", "finish", "T-2", "--unverified"], asBob).code).toBe(0);
    const shown = cairn(ws.dir, ["task", "show", "T-2", "--json"]).json as {
      rules_changed_since_added?: Change[];
    };
    expect(shown.rules_changed_since_added?.map((change) => change.sections)).toEqual([
      ["roles.dummy"],
      ["done"],
    ]);
  });

  it("a finish through a server of another checkout of the board, whose file is looser, is noted at that write", async () => {
    // Another checkout of the same board (a teammate's clone, here a folder reached by
    // CAIRN_DIR): its own cairn.toml, the same database.
    const other = join(ws.dir, "other");
    mkdirSync(join(other, ".cairn"), { recursive: true });
    symlinkSync(join(ws.dir, ".cairn", "cairn.db"), join(other, ".cairn", "cairn.db"));
    const looser = readFileSync(config, "utf8").replace(/^shortcuts = \["test"\]$/m, "shortcuts = []");
    writeFileSync(join(other, ".cairn", "cairn.toml"), looser);
    const builder = addAgent(ws.dir, "bob", "builder");
    const server = await connectMcp(ws.dir, { env: { CAIRN_AGENT: builder.token, CAIRN_DIR: other } });
    try {
      // The server notes its file's rules once; the owner's next call, in the main checkout, notes them back.
      expect((await callTool(server, "whoami")).isError).toBeFalsy();
      expect(cairn(ws.dir, ["task", "add", "Ship it", "--json"]).code).toBe(0);
      expect(cairn(ws.dir, ["task", "claim", "T-2"], { env: { CAIRN_AGENT: builder.token } }).code).toBe(0);
      const finished = await callTool(server, "finish_task", { task: "T-2", unverified: true });
      expect(finished.structuredContent).toMatchObject({ task: "T-2", result: "done" });
      const shown = cairn(ws.dir, ["task", "show", "T-2", "--json"]).json as {
        rules_changed_since_added?: Change[];
      };
      expect(shown.rules_changed_since_added?.map((change) => change.sections)).toEqual([["done"]]);
    } finally {
      await server.close();
    }
  });
});
