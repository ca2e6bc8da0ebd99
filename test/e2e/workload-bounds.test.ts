import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { callTool, connectMcp } from "../helpers/mcp.js";
import { addAgent, arrange, cairn, initWorkspace, scratchDir, uniqueName } from "../helpers/workspace.js";

/**
 * One agent with an ordinary grant must not, in a call or two, make the workspace slow or stuck
 * for everyone else: a write holds the workspace's one write lock, so its cost is every other
 * writer's wait.
 */

let ws: { dir: string; cleanup: () => void };
let scratch: { dir: string; cleanup: () => void };
beforeEach(() => {
  ws = initWorkspace();
  scratch = scratchDir();
});
afterEach(() => {
  ws.cleanup();
  scratch.cleanup();
});

/**
 * A workspace, restored from an edited export, holding `length` tasks T-2 → T-1 … each depending
 * on the one before, written by `bob`; bob's token still works there. Far faster than adding them.
 */
function chainWorkspace(length: number): { dir: string; env: Record<string, string> } {
  const bob = addAgent(ws.dir, "bob", "dev");
  expect(cairn(ws.dir, ["task", "add", "link 1"], { env: { CAIRN_AGENT: bob.token } }).code).toBe(0);
  const file = join(scratch.dir, "chain.jsonl");
  expect(cairn(ws.dir, ["export", "--out", file]).code).toBe(0);
  const lines = readFileSync(file, "utf8").trimEnd().split("\n");
  const header = JSON.parse(lines[0] as string);
  const first = JSON.parse(lines.find((line) => line.includes('"table":"tasks"')) as string);
  const added: string[] = [];
  for (let n = 2; n <= length; n++) {
    const row = {
      ...first.row,
      seq: n,
      id: `T-${n}`,
      title: `link ${n}`,
      sort_path: String(n).padStart(9, "0"),
    };
    added.push(JSON.stringify({ table: "tasks", row }));
    added.push(
      JSON.stringify({ table: "task_dependencies", row: { task_id: `T-${n}`, depends_on: `T-${n - 1}` } }),
    );
  }
  header.rows += added.length;
  writeFileSync(file, `${[JSON.stringify(header), ...lines.slice(1), ...added].join("\n")}\n`);
  const dir = join(scratch.dir, uniqueName("chain"));
  mkdirSync(dir);
  const imported = cairn(dir, ["import", file]);
  expect(imported.code, imported.stderr).toBe(0);
  return { dir, env: { CAIRN_AGENT: bob.token } };
}

describe("a write's cost is bounded by what it touches, not by what it names many times", () => {
  it("task depend naming a thousand tasks atop a long chain walks the chain once", () => {
    const { dir, env } = chainWorkspace(3000);
    expect(cairn(dir, ["task", "add", "on top"], { env }).code).toBe(0);
    const on = Array.from({ length: 1000 }, (_, i) => ["--on", `T-${3000 - i}`]).flat();
    const started = Date.now();
    // Walking the chain once per named task took about a minute (holding the write lock, so every
    // other writer failed with "database is locked"); once for all of them takes well under a second.
    const depend = cairn(dir, ["task", "depend", "T-3001", ...on, "--json"], { env, timeoutMs: 20_000 });
    expect(depend.code, depend.stderr).toBe(0);
    expect(Date.now() - started).toBeLessThan(8_000);
    expect((depend.json as { depends_on: unknown[] }).depends_on).toHaveLength(1000);
    // A cycle through the chain is still found, and named.
    const loop = cairn(dir, ["task", "depend", "T-1", "--on", "T-3001", "--json"], { env });
    expect(loop.code).toBe(3);
    expect(loop.json).toMatchObject({ refused: { policy: "dependencies" } });
  });
});

