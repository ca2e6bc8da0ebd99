import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { channelOf } from "../../src/store/postgres/pg-store.js";
import { gitWorkspace } from "../helpers/goals.js";
import { callTool, connectMcp, INITIALIZE, type McpHandle } from "../helpers/mcp.js";
import { skillMd, writeTree } from "../helpers/skills.js";
import {
  addAgent,
  arrange,
  CAIRN_BIN,
  cairn,
  cairnAsync,
  cleanEnv,
  initWorkspace,
  STORE_UNDER_TEST,
  testPgUrl,
} from "../helpers/workspace.js";

/**
 * Changes pushed to MCP clients, on the store under test: a `cairn mcp` driven by the SDK's
 * client holds subscriptions while other processes (the CLI, a second server) write.
 */

interface Heard {
  method: string;
  uri?: string;
  at: number;
}

/** Every notification a client hears, and a way to wait for the next one that matches. */
function listen(handle: McpHandle) {
  const heard: Heard[] = [];
  const waiters: { match: (h: Heard) => boolean; resolve: (h: Heard) => void }[] = [];
  const push = (entry: Heard) => {
    heard.push(entry);
    for (const waiter of [...waiters]) {
      if (!waiter.match(entry)) continue;
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve(entry);
    }
  };
  handle.client.setNotificationHandler("notifications/resources/updated", (note) =>
    push({ method: "updated", uri: note.params.uri, at: performance.now() }),
  );
  for (const kind of ["resources", "tools"] as const) {
    handle.client.setNotificationHandler(`notifications/${kind}/list_changed`, () =>
      push({ method: `${kind}/list_changed`, at: performance.now() }),
    );
  }
  /** The next notification matching, heard after `since` (an index into `heard`). */
  const next = (match: (h: Heard) => boolean, since = heard.length, timeoutMs = 15_000) => {
    const already = heard.slice(since).find(match);
    if (already) return Promise.resolve(already);
    return new Promise<Heard>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`not heard; heard ${JSON.stringify(heard.slice(since))}`)),
        timeoutMs,
      );
      waiters.push({
        match,
        resolve: (h) => {
          clearTimeout(timer);
          resolve(h);
        },
      });
    });
  };
  return { heard, next };
}

const updated = (uri: string) => (h: Heard) => h.method === "updated" && h.uri === uri;
const TASK1 = "cairn://task/T-1";
const TASK2 = "cairn://task/T-2";
const note = (scope: string, text: string) => [
  "note",
  "add",
  "finding",
  "--scope",
  scope,
  "--text",
  text,
  "--severity",
  "minor",
];

/** PostgreSQL backends listening for this workspace's changes (0 on SQLite: there are none). */
async function listenersOf(dir: string): Promise<() => Promise<number>> {
  if (STORE_UNDER_TEST !== "postgres") return async () => 0;
  const system = cairn(dir, ["system", "--json"]).json as { database: string };
  const name = `cairn listen ${channelOf(/\(schema ([^)]+)\)$/.exec(system.database)?.[1] as string)}`;
  return async () => {
    const db = new pg.Client({ connectionString: testPgUrl() });
    await db.connect();
    try {
      const found = await db.query<{ n: string }>(
        "SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = $1",
        [name],
      );
      return Number(found.rows[0]?.n);
    } finally {
      await db.end();
    }
  };
}

let ws: { dir: string; cleanup: () => void };
let mcp: McpHandle;
let ears: ReturnType<typeof listen>;

beforeAll(async () => {
  ws = initWorkspace();
  for (const title of ["subscribed task", "unsubscribed task"]) arrange(ws.dir, ["task", "add", title]);
  writeTree(join(ws.dir, ".claude", "skills"), {
    "demo/SKILL.md": skillMd({ name: "demo", description: "Use when: a demo is needed" }, "first body\n"),
    "demo/references/deep/guide.md": "first guide\n",
  });
  mcp = await connectMcp(ws.dir);
  ears = listen(mcp);
});
afterAll(async () => {
  await mcp?.close();
  ws?.cleanup();
});

