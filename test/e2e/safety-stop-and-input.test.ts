import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callTool, connectMcp, INITIALIZE, rawServer, startToolCall } from "../helpers/mcp.js";
import { pidFrom, processGone, waitFor } from "../helpers/processes.js";
import { CAIRN_BIN, cairn, cleanEnv, initWorkspace, STORE_UNDER_TEST } from "../helpers/workspace.js";

/**
 * Long commands stop when asked, input cannot hurt, and the workspace cannot be destroyed from
 * under a server: the reproductions through the real faces. One workspace for the file.
 */
let ws: { dir: string; cleanup: () => void };
let seq = 0;
beforeAll(() => {
  ws = initWorkspace();
});
afterAll(() => ws.cleanup());

/**
 * A claimed task whose criterion runs `sleep 120`, writing the sleeper's pid to a file first;
 * `deaf`: a shell that survives SIGTERM (writing `.term` beside the pid file when it comes), so
 * only the SIGKILL after the grace ends it.
 */
function sleeperTask(deaf = false): { id: string; pidFile: string } {
  seq += 1;
  const pidFile = join(ws.dir, `sleeper-${seq}.pid`);
  const id = (cairn(ws.dir, ["task", "add", `sleeper ${seq}`, "--json"]).json as { task: { id: string } })
    .task.id;
  const args = ["task", "criterion", id, "--text", "sleeps"];
  for (const word of [
    "sh",
    "-c",
    deaf
      ? `trap 'echo > ${pidFile}.term' TERM; echo $$ > ${pidFile}; while :; do sleep 0.1; done`
      : `echo $$ > ${pidFile}; exec sleep 120`,
  ])
    args.push("--verify", word);
  expect(cairn(ws.dir, args).code).toBe(0);
  expect(cairn(ws.dir, ["task", "claim", id]).code).toBe(0);
  return { id, pidFile };
}

function startCheck(id: string) {
  const child = spawn(process.execPath, [CAIRN_BIN, "task", "check", id, "--all"], {
    cwd: ws.dir,
    env: cleanEnv(),
  });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  return { child, exited, stderr: () => stderr };
}

/** A server driven by hand that has been asked to check every criterion of `id`, and not waited for. */
async function checkOverRawServer(id: string) {
  const server = rawServer(ws.dir);
  await startToolCall(server, "check_task", { task: id, all: true });
  return server;
}