describe("what every agent reads stays small whatever one agent wrote", () => {
  it("a goal update's journal line names what changed: activity and now do not carry its texts", async () => {
    const env = { CAIRN_AGENT: addAgent(ws.dir, "bob", "dev").token };
    expect(cairn(ws.dir, ["goal", "create", "make search fast"], { env }).code).toBe(0);
    const argv = ["goal", "update", "G-1"];
    for (let i = 0; i < 12; i++) {
      argv.push("--proofs", JSON.stringify({ name: `p${i}`, description: "d".repeat(64 * 1024) }));
    }
    const mcp = await connectMcp(ws.dir, { env });
    try {
      const updated = await callTool(mcp, "cli", { argv });
      expect((updated.structuredContent as { exit_code: number }).exit_code).toBe(0);
    } finally {
      await mcp.close();
    }
    // 12 descriptions of 64 KiB: the journal line carried all 786 KB of them to every reader.
    for (const view of ["activity", "now"]) {
      const read = cairn(ws.dir, [view, "--json"]);
      expect(read.code, read.stderr).toBe(0);
      expect(read.stdout.length).toBeLessThan(100_000);
    }
    const line = (
      cairn(ws.dir, ["activity", "--json"]).json as { events: { action: string; data: unknown }[] }
    ).events.find((event) => event.action === "goal.update");
    expect(line?.data).toMatchObject({ fields: ["proofs"], proofs: expect.arrayContaining(["p0", "p11"]) });
  });

  it("a contract's history keeps what each change touched, not the whole contract twice", async () => {
    const env = { CAIRN_AGENT: addAgent(ws.dir, "bob", "dev").token };
    expect(cairn(ws.dir, ["goal", "create", "make search fast"], { env }).code).toBe(0);
    const argv = ["goal", "update", "G-1"];
    for (let i = 0; i < 12; i++) {
      argv.push("--proofs", JSON.stringify({ name: `p${i}`, description: "d".repeat(64 * 1024) }));
    }
    const mcp = await connectMcp(ws.dir, { env });
    try {
      expect(
        ((await callTool(mcp, "cli", { argv })).structuredContent as { exit_code: number }).exit_code,
      ).toBe(0);
    } finally {
      await mcp.close();
    }
    // Each tweak of one threshold stored the 786 KB contract twice, and goal show lists them all.
    for (let threshold = 1; threshold <= 5; threshold++) {
      const tweak = JSON.stringify({ name: "p0", threshold });
      expect(cairn(ws.dir, ["goal", "update", "G-1", "--proofs", tweak], { env }).code).toBe(0);
    }
    const shown = cairn(ws.dir, ["goal", "show", "G-1", "--json"]);
    expect(shown.code, shown.stderr).toBe(0);
    const history = (shown.json as { history: { fields: string[]; before: unknown; after: unknown }[] })
      .history;
    expect(history).toHaveLength(6);
    for (const change of history.slice(1)) {
      expect(change.fields).toEqual(["proofs"]);
      expect(JSON.stringify(change).length).toBeLessThan(300_000);
      expect(change.after).toMatchObject({ proofs: [{ name: "p0" }] });
    }
    expect(history[5]?.before).toMatchObject({ proofs: [{ name: "p0", threshold: 4 }] });
    expect(history[5]?.after).toMatchObject({ proofs: [{ name: "p0", threshold: 5 }] });
  });

  it("a goal contract holds at most 1 MiB as JSON, whatever each field's own limit allows", async () => {
    const env = { CAIRN_AGENT: addAgent(ws.dir, "bob", "dev").token };
    expect(cairn(ws.dir, ["goal", "create", "make search fast"], { env }).code).toBe(0);
    const mcp = await connectMcp(ws.dir, { env });
    const cli = async (argv: string[]) =>
      (await callTool(mcp, "cli", { argv })).structuredContent as {
        exit_code: number;
        output: { refused?: { policy: string; reason: string } };
      };
    try {
      const proofs = Array.from({ length: 20 }, (_, i) => [
        "--proofs",
        JSON.stringify({ name: `p${i}`, description: "d".repeat(64 * 1024) }),
      ]).flat();
      const tooMany = await cli(["goal", "update", "G-1", ...proofs]);
      expect(tooMany.exit_code).toBe(3);
      expect(tooMany.output.refused).toMatchObject({ policy: "contract" });
      expect(tooMany.output.refused?.reason).toContain("at most 1048576 characters");
      const constraints = Array.from({ length: 5 }, () => ["--constraints", "c".repeat(256 * 1024)]).flat();
      expect((await cli(["goal", "update", "G-1", ...constraints])).exit_code).toBe(3);
      // An outcome at its limit and two constraints at theirs fit.
      const fits = ["--outcome", "o".repeat(256 * 1024), ...constraints.slice(0, 4)];
      expect((await cli(["goal", "update", "G-1", ...fits])).exit_code).toBe(0);
    } finally {
      await mcp.close();
    }
  });

  it("a task holds at most 1000 criteria, added at once or one at a time", async () => {
    const env = { CAIRN_AGENT: addAgent(ws.dir, "bob", "dev").token };
    const mcp = await connectMcp(ws.dir, { env });
    const cli = async (argv: string[]) =>
      (await callTool(mcp, "cli", { argv })).structuredContent as {
        exit_code: number;
        output: { refused?: { policy: string; reason: string } };
      };
    try {
      const criteria = Array.from({ length: 1000 }, (_, i) => ["--criteria", `criterion ${i}`]).flat();
      expect((await cli(["task", "add", "mine", ...criteria])).exit_code).toBe(0);
      const more = await cli(["task", "criterion", "T-1", "--text", "one more", "--verify", "true"]);
      expect(more.exit_code).toBe(3);
      expect(more.output.refused).toMatchObject({ policy: "criteria" });
      expect(more.output.refused?.reason).toContain("already has 1000 criteria");
      expect((await cli(["task", "add", "other"])).exit_code).toBe(0);
      expect((await cli(["task", "criterion", "T-2", "--text", "fine"])).exit_code).toBe(0);
    } finally {
      await mcp.close();
    }
  });

  it("status, now and board show long questions and block reasons as previews, whole in task show", async () => {
    expect(cairn(ws.dir, ["task", "add", "the owner's"]).code).toBe(0);
    const reader = { CAIRN_AGENT: addAgent(ws.dir, "rev", "reviewer", ["--grant", "ro"]).token };
    const writer = { CAIRN_AGENT: addAgent(ws.dir, "bob", "dev").token };
    const long = (n: number) => `${"q".repeat(256 * 1024 - 4)}${String(n).padStart(4, "0")}`;
    // 45 questions a read-only agent may ask, and 45 blocks: each view passed 10 MB, what an MCP
    // client reads in one message, so status and now failed for every agent.
    const asker = await connectMcp(ws.dir, { env: reader });
    const blocker = await connectMcp(ws.dir, { env: writer });
    try {
      for (let n = 0; n < 45; n++) {
        const asked = await callTool(asker, "cli", { argv: ["ask", "T-1", long(n)] });
        expect((asked.structuredContent as { exit_code: number }).exit_code).toBe(0);
        const added = await callTool(blocker, "cli", { argv: ["task", "add", `blocked ${n}`] });
        const id = (added.structuredContent as { output: { task: { id: string } } }).output.task.id;
        await callTool(blocker, "cli", { argv: ["task", "claim", id] });
        const blocked = await callTool(blocker, "cli", { argv: ["task", "block", id, "--reason", long(n)] });
        expect((blocked.structuredContent as { exit_code: number }).exit_code).toBe(0);
      }
      for (const view of ["status", "now", "board"]) {
        const read = await callTool(asker, "cli", { argv: [view] });
        expect(read.isError, JSON.stringify(read.content).slice(0, 300)).toBe(false);
        expect(JSON.stringify(read.structuredContent).length).toBeLessThan(1_000_000);
      }
    } finally {
      await asker.close();
      await blocker.close();
    }
    const status = cairn(ws.dir, ["status", "--json"]).json as {
      board: { blocked: { why: string }[]; open_asks: { question: string }[] };
    };
    expect(status.board.blocked.find((b) => b.why.startsWith("q"))?.why).toMatch(
      /^q{500}… \[261644 more characters\]$/,
    );
    expect(status.board.open_asks[0]?.question).toMatch(/more characters\]$/);
    const shown = cairn(ws.dir, ["task", "show", "T-2", "--json"]).json as {
      task: { blocked_reason: string };
    };
    expect(shown.task.blocked_reason).toBe(long(0));
  });

  it("note list previews each note's long fields, whole in note show, after a read-only agent's flood", async () => {
    expect(cairn(ws.dir, ["task", "add", "the owner's"]).code).toBe(0);
    const reader = { CAIRN_AGENT: addAgent(ws.dir, "rev", "reviewer", ["--grant", "ro"]).token };
    const long = (n: number) => `${"f".repeat(256 * 1024 - 4)}${String(n).padStart(4, "0")}`;
    // 45 findings of 256 KiB made the default page (50 notes) an answer of 22.5 MB over MCP, text
    // and structured copy: refused as too large to send, so no agent could list the notes at all.
    const agent = await connectMcp(ws.dir, { env: reader });
    try {
      for (let n = 0; n < 45; n++) {
        const added = await callTool(agent, "cli", {
          argv: ["note", "add", "finding", "--scope", "T-1", "--severity", "minor", "--text", long(n)],
        });
        expect((added.structuredContent as { exit_code: number }).exit_code).toBe(0);
      }
      const listed = await callTool(agent, "cli", { argv: ["note", "list", "--scope", "T-1"] });
      expect(listed.isError, JSON.stringify(listed.content).slice(0, 300)).toBe(false);
      const notes = (listed.structuredContent as { output: { notes: { id: string; text: string }[] } }).output
        .notes;
      expect(notes).toHaveLength(45);
      expect(JSON.stringify(notes).length).toBeLessThan(100_000);
      expect(notes[0]?.text).toBe(
        `${"f".repeat(1_000)}… [261144 more characters; whole: \`cairn note show ${notes[0]?.id}\`]`,
      );
      const shown = await callTool(agent, "cli", { argv: ["note", "show", notes[0]?.id as string] });
      expect((shown.structuredContent as { output: { note: { text: string } } }).output.note.text).toBe(
        long(44),
      );
    } finally {
      await agent.close();
    }
  });
});