describe(`MCP resource subscriptions (${STORE_UNDER_TEST})`, () => {
  it("declares resources with subscribe and listChanged", () => {
    expect(mcp.client.getServerCapabilities()?.resources).toMatchObject({
      subscribe: true,
      listChanged: true,
    });
  });

  it("a CLI write updates the subscribed task, not an unsubscribed one; a new task changes the list", async () => {
    await mcp.client.subscribeResource({ uri: TASK1 });
    await expect(mcp.client.subscribeResource({ uri: "cairn://task/T-999" })).rejects.toThrow();
    const since = ears.heard.length;
    expect(cairn(ws.dir, note("T-2", "only about the second task")).code).toBe(0);
    expect(cairn(ws.dir, note("T-1", "about the subscribed task")).code).toBe(0);
    await ears.next(updated(TASK1), since);
    // Notifications arrive in order: one about T-2 would have come before T-1's.
    expect(ears.heard.slice(since).filter((h) => h.uri === TASK2)).toEqual([]);
    expect(ears.heard.slice(since).some((h) => h.method === "resources/list_changed")).toBe(false);

    // Unsubscribed: T-1 falls silent; the board (still subscribed) and the list speak for a new task.
    await mcp.client.subscribeResource({ uri: "cairn://board" });
    await mcp.client.unsubscribeResource({ uri: TASK1 });
    const later = ears.heard.length;
    expect(cairn(ws.dir, note("T-1", "nobody listens to this one")).code).toBe(0);
    expect(cairn(ws.dir, ["task", "add", "a third task"]).code).toBe(0);
    await ears.next((h) => h.method === "resources/list_changed", later);
    await ears.next(updated("cairn://board"), later);
    expect(ears.heard.slice(later).filter((h) => h.uri === TASK1)).toEqual([]);
    expect((await mcp.client.listResources()).resources.map((r) => r.uri)).toContain("cairn://task/T-3");
  });

  it("an unsubscribe sent with its subscribe wins: the task is not updated afterwards", async () => {
    const added = cairn(ws.dir, ["task", "add", "raced task", "--json"]).json as { task: { id: string } };
    const raced = `cairn://task/${added.task.id}`;
    await Promise.all([
      mcp.client.subscribeResource({ uri: raced }),
      mcp.client.unsubscribeResource({ uri: raced }),
    ]);
    // Subscribed after: a leaked subscription to `raced` would be looked at, and heard, before it.
    const control = `cairn://task/${added.task.id.slice(2)}`;
    await mcp.client.subscribeResource({ uri: control });
    const since = ears.heard.length;
    expect(cairn(ws.dir, ["task", "claim", added.task.id]).code).toBe(0);
    await ears.next(updated(control), since);
    expect(ears.heard.slice(since).filter((h) => h.uri === raced)).toEqual([]);
    await mcp.client.unsubscribeResource({ uri: control });
  });

  it("a task subscribed by another spelling of its id is updated, under the URI subscribed", async () => {
    const added = cairn(ws.dir, ["task", "add", "spelled task", "--json"]).json as { task: { id: string } };
    const n = added.task.id.slice(2);
    // Ids spelled as a person types them, and URIs spelled as `resources/read` parses them (a URL:
    // scheme in capitals, spaces around it, a dot-segment), each read as the same task.
    const spellings = [
      `cairn://task/t-${n}`,
      `cairn://task/${n}`,
      `cairn://task/${n}/brief`,
      `CAIRN://task/T-${n}`,
      ` cairn://task/T-${n}/brief `,
      `cairn://task/T-999/../T-${n}`,
    ];
    const reader = await connectMcp(ws.dir);
    try {
      for (const uri of spellings)
        await expect(reader.client.readResource({ uri }), uri).resolves.toBeDefined();
      const own = listen(reader);
      for (const uri of spellings) await reader.client.subscribeResource({ uri });
      expect(cairn(ws.dir, ["task", "block", added.task.id, "--reason", "waiting on a spelling"]).code).toBe(
        0,
      );
      for (const uri of spellings) await own.next(updated(uri), 0);
      expect(own.heard.filter((h) => h.uri === `cairn://task/${added.task.id}`)).toEqual([]);
    } finally {
      await reader.close();
    }
  });

  it("refuses a URI padded past what a URI holds: a subscription cannot keep megabytes the URL parser drops", async () => {
    // Read as a URL, tabs and line breaks vanish: this reads as the board, and was kept whole,
    // a thousand times over, and sent back whole in every update.
    const padded = `cairn://board${"\t".repeat(2_000_000)}`;
    await expect(mcp.client.readResource({ uri: padded })).resolves.toBeDefined();
    const refused = await mcp.client.subscribeResource({ uri: padded }).then(
      () => undefined,
      (error: { code?: number; message?: string }) => error,
    );
    expect(refused?.code).toBe(-32602);
    expect(refused?.message).toMatch(/holds at most 4096 characters/);
    // Quoted cut, not echoed whole.
    expect(refused?.message?.length).toBeLessThan(1_000);
    // A URI of a sensible length, spaces around it, still subscribes.
    await expect(
      mcp.client.subscribeResource({ uri: ` cairn://board${" ".repeat(100)}` }),
    ).resolves.toBeDefined();
  });

  it("does not keep a subscription the client cancelled: it hears nothing of that resource afterwards", async () => {
    const added = cairn(ws.dir, ["task", "add", "cancelled watch", "--json"]).json as {
      task: { id: string };
    };
    const uri = `cairn://task/${added.task.id}`;
    const child = spawn(process.execPath, [CAIRN_BIN, "mcp"], { cwd: ws.dir, env: cleanEnv() });
    const lines: Record<string, unknown>[] = [];
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
      for (let at = out.indexOf("\n"); at !== -1; at = out.indexOf("\n")) {
        lines.push(JSON.parse(out.slice(0, at)));
        out = out.slice(at + 1);
      }
    });
    const line = (message: object) => `${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`;
    const answered = (id: string) => expect.poll(() => lines.some((l) => l.id === id), { timeout: 10_000 });
    const heardOf = (target: string) =>
      lines
        .filter((l) => l.method === "notifications/resources/updated")
        .map((l) => l.params)
        .filter((params) => (params as { uri: string }).uri === target);
    try {
      child.stdin.write(line({ id: "init", method: "initialize", params: INITIALIZE.params }));
      child.stdin.write(line({ method: "notifications/initialized" }));
      // A control first: the feed is watching, so the next subscription only reads its baseline.
      child.stdin.write(
        line({ id: "board", method: "resources/subscribe", params: { uri: "cairn://board" } }),
      );
      await answered("board").toBe(true);
      // The cancel in the same write as its request: it arrives while the baseline is read.
      child.stdin.write(
        line({ id: "gone", method: "resources/subscribe", params: { uri } }) +
          line({
            method: "notifications/cancelled",
            params: { requestId: "gone", reason: "changed my mind" },
          }),
      );
      child.stdin.write(line({ id: "ping", method: "ping" }));
      await answered("ping").toBe(true);
      expect(lines.some((l) => l.id === "gone")).toBe(false);
      expect(cairn(ws.dir, ["task", "claim", added.task.id]).code).toBe(0);
      await expect.poll(() => heardOf("cairn://board").length, { timeout: 10_000 }).toBeGreaterThan(0);
      // The task's update would come in the same look as the board's.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(heardOf(uri)).toEqual([]);
    } finally {
      child.kill();
    }
  });

  it("a burst of writes from another server gives notifications bounded by time, and never blocks a call", async () => {
    await mcp.client.subscribeResource({ uri: TASK2 });
    const writer = await connectMcp(ws.dir);
    try {
      const writes = 200;
      const since = ears.heard.length;
      const started = performance.now();
      let beforeLast = 0;
      const burst = (async () => {
        for (let i = 0; i < writes; i++) {
          if (i === writes - 1) beforeLast = ears.heard.length;
          await callTool(writer, "add_note", {
            kind: "finding",
            scope: "T-2",
            text: `burst ${i}`,
            severity: "minor",
          });
        }
      })();
      // The subscriber's own calls answer while the burst runs.
      const during = await callTool(mcp, "list_tasks", {});
      expect(during.isError).toBeFalsy();
      await burst;
      const elapsed = performance.now() - started;
      // The last write is not lost in the burst: an update comes after it was sent.
      const last = await ears.next(updated(TASK2), beforeLast);
      const count = ears.heard.slice(since).filter(updated(TASK2)).length;
      // At most one look per 100 ms (plus the first and the one after the end), whatever the writes.
      expect(count).toBeGreaterThan(0);
      expect(count).toBeLessThanOrEqual(Math.ceil((last.at - started) / 100) + 2);
      expect(count).toBeLessThan(writes / 2);
      console.log(`[${STORE_UNDER_TEST}] ${writes} writes in ${elapsed.toFixed(0)} ms → ${count} updates`);
    } finally {
      await writer.close();
    }
  }, 120_000);

  it("a subscribed skill file is updated when it changes on disk", async () => {
    const uri = "skill://demo/SKILL.md";
    await mcp.client.subscribeResource({ uri });
    const since = ears.heard.length;
    writeFileSync(
      join(ws.dir, ".claude", "skills", "demo", "SKILL.md"),
      skillMd({ name: "demo", description: "Use when: a demo is needed" }, "second body\n"),
    );
    await ears.next(updated(uri), since);
    const read = await mcp.client.readResource({ uri });
    expect((read.contents[0] as { text: string }).text).toContain("second body");
  });

  it("a subscribed skill file below the skill's folder is updated when it changes, and not after unsubscribing", async () => {
    const uri = "skill://demo/references/deep/guide.md";
    const guide = join(ws.dir, ".claude", "skills", "demo", "references", "deep", "guide.md");
    await mcp.client.subscribeResource({ uri });
    let since = ears.heard.length;
    writeFileSync(guide, "second guide\n");
    await ears.next(updated(uri), since);
    const read = await mcp.client.readResource({ uri });
    expect((read.contents[0] as { text: string }).text).toBe("second guide\n");
    await mcp.client.unsubscribeResource({ uri });
    since = ears.heard.length;
    writeFileSync(guide, "third guide\n");
    // Absence: given the watcher's settling and a few looks' time to show.
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(ears.heard.slice(since).filter(updated(uri))).toEqual([]);
  });

  it("hears a change shown inside what it reads: another task's status, a shortcut or goal in a brief, a note's trust", async () => {
    // A git checkout of its own: a goal's plan needs a base.
    const home = gitWorkspace();
    const id = (args: string[]) =>
      (cairn(home.dir, [...args, "--json"]).json as { task: { id: string } }).task.id;
    const dep = id(["task", "add", "a dependency"]);
    const dependent = id(["task", "add", "a dependent", "--depends-on", dep]);
    const goal = (
      cairn(home.dir, ["goal", "create", "make the feed honest", "--json"]).json as { goal: { id: string } }
    ).goal.id;
    const plan = cairn(home.dir, ["goal", "plan", goal, "--json"]).json as {
      milestones: { task_id: string }[];
    };
    const milestone = plan.milestones[0]?.task_id as string;
    const finding = (
      cairn(home.dir, [...note(dependent, "a finding to confirm"), "--json"]).json as { id: string }
    ).id;
    const reader = await connectMcp(home.dir);
    try {
      const own = listen(reader);
      const text = async (uri: string) =>
        ((await reader.client.readResource({ uri })).contents[0] as { text: string }).text;
      const watched = [
        `cairn://task/${dependent}`,
        `cairn://task/${dependent}/brief`,
        `cairn://task/${dep}`,
        `cairn://task/${milestone}/brief`,
        "cairn://board",
      ];
      for (const uri of watched) await reader.client.subscribeResource({ uri });
      /** After a write, every subscribed resource that reads differently has been announced. */
      const expectHeard = async (write: string[], token?: string) => {
        const before = new Map<string, string>();
        for (const uri of watched) before.set(uri, await text(uri));
        const since = own.heard.length;
        expect(cairn(home.dir, write, { env: { CAIRN_AGENT: token } }).code, write.join(" ")).toBe(0);
        const changed: string[] = [];
        for (const uri of watched) if ((await text(uri)) !== before.get(uri)) changed.push(uri);
        for (const uri of changed) await own.next(updated(uri), since, 5_000);
        return changed;
      };
      // The dependency's status shows in the dependent's task and brief.
      expect(await expectHeard(["task", "claim", dep])).toEqual(
        expect.arrayContaining([`cairn://task/${dependent}`, `cairn://task/${dependent}/brief`]),
      );
      // The dependent's status shows in the dependency's list of dependents.
      expect(await expectHeard(["task", "block", dependent, "--reason", "waiting"])).toContain(
        `cairn://task/${dep}`,
      );
      // Every brief lists the shortcuts; the board is the board and does not move with them.
      const shortcut = await expectHeard(["shortcut", "add", "lint", "--argv", "true", "--effect", "read"]);
      expect(shortcut).toContain(`cairn://task/${dependent}/brief`);
      expect(shortcut).not.toContain("cairn://board");
      // A milestone's brief says why: the goal's outcome.
      expect(await expectHeard(["goal", "update", goal, "--outcome", "no missed updates"])).toContain(
        `cairn://task/${milestone}/brief`,
      );
      // A task shows its notes with their trust.
      const checker = addAgent(home.dir, "checker", "reviewer");
      expect(await expectHeard(["note", "trust", finding, "confirmed"], checker.token)).toContain(
        `cairn://task/${dependent}`,
      );
    } finally {
      await reader.close();
      home.cleanup();
    }
  });

  it("a read-only agent hears what it can read; retired, it hears both lists changed and is listed no tools or resources", async () => {
    const agent = addAgent(ws.dir, "watcher", "reviewer", ["--grant", "ro"]);
    const viewer = await connectMcp(ws.dir, { env: { CAIRN_AGENT: agent.token } });
    try {
      const own = listen(viewer);
      expect((await viewer.client.listTools()).tools.length).toBeGreaterThan(0);
      await viewer.client.subscribeResource({ uri: TASK1 });
      expect(cairn(ws.dir, note("T-1", "seen by a reader")).code).toBe(0);
      await own.next(updated(TASK1), 0);
      const since = own.heard.length;
      expect(cairn(ws.dir, ["agent", "retire", "watcher"]).code).toBe(0);
      await own.next((h) => h.method === "tools/list_changed", since);
      await own.next((h) => h.method === "resources/list_changed", since);
      expect((await viewer.client.listTools()).tools).toEqual([]);
      expect((await viewer.client.listResources()).resources).toEqual([]);
      // Nothing more is pushed to a retired caller (absence: given three looks' time to show).
      expect(cairn(ws.dir, note("T-1", "not for the retired")).code).toBe(0);
      await new Promise((resolve) => setTimeout(resolve, 700));
      expect(own.heard.slice(since).filter((h) => h.method === "updated")).toEqual([]);
    } finally {
      await viewer.close();
    }
  });
});