describe("long commands stop when asked", () => {
  it("SIGTERM of cairn kills the verify command it runs", async () => {
    const { id, pidFile } = sleeperTask();
    const run = startCheck(id);
    const pid = await pidFrom(pidFile);
    run.child.kill("SIGTERM");
    expect(await run.exited).toBe(143);
    await waitFor(() => processGone(pid), 5_000, "the sleeper to die");
  });

  it("the first Ctrl-C cancels: exit 130 saying so, the command killed, nothing recorded", async () => {
    const { id, pidFile } = sleeperTask();
    const run = startCheck(id);
    const pid = await pidFrom(pidFile);
    run.child.kill("SIGINT");
    expect(await run.exited).toBe(130);
    expect(run.stderr()).toMatch(/cancelled/);
    await waitFor(() => processGone(pid), 5_000, "the sleeper to die");
    const shown = cairn(ws.dir, ["task", "show", id, "--json"]).json as {
      criteria: { checked: boolean; evidence: unknown }[];
    };
    expect(shown.criteria[0]).toMatchObject({ checked: false, evidence: null });
  });

  it("a second Ctrl-C while the command is still stopping exits 130 at once, leaving nothing running", async () => {
    const { id, pidFile } = sleeperTask(true);
    const run = startCheck(id);
    const pid = await pidFrom(pidFile);
    run.child.kill("SIGINT");
    await waitFor(() => existsSync(`${pidFile}.term`), 5_000, "the first Ctrl-C to reach the command");
    run.child.kill("SIGINT");
    expect(await run.exited).toBe(130);
    await waitFor(() => processGone(pid), 5_000, "the sleeper to die");
  });

  it("kill -9 of cairn mid-check: the next cairn sweep kills the verify command it left running", async () => {
    const { id, pidFile } = sleeperTask();
    const run = startCheck(id);
    const pid = await pidFrom(pidFile);
    run.child.kill("SIGKILL");
    await run.exited;
    expect(processGone(pid)).toBe(false);
    expect(cairn(ws.dir, ["sweep"]).code).toBe(0);
    await waitFor(() => processGone(pid), 5_000, "the orphaned sleeper to die");
  });

  it("an MCP cancel of check_task kills the command; the server keeps serving", async () => {
    const { id, pidFile } = sleeperTask();
    const mcp = await connectMcp(ws.dir);
    try {
      const abort = new AbortController();
      const call = mcp.client
        .callTool(
          { name: "check_task", arguments: { schema_version: 1, task: id, all: true } },
          { signal: abort.signal },
        )
        .catch((error: unknown) => error);
      const pid = await pidFrom(pidFile);
      abort.abort();
      await call;
      await waitFor(() => processGone(pid), 5_000, "the sleeper to die");
      expect((await callTool(mcp, "whoami")).structuredContent).toMatchObject({ is_owner: true });
    } finally {
      await mcp.close();
    }
  });

  it("a second request with the id of one in flight is refused, so a cancel of that id still kills the first's command", async () => {
    const first = sleeperTask();
    const second = sleeperTask();
    const server = await checkOverRawServer(first.id);
    try {
      const pid = await pidFrom(first.pidFile);
      const reused = await server.request({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "check_task", arguments: { schema_version: 1, task: second.id, all: true } },
      });
      expect(reused).toMatchObject({
        error: { code: -32600, message: expect.stringMatching(/already in use by a request in flight/) },
      });
      expect(existsSync(second.pidFile)).toBe(false);
      server.notify(
        JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } }),
      );
      await waitFor(() => processGone(pid), 5_000, "the first sleeper to die");
      // Settled by the cancel, the id may be used again.
      const again = await server.request({ jsonrpc: "2.0", id: 1, method: "ping" });
      expect(again.result).toEqual({});
    } finally {
      await server.close();
    }
  });

  it.each([
    ["SIGINT", 130],
    ["SIGTERM", 143],
    ["SIGHUP", 129],
  ] as const)("%s of cairn mcp mid-check takes the command with it", async (signal, exitCode) => {
    const { id, pidFile } = sleeperTask();
    const server = await checkOverRawServer(id);
    const pid = await pidFrom(pidFile);
    expect(await server.kill(signal)).toBe(exitCode);
    await waitFor(() => processGone(pid), 5_000, "the sleeper to die");
  });

  it("a client that disconnects mid-check: the server exits promptly and takes the command with it", async () => {
    const { id, pidFile } = sleeperTask();
    const server = await checkOverRawServer(id);
    const pid = await pidFrom(pidFile);
    const started = Date.now();
    await server.close();
    expect(Date.now() - started).toBeLessThan(5_000);
    await waitFor(() => processGone(pid), 5_000, "the sleeper to die");
  });
});

describe("text is bounded and shown safely", () => {
  it("refuses a 5 MB title before storing it, naming the limit, in a small error", async () => {
    const mcp = await connectMcp(ws.dir);
    try {
      const huge = "t".repeat(5 * 1024 * 1024);
      const result = await callTool(mcp, "add_task", { title: huge });
      expect(result.isError).toBe(true);
      const text = JSON.stringify(result.content);
      expect(text).toMatch(/title holds at most 500 characters/);
      expect(text.length).toBeLessThan(2_000);
      const listed = await callTool(mcp, "list_tasks", { text: "ttttt" });
      expect(listed.structuredContent).toMatchObject({ total: 0 });
    } finally {
      await mcp.close();
    }
    // Linux caps one argv word at 128 KiB, so the CLI's largest is just under that.
    const claim = cairn(ws.dir, ["task", "claim", "9".repeat(120 * 1024)]);
    expect(claim.code).toBe(2);
    expect(claim.stderr.length).toBeLessThan(2_000);
  });

  it("escapes terminal control sequences in human output; JSON stays exact", () => {
    const title = "ok\u001b[2J\u001b]0;owned\u0007\rFAKE";
    const added = cairn(ws.dir, ["task", "add", title, "--json"]);
    const id = (added.json as { task: { id: string; title: string } }).task.id;
    expect((added.json as { task: { title: string } }).task.title).toBe(title);
    const human = cairn(ws.dir, ["task", "show", id]);
    const controls = [...human.stdout].filter((c) => c !== "\n" && (c < " " || c === "\u007f"));
    expect(controls).toEqual([]);
    expect(human.stdout).toContain("ok\\x1b[2J\\x1b]0;owned\\x07\\rFAKE");
    const listed = cairn(ws.dir, ["task", "list"]);
    expect(listed.stdout).not.toContain("\u001b");
  });
});