/** `--flag value` once per value, as the CLI takes a list. */
const each = (flag: string, values: readonly string[]) => values.flatMap((value) => [flag, value]);

describe("lists any writer can grow are paged or capped, and read a page from the store", () => {
  it("risk list and glossary list come a page at a time, worst risk first, with total and next_offset", () => {
    const env = { CAIRN_AGENT: addAgent(ws.dir, "bob", "dev").token };
    const big = "i".repeat(16 * 1024);
    for (let n = 0; n < 30; n++) {
      const [impact, likelihood] = n % 3 === 0 ? ["high", "high"] : ["low", "medium"];
      const risk = ["risk", "add", `risk ${n}`, "--impact", `${impact}`, "--likelihood", `${likelihood}`];
      expect(arrange(ws.dir, [...risk, "--indicators", big, "--action", big], { env }).code).toBe(0);
      expect(
        arrange(ws.dir, ["glossary", "set", `term${String(n).padStart(2, "0")}`, big], { env }).code,
      ).toBe(0);
    }
    // Every risk and term was sent whole: 30 risks of 32 KiB made 1 MB; 100 of 200 KB made 20 MB,
    // past what an MCP client reads in one message, and no parameter narrowed it.
    const risks = cairn(ws.dir, ["risk", "list", "--json"]);
    expect(risks.code, risks.stderr).toBe(0);
    expect(risks.stdout.length).toBeLessThan(400_000);
    type Risks = { risks: { id: string; rank: number }[]; total: number; next_offset: number | null };
    const first = risks.json as Risks;
    expect(first.total).toBe(30);
    expect(first.next_offset).toBe(10);
    // The worst ten, oldest first among equals: ranked in the store, not after reading every risk.
    expect(first.risks.map((risk) => risk.id)).toEqual(
      Array.from({ length: 10 }, (_, i) => `RK-${3 * i + 1}`),
    );
    expect(first.risks.every((risk) => risk.rank === 1)).toBe(true);
    const rest = arrange(ws.dir, ["risk", "list", "--offset", "25", "--limit", "100", "--json"])
      .json as Risks;
    expect(rest.risks.map((risk) => risk.id)).toEqual(["RK-24", "RK-26", "RK-27", "RK-29", "RK-30"]);
    expect(rest.next_offset).toBeNull();
    expect(arrange(ws.dir, ["risk", "list", "--limit", "1000"]).code).toBe(2);
    expect(arrange(ws.dir, ["risk", "list"]).stdout).toContain("(10 of 30; next: --offset 10)");

    const terms = cairn(ws.dir, ["glossary", "list", "--json"]);
    expect(terms.code, terms.stderr).toBe(0);
    type Terms = { terms: { term: string }[]; total: number; next_offset: number | null };
    expect(terms.json).toMatchObject({ total: 30, next_offset: 25 });
    expect((terms.json as Terms).terms.map((entry) => entry.term).slice(0, 3)).toEqual([
      "term00",
      "term01",
      "term02",
    ]);
    const last = arrange(ws.dir, ["glossary", "list", "--offset", "25", "--json"]).json as Terms;
    expect(last.terms.map((entry) => entry.term)).toEqual(["term25", "term26", "term27", "term28", "term29"]);
    expect(last.next_offset).toBeNull();
  });

  it("activity and now show an event's data as a preview: long lists cut with a count, each event bounded", () => {
    const env = { CAIRN_AGENT: addAgent(ws.dir, "bob", "dev").token };
    // A shortcut.add event keeps the command, its roles and the command it replaced: 1000 roles
    // of 200 characters and two commands of 15 KB are 230 KB an event, all of it shown.
    const roles = Array.from({ length: 1000 }, (_, i) => `role-${i}-${"r".repeat(180)}`);
    const argv = Array.from({ length: 200 }, (_, i) => `word${i}-${"w".repeat(70)}`);
    for (let n = 0; n < 8; n++) {
      const added = arrange(
        ws.dir,
        ["shortcut", "add", "big", "--effect", "none", ...each("--argv", argv), ...each("--role", roles)],
        { env },
      );
      expect(added.code, added.stderr).toBe(0);
    }
    for (const view of ["activity", "now"]) {
      const read = cairn(ws.dir, [view, "--json"]);
      expect(read.code, read.stderr).toBe(0);
      expect(read.stdout.length).toBeLessThan(150_000);
    }
    type Events = { events: { action: string; data: Record<string, unknown> }[] };
    const event = (arrange(ws.dir, ["activity", "--json"]).json as Events).events.find(
      (found) => found.action === "shortcut.add",
    );
    expect(JSON.stringify(event?.data).length).toBeLessThan(10_000);
    const shown = event?.data.roles as string[];
    expect(shown.slice(0, 2)).toEqual(roles.slice(0, 2));
    expect(shown.at(-1)).toMatch(/^… \[\d+ more items\]$/);
    expect(event?.data).toMatchObject({ version: 8, effect: "none" });
  });

  it("topics lists the most used first, at most a limit of them, with how many there are", () => {
    const env = { CAIRN_AGENT: addAgent(ws.dir, "bob", "dev").token };
    const topic = (n: number, t: number) => `topic-${n}-${t}-${"t".repeat(48)}`;
    for (let n = 0; n < 100; n++) {
      const topics = ["shared", ...Array.from({ length: 15 }, (_, t) => topic(n, t))];
      const remembered = arrange(ws.dir, ["remember", `fact number ${n}`, ...each("--topics", topics)], {
        env,
      });
      expect(remembered.code, remembered.stderr).toBe(0);
    }
    // 1,501 topics were listed whole (160 KB), growing with every fact any agent remembers.
    const read = cairn(ws.dir, ["topics", "--json"]);
    expect(read.code, read.stderr).toBe(0);
    expect(read.stdout.length).toBeLessThan(20_000);
    const listed = read.json as { topics: { topic: string; count: number }[]; total: number };
    expect(listed.total).toBe(1501);
    expect(listed.topics).toHaveLength(100);
    expect(listed.topics[0]).toEqual({ topic: "shared", count: 100 });
    const two = arrange(ws.dir, ["topics", "--limit", "2", "--json"]).json as typeof listed;
    expect(two.topics.map((entry) => entry.count)).toEqual([100, 1]);
    expect(arrange(ws.dir, ["topics", "--limit", "100000"]).code).toBe(2);
  });

  it("queue list is paged and shows each queue's current step without reading every step", () => {
    const env = { CAIRN_AGENT: addAgent(ws.dir, "bob", "dev").token };
    for (let n = 0; n < 60; n++) {
      const steps = Array.from({ length: 60 }, (_, i) => `${n}/${i} ${"s".repeat(4000)}`);
      const added = arrange(ws.dir, ["queue", "add", `q${n}`, ...each("--step", steps)], { env });
      expect(added.code, added.stderr).toBe(0);
    }
    expect(arrange(ws.dir, ["queue", "advance", "q1", "--key", "k1"], { env }).code).toBe(0);
    expect(arrange(ws.dir, ["queue", "advance", "q1", "--key", "k2"], { env }).code).toBe(0);
    const read = cairn(ws.dir, ["queue", "list", "--json"]);
    expect(read.code, read.stderr).toBe(0);
    type Queues = {
      queues: { name: string; cursor: number; total: number; step: string | null; added_by: string }[];
      total: number;
      next_offset: number | null;
    };
    const page = read.json as Queues;
    expect(page.total).toBe(60);
    expect(page.next_offset).toBe(50);
    expect(page.queues).toHaveLength(50);
    expect(page.queues[1]).toMatchObject({ name: "q1", cursor: 2, total: 60, added_by: "A-1 (bob)" });
    expect(page.queues[1]?.step?.startsWith("1/2 s")).toBe(true);
    const rest = arrange(ws.dir, ["queue", "list", "--offset", "50", "--json"]).json as Queues;
    expect(rest.queues.map((queue) => queue.name)).toEqual(
      Array.from({ length: 10 }, (_, i) => `q${50 + i}`),
    );
    expect(rest.next_offset).toBeNull();
  });

  it("a criterion's shortcut params hold at most 16 KiB in all, as the command they fill: refused naming the limit", () => {
    const env = { CAIRN_AGENT: addAgent(ws.dir, "paramer", "dev").token };
    arrange(ws.dir, ["shortcut", "add", "greet", "--argv", "echo", "--argv", "{{who}}", "--effect", "read"], {
      env,
    });
    const task = (
      cairn(ws.dir, ["task", "add", "its own", "--json"], { env }).json as { task: { id: string } }
    ).task.id;
    // Each pair within a word's limit: a thousand of them made one criterion of 4 MB, read whole
    // with every show and brief of its task (eight took `task show` to 150 MB).
    const pairs = (count: number) =>
      Array.from({ length: count }, (_, n) => `p${n}=${"v".repeat(4_000)}`).flatMap((pair) => [
        "--params",
        pair,
      ]);
    const criterion = (count: number) =>
      cairn(
        ws.dir,
        [
          "task",
          "criterion",
          task,
          "--text",
          "greets",
          "--shortcut",
          "greet",
          "--params",
          "who=x",
          ...pairs(count),
          "--json",
        ],
        { env },
      );
    const refused = criterion(5);
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toContain("params hold at most 16384 characters in all (these have 20");
    expect(refused.stderr.length).toBeLessThan(2_000);
    const shown = cairn(ws.dir, ["task", "show", task, "--json"]).json as { criteria: unknown[] };
    expect(shown.criteria).toHaveLength(0);
    expect(criterion(0).code).toBe(0);
  });

  it("a shortcut's command holds at most 16 KiB in all: refused naming the limit, the value quoted cut", () => {
    const env = { CAIRN_AGENT: addAgent(ws.dir, "bob", "dev").token };
    // 256 words of 4 KiB each passed every word's limit: 1 MiB a shortcut, which every shortcut
    // list and every brief read whole (160 of them made a list 160 MB).
    const words = Array.from({ length: 256 }, (_, i) => `${i}${"a".repeat(4096 - String(i).length)}`);
    const refused = arrange(
      ws.dir,
      ["shortcut", "add", "huge", "--effect", "none", ...each("--argv", words)],
      { env },
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("argv holds at most 16384 characters in all (this one has 1048576");
    expect(refused.stderr).toContain("(1048831 characters)");
    expect(refused.stderr.length).toBeLessThan(2_000);
    expect(cairn(ws.dir, ["shortcut", "list", "--json"]).stdout).not.toContain('"huge"');
    const fits = arrange(
      ws.dir,
      ["shortcut", "add", "fits", "--effect", "none", ...each("--argv", words.slice(0, 4))],
      { env },
    );
    expect(fits.code, fits.stderr).toBe(0);
    // A criterion's verify command holds as much, and no more: it is in every show of its task.
    const verify = (argv: string[]) =>
      arrange(
        ws.dir,
        ["task", "add", "checked", "--criteria", JSON.stringify({ text: "runs", verify: argv }), "--json"],
        {
          env,
        },
      );
    const tooLong = verify(words.slice(0, 5));
    expect(tooLong.code).toBe(2);
    expect(tooLong.stderr).toContain(
      "verify's words hold at most 16384 characters in all (these have 20480)",
    );
    expect(verify(words.slice(0, 4)).code).toBe(0);
    // A caller can learn these totals before it meets them: capabilities lists them beside the fields'.
    const { limits } = cairn(ws.dir, ["capabilities", "--json"]).json as {
      limits: { totals: { chars: Record<string, number>; items: Record<string, number> } };
    };
    expect(limits.totals).toEqual({
      chars: {
        "shortcut command": 16_384,
        "criterion verify command": 16_384,
        "criterion shortcut params": 16_384,
        "queue steps": 262_144,
        "goal contract, as JSON": 1_048_576,
      },
      items: { "criteria of a task": 1_000 },
    });
  });
});