describe("stopping", () => {
  it.each(["SIGTERM", "SIGINT"] as const)(
    "a subscribed server stops on %s: the process and its listener are gone",
    async (signal) => {
      const listeners = await listenersOf(ws.dir);
      const before = await listeners();
      const child = spawn(process.execPath, [CAIRN_BIN, "mcp"], { cwd: ws.dir, env: cleanEnv() });
      let out = "";
      const subscribed = new Promise<void>((resolve) =>
        child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
          out += chunk;
          if (out.includes('"id":2')) resolve();
        }),
      );
      const send = (message: object) =>
        child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
      send({
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
      });
      send({ method: "notifications/initialized" });
      send({ id: 2, method: "resources/subscribe", params: { uri: TASK1 } });
      await subscribed;
      if (STORE_UNDER_TEST === "postgres") await expect.poll(listeners, { timeout: 10_000 }).toBe(before + 1);
      const exited = new Promise<unknown>((resolve) => child.on("exit", (code, sig) => resolve(code ?? sig)));
      child.kill(signal);
      // Stopped by cairn itself, its children and listener first: 128 + the signal.
      expect(await exited).toBe(signal === "SIGTERM" ? 143 : 130);
      await expect.poll(listeners, { timeout: 10_000 }).toBe(before);
    },
  );
});