describe("the workspace cannot be destroyed by accident", () => {
  it("export --out refuses any path inside .cairn/", () => {
    for (const out of [".cairn/cairn.db", ".cairn/../.cairn/backup.jsonl", join(ws.dir, ".cairn")]) {
      const run = cairn(ws.dir, ["export", "--out", out, "--json"]);
      expect(run.code, out).toBe(3);
      expect(run.json).toMatchObject({ refused: { policy: "workspace" } });
    }
    expect(cairn(ws.dir, ["status"]).code).toBe(0);
    expect(cairn(ws.dir, ["export", "--out", "backup.jsonl"]).code).toBe(0);
  });

  it("a server whose database was removed refuses clearly instead of answering ok", async () => {
    const doomed = initWorkspace();
    const mcp = await connectMcp(doomed.dir);
    try {
      expect((await callTool(mcp, "remember", { text: "kept" })).isError).toBeFalsy();
      rmSync(join(doomed.dir, ".cairn"), { recursive: true, force: true });
      const after = await callTool(mcp, "remember", { text: "lost?" });
      expect(after.isError).toBe(true);
      // On PostgreSQL the board outlives the checkout's .cairn/, but not the audit log every
      // write is recorded in: the write is refused all the same.
      expect(JSON.stringify(after.content)).toMatch(
        STORE_UNDER_TEST === "sqlite"
          ? /was removed since this process opened it/
          : /audit log .* cannot be appended to .*nothing was done/,
      );
    } finally {
      await mcp.close();
      doomed.cleanup();
    }
  });

  it.runIf(STORE_UNDER_TEST === "sqlite")(
    "names what stands where the database should be: a FIFO, a folder or a link to nothing",
    () => {
      const odd = initWorkspace();
      try {
        const database = join(odd.dir, ".cairn", "cairn.db");
        const standIns: [string, () => void][] = [
          ["a named pipe (FIFO)", () => execFileSync("mkfifo", [database])],
          ["a folder", () => mkdirSync(database)],
          ["a link to nothing", () => symlinkSync(join(odd.dir, "gone", "cairn.db"), database)],
        ];
        for (const [what, place] of standIns) {
          rmSync(database, { recursive: true, force: true });
          for (const side of ["-wal", "-shm"]) rmSync(database + side, { force: true });
          place();
          const run = cairn(odd.dir, ["status"], { timeoutMs: 10_000 });
          expect(run.code, run.stderr).toBe(1);
          expect(run.stderr).toContain(`${database} is ${what}, not a database file`);
          expect(run.stderr).toMatch(/next: move it aside/);
          expect(run.stderr).not.toMatch(/free disk space|no cairn workspace/);
        }
      } finally {
        odd.cleanup();
      }
    },
  );
});

describe("the cli tool passes arguments exactly", () => {
  it("puts --json before --, shows a usage error's message in the text, and marks failures isError", async () => {
    const mcp = await connectMcp(ws.dir);
    try {
      const remembered = await callTool(mcp, "cli", { argv: ["remember", "--", "-5 degrees is cold"] });
      expect(remembered.structuredContent).toMatchObject({ exit_code: 0 });
      expect(remembered.isError).toBe(false);
      const bad = await callTool(mcp, "cli", { argv: ["task", "show"] });
      expect(bad.structuredContent).toMatchObject({ exit_code: 2 });
      expect(bad.isError).toBe(true);
      expect(JSON.stringify(bad.content)).toMatch(/missing required argument/);
      const missing = await callTool(mcp, "cli", { argv: ["task", "show", "T-999"] });
      expect(missing.structuredContent).toMatchObject({ exit_code: 4 });
      expect(missing.isError).toBe(true);
      // A refusal is an answer, as from every other tool: not an error a loop would retry.
      const added = await callTool(mcp, "cli", { argv: ["task", "add", "unclaimed"] });
      const { id } = (added.structuredContent as { output: { task: { id: string } } }).output.task;
      const refused = await callTool(mcp, "cli", { argv: ["task", "finish", id] });
      expect(refused.structuredContent).toMatchObject({
        exit_code: 3,
        output: { refused: { policy: "ownership" } },
      });
      expect(refused.isError).toBe(false);
    } finally {
      await mcp.close();
    }
  });
});

describe("test servers that die", () => {
  it("fail the waiting test at once, with the server's stderr, instead of timing out", async () => {
    const server = rawServer(ws.dir, { CAIRN_AGENT: "" });
    const started = Date.now();
    await expect(server.request(INITIALIZE)).rejects.toThrow(/exited .*CAIRN_AGENT is set but empty/s);
    expect(Date.now() - started).toBeLessThan(10_000);
    await server.close();
  });
});