describe.runIf(STORE_UNDER_TEST === "postgres")("the PostgreSQL listener", () => {
  const listeners = async (db: pg.Client, channel: string) =>
    Number(
      (
        await db.query<{ n: string }>(
          "SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = $1",
          [`cairn listen ${channel}`],
        )
      ).rows[0]?.n,
    );

  it("ignores a forged payload, survives pg_terminate_backend, catches up on a write made meanwhile, leaves no connection", async () => {
    const system = cairn(ws.dir, ["system", "--json"]).json as { database: string };
    const schema = /\(schema ([^)]+)\)$/.exec(system.database)?.[1] as string;
    const channel = channelOf(schema);
    const db = new pg.Client({ connectionString: testPgUrl() });
    await db.connect();
    const server = await connectMcp(ws.dir);
    try {
      const own = listen(server);
      await server.client.subscribeResource({ uri: TASK2 });
      await expect.poll(() => listeners(db, channel), { timeout: 10_000 }).toBeGreaterThan(0);
      // A forged bell naming a far-off event is not believed: the next real write is still heard.
      await db.query("SELECT pg_notify($1, '999999999')", [channel]);
      const forged = own.heard.length;
      expect((await cairnAsync(ws.dir, note("T-2", "after a forged notification"))).code).toBe(0);
      await own.next(updated(TASK2), forged);
      const since = own.heard.length;
      // Keep killing this workspace's listeners until the write has committed: its NOTIFY is lost.
      const kill = () =>
        db.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1", [
          `cairn listen ${channel}`,
        ]);
      await kill();
      let writing = true;
      const killer = (async () => {
        while (writing) {
          await kill();
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      })();
      const wrote = await cairnAsync(ws.dir, note("T-2", "written while the listener was down"));
      writing = false;
      await killer;
      expect(wrote.code).toBe(0);
      // The listener reconnects by itself and reads the journal from the last event it saw.
      await own.next(updated(TASK2), since, 20_000);
      expect(await listeners(db, channel)).toBeGreaterThan(0);
    } finally {
      await server.close();
    }
    // stdin closed: this server's listener is gone with it (the suite's own server still listens).
    await expect.poll(() => listeners(db, channel), { timeout: 10_000 }).toBe(1);
    await mcp.close();
    await expect.poll(() => listeners(db, channel), { timeout: 10_000 }).toBe(0);
    await db.end();
  }, 60_000);
});
